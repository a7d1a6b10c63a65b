import type { MiddlewareHandler } from 'hono';

/** The body of an error as OpenAI's API writes it, which OpenAI-compatible clients read. */
export interface OpenAiErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

/** OpenAI's error `type` for an HTTP status. */
export function openAiErrorType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'api_error';
  return 'invalid_request_error';
}

/** An error body in OpenAI's shape: `{error: {message, type, param, code}}`. */
export function openAiError(
  status: number,
  error: { message: string; code: string; param?: string | undefined },
): OpenAiErrorBody {
  return {
    error: {
      message: error.message,
      type: openAiErrorType(status),
      param: error.param ?? null,
      code: error.code,
    },
  };
}

/**
 * Rewrites the gateway's own error answers under `/v1/*` (the host guard, the token check, unknown routes,
 * the generic 500) from Wren's `{error: {code, message}}` into OpenAI's shape, keeping status and headers
 * (`Retry-After`, `WWW-Authenticate`), so an OpenAI client shows them like any API error. Answers already in
 * that shape, and every success, pass untouched.
 */
export const openAiErrorShape: MiddlewareHandler = async (c, next) => {
  await next();
  const response = c.res;
  if (response.status < 400 || !response.headers.get('content-type')?.includes('application/json')) return;
  let body: unknown;
  try {
    body = await response.clone().json();
  } catch {
    return;
  }
  const error = (body as { error?: { code?: unknown; message?: unknown; type?: unknown } } | null)?.error;
  if (!error || typeof error !== 'object' || error.type !== undefined) return;
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  const shaped = openAiError(response.status, {
    message: typeof error.message === 'string' ? error.message : 'The request failed.',
    code: typeof error.code === 'string' ? error.code : 'error',
  });
  // Cleared first: Hono merges the previous response's headers into a replacement.
  c.res = undefined;
  c.res = new Response(JSON.stringify(shaped), { status: response.status, headers });
};
