/** Default reconnect delays: 1 s, 2 s, 4 s … capped at a minute, with jitter so restarts do not align. */
export function defaultBackoff(attempt: number): number {
  const base = Math.min(60_000, 1000 * 2 ** Math.max(0, attempt - 1));
  return Math.round(base * (0.8 + Math.random() * 0.4));
}

/** How long to wait before retrying a failed API call (429 or 5xx), or undefined when retrying cannot help. */
export function retryDelay(error: unknown, attempt: number): number | undefined {
  const failed = error as {
    status?: number;
    statusCode?: number;
    response?: { status?: number; headers?: Record<string, unknown> };
  };
  const status = failed.response?.status ?? failed.status ?? failed.statusCode;
  if (status === undefined || (status !== 429 && (status < 500 || status > 599))) return undefined;
  const header = Number(failed.response?.headers?.['retry-after']);
  return Number.isFinite(header) && header > 0
    ? Math.min(header, 300) * 1000
    : Math.min(1000 * 2 ** (attempt - 1), 30_000);
}

/**
 * Runs one platform API call, retrying a 429 or 5xx answer after the platform's `Retry-After` (else 1 s,
 * 2 s, 4 s …), at most `attempts` times; rethrows the last error (or any other error at once).
 */
export async function retrying<T>(call: () => Promise<T>, attempts = 4): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      const wait = retryDelay(error, attempt);
      if (wait === undefined || attempt >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, wait).unref());
    }
  }
}
