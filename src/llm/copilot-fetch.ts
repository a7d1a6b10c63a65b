import { CopilotTokenError, type CopilotTokenSource } from './copilot-token-source.js';
import type { EndpointConfig } from './endpoint.js';
import { NetworkError, ProviderError, redactSecrets, toEndpointError } from './provider-error.js';

export interface CopilotFetchOptions {
  /** A Copilot endpoint: `apiKey` is the GitHub token, `copilot` says where its API tokens come from. */
  endpoint: EndpointConfig;
  source: CopilotTokenSource;
  fetch?: typeof fetch;
}

/**
 * A `fetch` for the AI SDK's OpenAI-compatible provider that speaks to Copilot's chat API. Each request gets
 * the current Copilot API token as its bearer and the endpoint's editor headers, and goes to the API base the
 * exchange named (unless `base_url` was set: then there). A 401 drops that token and the request is sent
 * once more with a new one. An error answer comes back with both tokens cut out of its body.
 * @throws ProviderError (the exchange's HTTP status) or NetworkError when no API token can be had, with a
 * message that says what to do; the signal's reason on abort.
 */
export function createCopilotFetch(options: CopilotFetchOptions): typeof fetch {
  const { endpoint, source } = options;
  const send = options.fetch ?? fetch;
  const configuredBase = endpoint.baseUrl.replace(/\/+$/, '');
  const attempt = async (input: Parameters<typeof fetch>[0], init: RequestInit | undefined) => {
    const token = await tokenFor(endpoint, source, init?.signal ?? undefined);
    const headers = new Headers(init?.headers);
    for (const [name, value] of Object.entries(endpoint.headers ?? {})) headers.set(name, value);
    headers.set('authorization', `Bearer ${token.token}`);
    // Copilot refuses image parts unless the request says it carries them.
    if (endpoint.vision) headers.set('copilot-vision-request', 'true');
    const base = endpoint.copilot?.useTokenApiBase && token.apiBase ? token.apiBase : configuredBase;
    const url = rebase(urlOf(input), configuredBase, base);
    return { token, response: await send(url, { ...init, headers }) };
  };
  return async (input, init) => {
    let { token, response } = await attempt(input, init);
    if (response.status === 401) {
      await response.body?.cancel().catch(() => {});
      source.invalidate(token.token);
      ({ token, response } = await attempt(input, init));
    }
    if (response.ok) return response;
    const secrets = [token.token, ...(endpoint.apiKey ? [endpoint.apiKey] : [])];
    const body = redactSecrets(await response.text(), secrets);
    const headers = new Headers(response.headers);
    headers.delete('content-length');
    headers.delete('content-encoding');
    return new Response(body, { status: response.status, statusText: response.statusText, headers });
  };
}

async function tokenFor(endpoint: EndpointConfig, source: CopilotTokenSource, signal?: AbortSignal) {
  try {
    return await source.get(signal);
  } catch (error) {
    if (signal?.aborted || !(error instanceof CopilotTokenError)) throw error;
    const message = `Endpoint "${endpoint.name}": ${error.message}`;
    if (error.status === -1) {
      // No cause attached: the AI SDK would otherwise re-wrap a coded network error and lose this message.
      const classified = toEndpointError(error.cause, endpoint);
      const reason = classified instanceof NetworkError ? classified.reason : 'other';
      throw new NetworkError({ message, reason, endpoint: endpoint.name });
    }
    throw new ProviderError({ message, status: error.status, endpoint: endpoint.name });
  }
}

function urlOf(input: Parameters<typeof fetch>[0]): string {
  if (typeof input === 'string') return input;
  return input instanceof URL ? input.href : input.url;
}

/** `url` with its `from` prefix replaced by `to` (unchanged when it does not start with `from`). */
function rebase(url: string, from: string, to: string): string {
  return from !== to && url.startsWith(from) ? to + url.slice(from.length) : url;
}
