import { createDeadline, sleep } from '../../util/create-deadline.js';

/** How long one call to QQ (token, gateway address, a message, an upload) may take. */
const CALL_DEADLINE_MS = 30_000;

/**
 * QQ answered a call with an error: `status` and `response` are shaped for `retryDelay` (a 429 or 5xx is
 * retried); `code` is QQ's own error code when the body carried one. The message never holds a token.
 */
export class QqApiError extends Error {
  readonly response: { status: number; headers: Record<string, unknown> };
  constructor(
    readonly status: number,
    readonly code: number | undefined,
    detail: string,
    retryAfter?: string | null,
  ) {
    super(`QQ answered ${status}${code !== undefined ? ` (code ${code})` : ''}: ${detail.slice(0, 200)}`);
    this.name = 'QqApiError';
    this.response = { status, headers: retryAfter ? { 'retry-after': retryAfter } : {} };
  }
}

/** QQ refused the AppID or AppSecret: retrying cannot fix it (the channel shows `failed`). */
export class QqAuthError extends Error {
  constructor(detail: string) {
    super(
      `QQ refused the AppID or AppSecret (${detail.slice(0, 200)}): check channels.qq.app_id and app_secret`,
    );
    this.name = 'QqAuthError';
  }
}

/** POSTs or GETs JSON within the call deadline; a non-2xx answer becomes a QqApiError. */
async function callJson(
  url: string,
  init: { method: 'GET' | 'POST'; headers?: Record<string, string>; body?: unknown },
  signal?: AbortSignal,
): Promise<Record<string, unknown>> {
  const deadline = createDeadline(CALL_DEADLINE_MS, signal);
  try {
    const response = await fetch(url, {
      method: init.method,
      headers: {
        ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...init.headers,
      },
      ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
      signal: deadline.signal,
    });
    const text = await response.text();
    let body: Record<string, unknown> = {};
    try {
      const parsed: unknown = text ? JSON.parse(text) : {};
      if (parsed && typeof parsed === 'object') body = parsed as Record<string, unknown>;
    } catch {
      // A body that is not JSON: only the status says what happened.
    }
    if (!response.ok) {
      const code = typeof body['code'] === 'number' ? body['code'] : undefined;
      const message = typeof body['message'] === 'string' ? body['message'] : response.statusText;
      throw new QqApiError(response.status, code, message, response.headers.get('retry-after'));
    }
    return body;
  } finally {
    deadline.dispose();
  }
}

export interface QqAccessTokenOptions {
  tokenUrl: string;
  appId: string;
  appSecret: string;
  clock?: () => number;
}

/**
 * The app's access token (`POST getAppAccessToken {appId, clientSecret}`): fetched once and shared by
 * concurrent callers, fetched again when a fifth of its life (at most a minute) is left, so a call never
 * carries a token about to expire. `keepFresh` refreshes ahead of time even when nothing is sent.
 */
export class QqAccessToken {
  private token: { value: string; refreshAt: number } | undefined;
  private pending: Promise<string> | undefined;

  constructor(private readonly options: QqAccessTokenOptions) {}

  private now(): number {
    return this.options.clock?.() ?? Date.now();
  }

  /**
   * A token valid for at least the refresh margin.
   * @throws QqAuthError when QQ refuses the credentials; QqApiError or a network error otherwise.
   */
  get(signal?: AbortSignal): Promise<string> {
    if (this.token && this.now() < this.token.refreshAt) return Promise.resolve(this.token.value);
    this.pending ??= this.fetchToken(signal).finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  /** Forgets the token (QQ answered 401): the next `get` fetches a new one. */
  invalidate(): void {
    this.token = undefined;
  }

  /** Refreshes the token whenever it is due until `signal` aborts; failures go to `onError`. Never throws. */
  async keepFresh(signal: AbortSignal, onError: (error: unknown) => void): Promise<void> {
    while (!signal.aborted) {
      try {
        await this.get(signal);
      } catch (error) {
        if (signal.aborted) return;
        onError(error);
      }
      const wait = this.token ? Math.max(1000, this.token.refreshAt - this.now()) : 5000;
      await sleep(wait, signal).catch(() => {});
    }
  }

  private async fetchToken(signal?: AbortSignal): Promise<string> {
    const { tokenUrl, appId, appSecret } = this.options;
    let body: Record<string, unknown>;
    try {
      body = await callJson(tokenUrl, { method: 'POST', body: { appId, clientSecret: appSecret } }, signal);
    } catch (error) {
      if (error instanceof QqApiError && error.status >= 400 && error.status < 500 && error.status !== 429)
        throw new QqAuthError(error.message);
      throw error;
    }
    const value = body['access_token'];
    // QQ sends expires_in as a string of seconds.
    const seconds = Number(body['expires_in']);
    if (typeof value !== 'string' || !value || !Number.isFinite(seconds) || seconds <= 0) {
      const detail = typeof body['message'] === 'string' ? body['message'] : 'no access_token in the answer';
      throw new QqAuthError(`${body['code'] ?? ''} ${detail}`.trim());
    }
    const life = seconds * 1000;
    this.token = { value, refreshAt: this.now() + life - Math.min(60_000, life / 5) };
    return value;
  }
}

/**
 * The bot REST API at `base` with `Authorization: QQBot <token>`. A 401 fetches a new token and tries
 * once more (the token may have been revoked early); other errors are thrown as they are.
 */
export class QqApi {
  constructor(
    private readonly base: string,
    private readonly token: QqAccessToken,
  ) {}

  async call(
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    signal?: AbortSignal,
  ): Promise<Record<string, unknown>> {
    for (let attempt = 1; ; attempt++) {
      const token = await this.token.get(signal);
      try {
        return await callJson(
          `${this.base}${path}`,
          { method, headers: { authorization: `QQBot ${token}` }, ...(body !== undefined ? { body } : {}) },
          signal,
        );
      } catch (error) {
        if (!(error instanceof QqApiError && error.status === 401) || attempt > 1) throw error;
        this.token.invalidate();
      }
    }
  }
}
