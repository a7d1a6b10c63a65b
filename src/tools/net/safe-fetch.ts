import { type AddressGuard, AddressRefusedError, type Resolve, systemResolve } from './address-guard.js';
import { displayUrl, FetchError, parseTargetUrl, portOf } from './target-url.js';

/** Options of one {@link safeFetch} call. Times are milliseconds. */
export interface SafeFetchOptions {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** Bytes downloaded at most; the rest is not read and `truncated` is set. */
  maxBytes: number;
  /** Deadline for the whole exchange (every hop, headers and body). */
  timeoutMs: number;
  /** Deadline for each TCP/TLS connect, DNS included. */
  connectTimeoutMs: number;
  /** Redirects followed at most; 0 turns a redirect into an error. */
  maxRedirects: number;
  /**
   * Checks every hop's resolved address at connect time (web_fetch). Omitted for endpoints the owner
   * configured (search and weather providers), which may legitimately live on the LAN.
   */
  guard?: AddressGuard;
  /** DNS for guarded requests (tests inject it); defaults to the system resolver. */
  resolve?: Resolve;
  /** Whether to download the body for this content type (default yes); e.g. skip images. */
  wantBody?: (contentType: string) => boolean;
}

/** A completed response. */
export interface SafeResponse {
  /** The final URL after redirects. */
  url: URL;
  status: number;
  headers: Record<string, string>;
  /** Lowercase media type without parameters (`text/html`), '' when the server sent none. */
  contentType: string;
  charset?: string;
  body: Buffer;
  /** The body was cut at `maxBytes`. */
  truncated: boolean;
  /** `Content-Length` when the server declared one. */
  declaredLength?: number;
  /** URLs redirected through, in order. */
  redirects: URL[];
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

function flatHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (value !== undefined) out[key.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function mediaType(header: string | undefined): { contentType: string; charset?: string } {
  if (!header) return { contentType: '' };
  const [type = '', ...params] = header.split(';');
  const charset = params
    .map((param) => /^\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(param)?.[1])
    .find((value) => value !== undefined);
  return { contentType: type.trim().toLowerCase(), ...(charset ? { charset: charset.toLowerCase() } : {}) };
}

function errorCode(error: unknown): string | undefined {
  for (let current = error as { code?: unknown; cause?: unknown } | undefined; current; ) {
    if (typeof current.code === 'string') return current.code;
    current = current.cause as typeof current;
  }
  return undefined;
}

function findRefusal(error: unknown): AddressRefusedError | undefined {
  for (
    let current = error as { cause?: unknown } | undefined;
    current;
    current = current.cause as typeof current
  ) {
    if (current instanceof AddressRefusedError) return current;
  }
  return undefined;
}

/** Turns whatever undici or the guard threw into a FetchError the model can act on. */
function explain(error: unknown, url: URL, options: SafeFetchOptions, timedOut: boolean): Error {
  if (error instanceof FetchError) return error;
  const refusal = findRefusal(error);
  if (refusal) return new FetchError(`Refused: ${refusal.message}`);
  const where = url.host;
  const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;
  if (timedOut) {
    return new FetchError(
      `${where} did not answer completely within ${seconds(options.timeoutMs)}; try again later or another source.`,
    );
  }
  const code = errorCode(error);
  switch (code) {
    case 'UND_ERR_CONNECT_TIMEOUT':
      return new FetchError(`Could not connect to ${where} within ${seconds(options.connectTimeoutMs)}.`);
    case 'ECONNREFUSED':
      return new FetchError(`${where} refused the connection (nothing listens on port ${portOf(url)}).`);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new FetchError(`${url.hostname} could not be resolved (DNS lookup failed); check the address.`);
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
    case 'UND_ERR_CLOSED':
      return new FetchError(`${where} closed the connection before the response was complete.`);
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
      return new FetchError(`${where} stopped sending data; try again later.`);
    default:
      if (code && /CERT|SSL|TLS/.test(code)) {
        return new FetchError(`The TLS certificate of ${where} could not be verified (${code}).`);
      }
      return new FetchError(
        `Fetching ${displayUrl(url)} failed: ${code ?? (error as Error)?.message ?? 'network error'}.`,
      );
  }
}

async function readCapped(
  body: AsyncIterable<Buffer>,
  maxBytes: number,
): Promise<{ body: Buffer; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    if (size + chunk.length > maxBytes) {
      chunks.push(chunk.subarray(0, maxBytes - size));
      size = maxBytes;
      return { body: Buffer.concat(chunks, size), truncated: true };
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  return { body: Buffer.concat(chunks, size), truncated: false };
}

/**
 * Where a redirect leads, parsed and checked like the first URL.
 * @throws FetchError when the limit is reached or the target is not an http(s) URL.
 */
function redirectTarget(from: URL, location: string, followed: number, max: number): URL {
  let next: URL;
  try {
    next = parseTargetUrl(location, from).url;
  } catch (error) {
    throw new FetchError(
      `${displayUrl(from)} redirected to a URL that is not fetched: ${(error as Error).message}`,
    );
  }
  if (followed >= max) {
    throw new FetchError(
      max === 0
        ? `${displayUrl(from)} answered with a redirect, which is not followed here.`
        : `Stopped after ${max} redirects (the next one went to ${displayUrl(next)}); fetch the final URL directly if it is right.`,
    );
  }
  return next;
}

/**
 * One HTTP exchange with hard limits: http/https only, at most `maxRedirects` redirects (each hop parsed and,
 * with a guard, checked again: the resolved address is checked inside the socket's DNS lookup, so the address
 * checked is the address dialled), connect and total deadlines, and at most `maxBytes` read (counted here,
 * never trusting Content-Length; no compression is requested). Only the caller's abort propagates as an abort.
 * @throws FetchError with a message for the model for refusals, timeouts, network failures and bad URLs.
 */
export async function safeFetch(
  target: string,
  options: SafeFetchOptions,
  signal?: AbortSignal,
): Promise<SafeResponse> {
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const combined = signal ? AbortSignal.any([signal, deadline]) : deadline;
  const resolve = options.resolve ?? systemResolve;
  // undici loads on the first fetch, not at start-up.
  const { Agent, request } = await import('undici');
  const redirects: URL[] = [];
  const first = parseTargetUrl(target);
  let url = first.url;
  let method = options.method ?? 'GET';
  let requestBody = options.body;
  for (;;) {
    const port = portOf(url);
    const agent = new Agent({
      connect: {
        timeout: options.connectTimeoutMs,
        ...(options.guard ? { lookup: options.guard.connectLookup(resolve, port) } : {}),
      },
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    });
    try {
      if (options.guard) await options.guard.resolveChecked(resolve, url.hostname, port, combined);
      const response = await request(url, {
        dispatcher: agent,
        method,
        headers: { 'accept-encoding': 'identity', ...options.headers },
        ...(requestBody !== undefined ? { body: requestBody } : {}),
        signal: combined,
      });
      // Destroying a body early (redirect, cap, unwanted type) emits an abort error nobody else listens to.
      response.body.on('error', () => {});
      const headers = flatHeaders(response.headers);
      if (REDIRECTS.has(response.statusCode) && headers.location) {
        response.body.destroy();
        const next = redirectTarget(url, headers.location, redirects.length, options.maxRedirects);
        redirects.push(url);
        if (method === 'POST' && response.statusCode !== 307 && response.statusCode !== 308) {
          [method, requestBody] = ['GET', undefined];
        }
        url = next;
        continue;
      }
      const { contentType, charset } = mediaType(headers['content-type']);
      const declared = headers['content-length'] ? Number(headers['content-length']) : Number.NaN;
      let read: { body: Buffer; truncated: boolean } = { body: Buffer.alloc(0), truncated: false };
      if (options.wantBody?.(contentType) ?? true) read = await readCapped(response.body, options.maxBytes);
      else response.body.destroy();
      return {
        url,
        status: response.statusCode,
        headers,
        contentType,
        ...(charset ? { charset } : {}),
        ...read,
        ...(Number.isFinite(declared) ? { declaredLength: declared } : {}),
        redirects,
      };
    } catch (error) {
      if (signal?.aborted) throw signal.reason ?? error;
      const explained = explain(error, url, options, deadline.aborted);
      const from = redirects.at(-1);
      if (first.disguised && !from && findRefusal(error)) {
        explained.message += ` (the URL writes ${url.hostname} as "${first.disguised}")`;
      }
      if (from && findRefusal(error)) {
        explained.message += ` (${displayUrl(from)} redirected there; the redirect was not followed)`;
      }
      throw explained;
    } finally {
      agent.destroy().catch(() => {});
    }
  }
}
