/**
 * The process's Copilot token sources, one per (token exchange, GitHub token): every model call of a Copilot
 * endpoint — and `wren models test`, and a config reload that keeps the token — shares its cached API token.
 */
import { CopilotTokenSource } from './copilot-token-source.js';
import type { EndpointConfig } from './endpoint.js';
import { ProviderError } from './provider-error.js';

/** What a listener hears: a new Copilot API token, and the one it retires (no longer in use). */
export interface CopilotTokenEvent {
  token: string;
  retired?: string;
}

type Listener = (event: CopilotTokenEvent) => void;

/** Sources kept at most; the oldest is dropped past this (a long run with many re-logins). */
const MAX_SOURCES = 16;
const sources = new Map<string, CopilotTokenSource>();
const listeners = new Set<Listener>();

/**
 * The shared source for a Copilot endpoint (`endpoint.copilot` set, `apiKey` the GitHub token).
 * @throws ProviderError (401) when the endpoint has no GitHub token; Error when it is no Copilot endpoint.
 */
export function copilotTokenSourceFor(
  endpoint: Pick<EndpointConfig, 'name' | 'apiKey' | 'headers' | 'copilot'>,
): CopilotTokenSource {
  if (!endpoint.copilot) throw new Error(`endpoint "${endpoint.name}" is not a Copilot endpoint`);
  if (!endpoint.apiKey)
    throw new ProviderError({
      message: `Endpoint "${endpoint.name}" has no GitHub token; sign in with \`wren models login copilot\`.`,
      status: 401,
      endpoint: endpoint.name,
    });
  const headers = editorHeaders(endpoint.headers);
  const key = [endpoint.copilot.tokenUrl, endpoint.apiKey, JSON.stringify(headers)].join('\n');
  let source = sources.get(key);
  if (source) {
    // Most recently used last, so the oldest is the one dropped.
    sources.delete(key);
    sources.set(key, source);
    return source;
  }
  source = new CopilotTokenSource({
    githubToken: endpoint.apiKey,
    tokenUrl: endpoint.copilot.tokenUrl,
    headers,
    onToken: (event) => {
      for (const listener of listeners) listener(event);
    },
  });
  sources.set(key, source);
  if (sources.size > MAX_SOURCES) sources.delete(sources.keys().next().value!);
  return source;
}

/** The headers of `headers` that describe the editor (the exchange gets those, not every custom header). */
export function editorHeaders(headers: Readonly<Record<string, string>> | undefined): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers ?? {}).filter(([name]) => /^(editor-|copilot-|user-agent$)/i.test(name)),
  );
}

/**
 * Calls `listener` with every Copilot API token this process gets from now on, and at once with those it
 * holds already (the app's redactor must know each before it can appear anywhere). Returns the unsubscribe.
 */
export function onCopilotToken(listener: Listener): () => void {
  listeners.add(listener);
  for (const source of sources.values()) for (const token of source.live()) listener({ token });
  return () => listeners.delete(listener);
}
