/**
 * The short-lived Copilot API token for one GitHub token: fetched from the token exchange on first use, kept
 * in memory only, fetched again shortly before it expires or after the chat API rejected it.
 */
import { createDeadline } from '../util/create-deadline.js';
import { redactSecrets } from './provider-error.js';

/** One Copilot API token. */
export interface CopilotToken {
  /** The bearer token for the chat API; a secret. */
  token: string;
  /** Epoch ms from which the next call fetches a new token instead. */
  refreshAt: number;
  /** The chat API's base URL the exchange named (`endpoints.api`), without trailing slash. */
  apiBase?: string;
}

export interface CopilotTokenSourceOptions {
  /** The long-lived GitHub token (`Authorization: token …` on the exchange). */
  githubToken: string;
  tokenUrl: string;
  /** The editor headers Copilot expects. */
  headers?: Readonly<Record<string, string>>;
  fetch?: typeof fetch;
  /** Milliseconds since the epoch; injected in tests. */
  now?: () => number;
  /** Deadline of one exchange. Default 30 s. */
  timeoutMs?: number;
  /** Told each new token (so the app's redactor learns it) and the token it retires (two generations old). */
  onToken?: (event: { token: string; retired?: string }) => void;
}

/**
 * The exchange failed: `status` is the HTTP status (0 for an answer without a token, -1 when GitHub could
 * not be reached). The message says what to do and never contains a token.
 */
export class CopilotTokenError extends Error {
  override readonly name = 'CopilotTokenError';
  readonly status: number;

  constructor(status: number, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.status = status;
  }
}

/** Fetch a new token this long before `expires_at`, so no call starts with one about to expire. */
const REFRESH_MARGIN_MS = 60_000;
/** When the exchange names neither `expires_at` nor `refresh_in`. */
const FALLBACK_LIFETIME_MS = 10 * 60_000;

/**
 * Hands out the current Copilot API token. Concurrent callers share one exchange; a caller's abort stops
 * only its own wait. Never logs.
 */
export class CopilotTokenSource {
  readonly #options: CopilotTokenSourceOptions;
  readonly #now: () => number;
  #current: CopilotToken | undefined;
  #pending: Promise<CopilotToken> | undefined;
  /** The last two tokens handed out, newest last (the one before the current may still be in flight). */
  readonly #recent: string[] = [];

  constructor(options: CopilotTokenSourceOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  /**
   * The current token, exchanging for a new one when there is none or its refresh time has come.
   * @throws CopilotTokenError when the exchange fails; the signal's reason when `signal` aborts.
   */
  async get(signal?: AbortSignal): Promise<CopilotToken> {
    const current = this.#current;
    if (current && this.#now() < current.refreshAt) return current;
    if (!this.#pending) {
      const pending = this.#exchange().finally(() => {
        if (this.#pending === pending) this.#pending = undefined;
      });
      this.#pending = pending;
    }
    return waitFor(this.#pending, signal);
  }

  /** Drops `token` (the chat API rejected it): the next `get` exchanges again. A stale token is ignored. */
  invalidate(token: string): void {
    if (this.#current?.token === token) this.#current = undefined;
  }

  /** Tokens that may still be in use: the current one and the one before. */
  live(): string[] {
    return [...this.#recent];
  }

  async #exchange(): Promise<CopilotToken> {
    const { tokenUrl, githubToken } = this.#options;
    const deadline = createDeadline(this.#options.timeoutMs ?? 30_000);
    let status: number;
    let text: string;
    try {
      const response = await (this.#options.fetch ?? fetch)(tokenUrl, {
        headers: {
          ...this.#options.headers,
          accept: 'application/json',
          authorization: `token ${githubToken}`,
        },
        signal: deadline.signal,
      });
      status = response.status;
      text = await response.text();
    } catch (error) {
      const why = deadline.timedOut ? 'no answer within the deadline' : 'the connection failed';
      throw new CopilotTokenError(
        -1,
        `Could not reach GitHub's Copilot token exchange at ${tokenUrl} (${why}).`,
        {
          cause: error,
        },
      );
    } finally {
      deadline.dispose();
    }
    if (status >= 400) throw exchangeError(status, redactSecrets(text, [githubToken]), tokenUrl);
    const token = parseToken(text, this.#now());
    if (!token)
      throw new CopilotTokenError(
        0,
        `GitHub's Copilot token exchange at ${tokenUrl} answered without a token.`,
      );
    this.#current = token;
    this.#recent.push(token.token);
    const retired = this.#recent.length > 2 ? this.#recent.shift() : undefined;
    this.#options.onToken?.({ token: token.token, ...(retired ? { retired } : {}) });
    return token;
  }
}

function exchangeError(status: number, body: string, tokenUrl: string): CopilotTokenError {
  const detail = excerpt(body);
  if (status === 401)
    return new CopilotTokenError(
      status,
      `GitHub did not accept the GitHub token for Copilot (HTTP 401${detail}): it was revoked or has expired. ` +
        'Sign in again with `wren models login copilot`.',
    );
  if (status === 403 || status === 404)
    return new CopilotTokenError(
      status,
      `GitHub gave no Copilot API token for this account (HTTP ${status}${detail}). Check that the account ` +
        'has a Copilot subscription (https://github.com/settings/copilot) and that the token came from ' +
        '`wren models login copilot`.',
    );
  return new CopilotTokenError(
    status,
    `GitHub's Copilot token exchange at ${tokenUrl} failed (HTTP ${status}${detail}).`,
  );
}

/** The token and its times from the exchange's JSON; undefined when it has no token. */
function parseToken(text: string, now: number): CopilotToken | undefined {
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (typeof body?.token !== 'string' || body.token.length === 0) return undefined;
  const times: number[] = [];
  if (typeof body.expires_at === 'number') times.push(body.expires_at * 1000 - REFRESH_MARGIN_MS);
  if (typeof body.refresh_in === 'number') times.push(now + body.refresh_in * 1000);
  // Used at least once even when it is already due again (a skewed clock must not loop on the exchange).
  const refreshAt = times.length > 0 ? Math.max(now, Math.min(...times)) : now + FALLBACK_LIFETIME_MS;
  const token: CopilotToken = { token: body.token, refreshAt };
  const api = (body.endpoints as { api?: unknown } | undefined)?.api;
  if (typeof api === 'string' && /^https?:\/\/[^\s/]+/.test(api) && URL.canParse(api))
    token.apiBase = api.replace(/\/+$/, '');
  return token;
}

function excerpt(body: string): string {
  let text = body;
  try {
    const message = (JSON.parse(body) as { message?: unknown }).message;
    if (typeof message === 'string') text = message;
  } catch {
    // not JSON: the raw text
  }
  const collapsed = text.replace(/\s+/g, ' ').trim().slice(0, 200);
  return collapsed ? `: ${collapsed}` : '';
}

/** `promise`, but rejects with the signal's reason as soon as `signal` aborts. */
function waitFor<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
