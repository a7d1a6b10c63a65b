/**
 * Errors of one model call, classified by who failed: the provider answered with a refusal
 * (`ProviderError`) or we never got a complete answer (`NetworkError`). Both carry the endpoint name and a
 * message that tells the user what to do next; neither ever contains the endpoint's api key.
 */
import type { EndpointConfig } from './endpoint.js';
import { googleErrorDetails } from './google-error-details.js';
import { findProviderPresetByBaseUrl } from './provider-presets.js';

const EXCERPT_LENGTH = 300;

/** What the endpoint pool should do after a failure. */
export type FailureAction = 'cooldown' | 'retry' | 'fatal';

/** The provider answered with an HTTP error status (or an error event inside a stream). */
export class ProviderError extends Error {
  override readonly name = 'ProviderError';
  /** HTTP status; 0 when the provider sent something we could not use (malformed response). */
  readonly status: number;
  readonly endpoint: string;
  /** Start of the response body, whitespace collapsed, secrets redacted. */
  readonly bodyExcerpt: string;
  /**
   * From `Retry-After` (seconds or HTTP date) or `retry-after-ms`, else from a Google `RetryInfo.retryDelay`
   * in the body; relative to when the error was built.
   */
  readonly retryAfterMs?: number;
  /** The raw `Retry-After` value, so a caller with its own clock can resolve an HTTP date itself. */
  readonly retryAfter?: string;

  constructor(options: {
    message: string;
    status: number;
    endpoint: string;
    bodyExcerpt?: string;
    retryAfterMs?: number;
    retryAfter?: string;
    cause?: unknown;
  }) {
    super(options.message, { cause: options.cause });
    this.status = options.status;
    this.endpoint = options.endpoint;
    this.bodyExcerpt = options.bodyExcerpt ?? '';
    if (options.retryAfterMs !== undefined) this.retryAfterMs = options.retryAfterMs;
    if (options.retryAfter !== undefined) this.retryAfter = options.retryAfter;
  }

  /** Milliseconds to wait as seen from `now`: an HTTP-date `Retry-After` is resolved against `now`. */
  retryDelayMs(now: number): number | undefined {
    if (this.retryAfter !== undefined && !/^\s*\d/.test(this.retryAfter)) {
      const date = Date.parse(this.retryAfter);
      if (!Number.isNaN(date)) return Math.max(0, date - now);
    }
    return this.retryAfterMs;
  }

  /** 429, 529 or an "overloaded" answer: the endpoint needs a rest, others may serve meanwhile. */
  get isRateLimit(): boolean {
    return this.status === 429 || this.status === 529 || /overloaded/i.test(this.bodyExcerpt);
  }
}

export type NetworkFailure = 'refused' | 'dns' | 'timeout' | 'reset' | 'other';

/** No complete answer: connection refused, unknown host, timeout, connection dropped mid-response. */
export class NetworkError extends Error {
  override readonly name = 'NetworkError';
  readonly reason: NetworkFailure;
  readonly endpoint: string;

  constructor(options: { message: string; reason: NetworkFailure; endpoint: string; cause?: unknown }) {
    super(options.message, { cause: options.cause });
    this.reason = options.reason;
    this.endpoint = options.endpoint;
  }
}

/** Decides how the pool reacts: cool down (rate limit), retry with backoff (5xx, network), or give up. */
export function failureAction(error: ProviderError | NetworkError): FailureAction {
  if (error instanceof NetworkError) return 'retry';
  if (error.isRateLimit) return 'cooldown';
  if (error.status >= 500 || error.status === 408) return 'retry';
  return 'fatal';
}

/**
 * Parses `Retry-After` (delay in seconds or an HTTP date) and OpenAI's `retry-after-ms` into milliseconds
 * from `now`. Header names are matched case-insensitively. Returns undefined when absent or unparseable.
 */
