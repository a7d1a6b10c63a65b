import { embedTexts } from './embed-texts.js';
import { isEmbeddingEndpoint } from './embedding-endpoint.js';
import type { EndpointConfig } from './endpoint.js';
import { endpointSecrets, redactSecrets, toEndpointError } from './provider-error.js';
import { streamEndpoint } from './stream-endpoint.js';
import type { ModelRequest } from './types.js';

/** Outcome of `testEndpoint`. */
export interface EndpointTestResult {
  /** True when the endpoint answered without error (whatever the reply text). */
  ok: boolean;
  /** From sending the request to the end of the answer (or the failure). */
  latencyMs: number;
  /** The model's reply, when it answered (for an embedding model: the length of its vectors). */
  reply?: string;
  /** What went wrong, fit to show the user (never contains the api key). */
  error?: string;
}

const PROBE_REQUEST: ModelRequest = {
  system: [],
  messages: [{ role: 'user', content: 'Reply with: ok' }],
  maxOutputTokens: 16,
  temperature: 0,
};

/**
 * Sends one tiny request (16 output tokens at most; for an embedding model, the embedding of one word)
 * straight to `endpoint` — no pool, no retries — for `wren models test`. Never rejects: failures and aborts
 * come back as `{ ok: false, error }`.
 */
export async function testEndpoint(
  endpoint: EndpointConfig,
  signal?: AbortSignal,
): Promise<EndpointTestResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let reply = '';
  try {
    if (isEmbeddingEndpoint(endpoint)) {
      const { vectors } = await embedTexts(endpoint, ['ok'], signal);
      return { ok: true, latencyMs: elapsed(), reply: `${vectors[0]?.length ?? 0} dimensions` };
    }
    for await (const event of streamEndpoint(endpoint, PROBE_REQUEST, signal)) {
      if (event.type === 'text-delta') reply += event.text;
      if (event.type === 'done' && event.result.stopReason === 'error') {
        const message = event.result.errorMessage ?? 'The endpoint ended the reply with an error.';
        return { ok: false, latencyMs: elapsed(), error: message };
      }
    }
    return { ok: true, latencyMs: elapsed(), reply: reply.trim() };
  } catch (error) {
    if (signal?.aborted) return { ok: false, latencyMs: elapsed(), error: 'Test cancelled.' };
    const message = toEndpointError(error, endpoint).message;
    return { ok: false, latencyMs: elapsed(), error: redactSecrets(message, endpointSecrets(endpoint)) };
  }
}
