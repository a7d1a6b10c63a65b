import type { Client4 } from '@mattermost/client';

/** How long one REST call may take before it is aborted. */
const CALL_DEADLINE_MS = 30_000;

/**
 * A refused or failed REST call: the HTTP status and Mattermost's error id (`api.context.session_expired.app_error`
 * …), with `response` shaped for `retrying` (429 and 5xx wait out `Retry-After`). Never carries the token.
 */
export class MattermostApiError extends Error {
  override readonly name = 'MattermostApiError';
  readonly response: { status: number; headers: Record<string, string> };

  constructor(
    readonly status: number,
    readonly serverErrorId: string,
    message: string,
    retryAfter: string | null,
  ) {
    super(
      `Mattermost answered ${status}${serverErrorId ? ` (${serverErrorId})` : ''}: ${message.slice(0, 300)}`,
    );
    this.response = { status, headers: retryAfter ? { 'retry-after': retryAfter } : {} };
  }
}

/** The Client4 class as the SDK exports it (the CommonJS entry's `Client4`, itself its `default`). */
export type Client4Class = typeof Client4;

/**
 * A Client4 bound to one server and bot token whose every call has a deadline, sends no cookies, and
 * fails with a {@link MattermostApiError} that keeps the HTTP status (the SDK's own `ClientError` drops it,
 * so a 429 could not be told from a refusal). The SDK's route and body building is kept as it is.
 */
export function createMattermostApi(Client: Client4Class, url: string, token: string): Client4 {
  class DeadlineClient4 extends Client {
    constructor() {
      super();
      this.setUrl(url);
      this.setToken(token);
      this.setIncludeCookies(false);
      this.doFetch = async <T>(target: string, options: Parameters<Client4['getOptions']>[0]) => {
        const response = await fetch(target, {
          ...this.getOptions(options),
          signal: AbortSignal.timeout(CALL_DEADLINE_MS),
        });
        const text = await response.text();
        let data: unknown = text;
        if ((response.headers.get('content-type') ?? '').includes('json')) {
          try {
            data = JSON.parse(text);
          } catch {
            data = text;
          }
        }
        if (response.ok) return data as T;
        const body = (typeof data === 'object' && data !== null ? data : {}) as {
          id?: unknown;
          message?: unknown;
        };
        throw new MattermostApiError(
          response.status,
          typeof body.id === 'string' ? body.id : '',
          typeof body.message === 'string' ? body.message : String(text).slice(0, 200),
          response.headers.get('retry-after'),
        );
      };
    }
  }
  return new DeadlineClient4();
}