export function parseRetryAfter(
  headers: Record<string, string | undefined> | undefined,
  now: number,
): number | undefined {
  if (!headers) return undefined;
  const get = (name: string) =>
    Object.entries(headers)
      .find(([key]) => key.toLowerCase() === name)?.[1]
      ?.trim() || undefined;
  const ms = get('retry-after-ms');
  if (ms && /^\d+(\.\d+)?$/.test(ms)) return Math.ceil(Number(ms));
  const value = get('retry-after');
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.ceil(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Secrets of an endpoint that must never appear in a message: the api key and auth-like header values. */
export function endpointSecrets(endpoint: Pick<EndpointConfig, 'apiKey' | 'headers'>): string[] {
  const secrets = endpoint.apiKey ? [endpoint.apiKey] : [];
  for (const [name, value] of Object.entries(endpoint.headers ?? {})) {
    if (/auth|key|token|secret|cookie/i.test(name) && value) {
      secrets.push(value, value.replace(/^(Bearer|Basic)\s+/i, ''));
    }
  }
  return secrets.filter((secret) => secret.length >= 4);
}

/** Replaces every occurrence of each secret (and URL credentials) with `[redacted]`. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text.replace(/(\w+:\/\/)[^/\s:@]+:[^/\s@]+@/g, '$1[redacted]@');
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) {
    if (secret) out = out.split(secret).join('[redacted]');
  }
  return out;
}

/**
 * Turns anything thrown by a provider SDK or fetch into a `ProviderError` or `NetworkError` for `endpoint`.
 * Errors that already are one of the two pass through (re-redacted). Never throws.
 */
export function toEndpointError(
  error: unknown,
  endpoint: EndpointConfig,
  now: number = Date.now(),
): ProviderError | NetworkError {
  const secrets = endpointSecrets(endpoint);
  if (error instanceof ProviderError || error instanceof NetworkError) {
    if (!secrets.some((secret) => error.message.includes(secret))) return error;
    error.message = redactSecrets(error.message, secrets);
    return error;
  }
  const record = asRecord(error);
  const status = typeof record?.statusCode === 'number' ? record.statusCode : undefined;
  // A 2xx status means the body broke off or could not be read: that is the network's fault, if a cause says so.
  if (status !== undefined && (status >= 400 || !networkReason(error))) {
    const headers = asRecord(record?.responseHeaders) as Record<string, string> | undefined;
    const body = typeof record?.responseBody === 'string' ? record.responseBody : '';
    return httpError(endpoint, status, body, headers, now, error);
  }
  const streamStatus = streamErrorStatus(record);
  if (streamStatus !== undefined) {
    return httpError(endpoint, streamStatus, safeJson(error), undefined, now, error);
  }
  const reason = networkReason(error);
  if (reason) return networkError(endpoint, reason, error);
  const detail = redactSecrets(errorText(error), secrets).slice(0, EXCERPT_LENGTH);
  return new ProviderError({
    message: `Endpoint "${endpoint.name}" sent a response Wren could not use: ${detail}`,
    status: 0,
    endpoint: endpoint.name,
    bodyExcerpt: detail,
    cause: error,
  });
}

/**
 * Builds the `ProviderError` for an HTTP status, response body and headers, with advice that fits the status.
 * The wait comes from the headers, else from a Google `RetryInfo` detail; Google's `API_KEY_INVALID` (sent
 * with 400) counts as a rejected key like 401/403.
 */
export function httpError(
  endpoint: EndpointConfig,
  status: number,
  body: string,
  headers?: Record<string, string | undefined>,
  now: number = Date.now(),
  cause?: unknown,
): ProviderError {
  const excerpt = bodyExcerpt(body, endpointSecrets(endpoint));
  const google = googleErrorDetails(body);
  const retryAfterMs = parseRetryAfter(headers, now) ?? google.retryDelayMs;
  const retryAfter = headers
    ? Object.entries(headers).find(([key]) => key.toLowerCase() === 'retry-after')?.[1]
    : undefined;
  const keyRejected = status === 401 || status === 403 || google.reasons.includes('API_KEY_INVALID');
  const message = httpMessage({ endpoint, status, excerpt, retryAfterMs, keyRejected });
  return new ProviderError({
    message,
    status,
    endpoint: endpoint.name,
    bodyExcerpt: excerpt,
    retryAfterMs,
    retryAfter,
    cause,
  });
}

/** Builds a `NetworkError` with advice for the given failure. */
export function networkError(
  endpoint: EndpointConfig,
  reason: NetworkFailure,
  cause?: unknown,
): NetworkError {
  const where = `endpoint "${endpoint.name}" at ${redactSecrets(endpoint.baseUrl, endpointSecrets(endpoint))}`;
  const advice: Record<NetworkFailure, string> = {
    refused: `Could not connect to ${where}: connection refused. Is the server running and listening on that port?`,
    dns: `Could not resolve the host of ${where}. Check base_url for typos and your network connection.`,
    timeout: `No complete answer from ${where} within ${formatMs(endpoint.timeoutMs)}. Check that the server is up, or raise timeout_ms for this endpoint.`,
    reset: `The connection to ${where} was dropped before the answer was complete. Check the server's logs or a proxy in between.`,
    other: `Could not reach ${where}: ${redactSecrets(errorText(cause), endpointSecrets(endpoint)).slice(0, EXCERPT_LENGTH)}`,
  };
  return new NetworkError({ message: advice[reason], reason, endpoint: endpoint.name, cause });
}

function httpMessage(options: {
  endpoint: EndpointConfig;
  status: number;
  excerpt: string;
  retryAfterMs: number | undefined;
  keyRejected: boolean;
}): string {
  const { endpoint, status, excerpt, retryAfterMs } = options;
  const who = `Endpoint "${endpoint.name}" (model "${endpoint.model}")`;
  const detail = excerpt ? `: ${excerpt}` : '.';
  if (options.keyRejected) {
    const env = findProviderPresetByBaseUrl(endpoint.baseUrl)?.apiKeyEnv;
    const hint = env ? ` (usually ${env})` : '';
    return `${who} rejected the API key (HTTP ${status})${detail} Check the api_key of endpoint "${endpoint.name}" in config.yaml and the environment variable it names${hint}.`;
  }
  if (status === 404) {
    return `${who} answered HTTP 404 Not Found${detail} Check the model name and base_url of endpoint "${endpoint.name}" (base_url must end at the version segment, e.g. https://api.openai.com/v1).`;
  }
  if (status === 429 || status === 529 || /overloaded/i.test(excerpt)) {
    const when =
      retryAfterMs === undefined ? '' : ` The provider asks to wait ${Math.ceil(retryAfterMs / 1000)} s.`;
    return `${who} is rate-limited or overloaded (HTTP ${status})${detail}${when}`;
  }
  if (status === 413)
    return `${who} refused the request as too large (HTTP 413)${detail} Shorten the conversation or lower context_window.`;
  if (status >= 500) return `${who} failed on the provider's side (HTTP ${status})${detail}`;
  return `${who} refused the request (HTTP ${status})${detail}`;
}

function bodyExcerpt(body: string, secrets: readonly string[]): string {
  let text = body;
  try {
    const json: unknown = JSON.parse(body);
    // A Gemini stream without `alt=sse` wraps its error in a one-element array.
    const parsed = asRecord(Array.isArray(json) ? json[0] : json);
    const inner = asRecord(parsed?.error) ?? parsed;
    const message = inner?.message ?? (typeof parsed?.error === 'string' ? parsed.error : undefined);
    if (typeof message === 'string') {
      // OpenAI and Anthropic name an error `type`; Google names its gRPC `status` (RESOURCE_EXHAUSTED …).
      const kind = typeof inner?.type === 'string' ? inner.type : inner?.status;
      text = (typeof kind === 'string' ? `${kind}: ` : '') + message;
    }
  } catch {
    // Not JSON: keep the raw text.
  }
  const collapsed = redactSecrets(text.replace(/\s+/g, ' ').trim(), secrets);
  return collapsed.length > EXCERPT_LENGTH ? `${collapsed.slice(0, EXCERPT_LENGTH)}…` : collapsed;
}

/** In-stream error objects (Anthropic `event: error`, OpenAI `{error: …}` chunks) mapped to a status. */
function streamErrorStatus(record: Record<string, unknown> | undefined): number | undefined {
  const type = typeof record?.type === 'string' ? record.type : undefined;
  if (!type) return typeof record?.code === 'number' && record.code >= 400 ? record.code : undefined;
  if (type === 'overloaded_error') return 529;
  if (type === 'rate_limit_error') return 429;
  if (type === 'api_error' || type === 'server_error') return 500;
  if (type.endsWith('_error')) return 400;
  return undefined;
}

function networkReason(error: unknown): NetworkFailure | undefined {
  const codes: string[] = [];
  const messages: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current; depth++) {
    const record = asRecord(current);
    if (typeof record?.code === 'string') codes.push(record.code);
    if (typeof record?.message === 'string') messages.push(record.message.toLowerCase());
    if (typeof record?.name === 'string' && record.name === 'TimeoutError') return 'timeout';
    current = record?.cause;
  }
  const has = (...names: string[]) => codes.some((code) => names.includes(code));
  if (has('ECONNREFUSED')) return 'refused';
  if (has('ENOTFOUND', 'EAI_AGAIN')) return 'dns';
  if (has('ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT'))
    return 'timeout';
  if (has('ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'ECONNABORTED')) return 'reset';
  if (messages.some((m) => m === 'terminated' || m.includes('socket hang up'))) return 'reset';
  if (messages.some((m) => m.includes('fetch failed') || m.startsWith('cannot connect to api')))
    return 'other';
  return undefined;
}

function formatMs(ms: number): string {
  return ms < 10_000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`;
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
}

function errorText(error: unknown): string {
  if (error instanceof Error) return error.message;
  return typeof error === 'string' ? error : safeJson(error);
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
