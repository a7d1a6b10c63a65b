/**
 * What Google APIs (Gemini) put in an error body's `error.details` (`google.rpc.*` messages) that Wren
 * acts on. Gemini sends no `Retry-After` header: how long to wait after a 429 is only in a `RetryInfo`
 * detail. A wrong key is not a 401 but a 400 whose `ErrorInfo` has reason `API_KEY_INVALID`.
 */

export interface GoogleErrorDetails {
  /** From `RetryInfo.retryDelay` (a protobuf Duration such as `7s` or `45.837906927s`), rounded up. */
  retryDelayMs?: number;
  /** `ErrorInfo.reason` values, e.g. `API_KEY_INVALID`. */
  reasons: string[];
}

const RETRY_INFO = 'type.googleapis.com/google.rpc.RetryInfo';
const ERROR_INFO = 'type.googleapis.com/google.rpc.ErrorInfo';

/**
 * Reads the details of a Google error body (`{error: {…}}`, or the one-element array a JSON-array stream
 * sends). Any other body gives no delay and no reasons; never throws.
 */
export function googleErrorDetails(body: string): GoogleErrorDetails {
  const out: GoogleErrorDetails = { reasons: [] };
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return out;
  }
  const envelope = Array.isArray(parsed) ? parsed[0] : parsed;
  const details = record(record(envelope)?.error)?.details;
  if (!Array.isArray(details)) return out;
  for (const detail of details.map(record)) {
    if (detail?.['@type'] === RETRY_INFO) {
      const delay = parseDuration(detail.retryDelay);
      if (delay !== undefined) out.retryDelayMs = delay;
    } else if (detail?.['@type'] === ERROR_INFO && typeof detail.reason === 'string') {
      out.reasons.push(detail.reason);
    }
  }
  return out;
}

/** A protobuf Duration in its JSON form (`"7s"`, `"0.5s"`) as milliseconds; undefined when malformed. */
function parseDuration(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const match = /^\s*(\d+(?:\.\d+)?)s\s*$/.exec(value);
  return match ? Math.ceil(Number(match[1]) * 1000) : undefined;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
}
