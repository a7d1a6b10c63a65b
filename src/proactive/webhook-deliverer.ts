import type { Delivery } from '../store/outbox-repository.js';
import { createDeadline } from '../util/create-deadline.js';
import type { ProactiveConfig } from './proactive-config.js';
import type { Deliverer } from './run-executor.js';

/** A `Retry-After` longer than this is read as this: the executor gives up a day after the occurrence anyway. */
const MAX_RETRY_AFTER_MS = 24 * 60 * 60_000;
/** How much of a refusal's response body goes into the error message. */
const EXCERPT_LENGTH = 200;
/** Statuses that mean "not now": retried with backoff (and `Retry-After`). */
const RETRYABLE = new Set([408, 425, 429]);

/**
 * Why a webhook did not take a delivery. `permanent` ones (a 4xx refusal, an unknown name, a bad header) are
 * given up at once by the run executor; the others are retried, no sooner than `retryAfterMs` when the
 * webhook said so. The message names the webhook and its host, never a header value or the URL's path
 * (a Home Assistant webhook id or an ntfy topic is a secret of its own).
 */
export class WebhookDeliveryError extends Error {
  override readonly name = 'WebhookDeliveryError';
  readonly permanent: boolean;
  /** HTTP status, when the webhook answered. */
  readonly status?: number;
  readonly retryAfterMs?: number;

  constructor(
    message: string,
    details: { permanent: boolean; status?: number; retryAfterMs?: number; cause?: unknown },
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.permanent = details.permanent;
    if (details.status !== undefined) this.status = details.status;
    if (details.retryAfterMs !== undefined) this.retryAfterMs = details.retryAfterMs;
  }
}

export interface WebhookDelivererOptions {
  /** The configured webhooks, read at every delivery (a config reload applies to the next attempt). */
  webhooks: () => ProactiveConfig['webhooks'];
  fetch?: typeof fetch;
  /** Deadline of one attempt, answer body included (default 10 s). */
  timeoutMs?: number;
  /** For resolving an HTTP-date `Retry-After` (default Date.now). */
  clock?: () => number;
}

/** The JSON body a webhook receives. `key` is also sent as `Idempotency-Key`. */
export interface WebhookBody {
  key: string;
  kind: Delivery['kind'];
  title: string;
  text: string;
  /** ISO time of the occurrence (not of the send). */
  at: string;
  late: boolean;
}

/**
 * Milliseconds to wait from a `Retry-After` value (delay-seconds or HTTP date, RFC 9110 §10.2.3), capped at
 * a day; undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  let ms: number;
  if (/^\d+$/.test(text)) ms = Number(text) * 1000;
  else {
    const date = Date.parse(text);
    if (Number.isNaN(date)) return undefined;
    ms = Math.max(0, date - now);
  }
  return Math.min(ms, MAX_RETRY_AFTER_MS);
}

/** `name` and host, for messages: the path and query may hold a secret. */
function describe(name: string, url: string): string {
  return `webhook "${name}" (${new URL(url).host})`;
}

function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length >= 4) out = out.split(secret).join('[redacted]');
  return out;
}

/** The first EXCERPT_LENGTH characters of the answer, reading no more than needed; '' when unreadable. */
async function excerptOf(response: Response): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    while (text.length < EXCERPT_LENGTH) {
      const chunk = await reader.read();
      if (chunk.done) break;
      text += decoder.decode(chunk.value, { stream: true });
    }
  } catch {
    // The excerpt is a courtesy: a body cut off by the deadline is not a second failure.
  } finally {
    reader.cancel().catch(() => {});
  }
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > EXCERPT_LENGTH ? `${flat.slice(0, EXCERPT_LENGTH)}…` : flat;
}

/** Builds the request headers; a configured header the runtime rejects is named, its value never shown. */
function headersFor(name: string, configured: Readonly<Record<string, string>>, key: string): Headers {
  const headers = new Headers({ 'content-type': 'application/json', 'user-agent': 'Wren' });
  for (const [header, value] of Object.entries(configured)) {
    try {
      headers.set(header, value);
    } catch (error) {
      throw new WebhookDeliveryError(
        `webhook "${name}": the configured header "${header}" is not a valid HTTP header name or value; ` +
          `fix proactive.webhooks.${name}.headers in config.yaml`,
        { permanent: true, cause: new Error((error as Error).name) },
      );
    }
  }
  // Last, so no configured header can change it: the sink's only way to drop a re-send.
  headers.set('idempotency-key', key);
  return headers;
}

/** Turns a non-2xx answer into the error the executor acts on. */
async function refusal(
  response: Response,
  label: string,
  secrets: readonly string[],
  now: number,
): Promise<WebhookDeliveryError> {
  const { status } = response;
  const excerpt = redact(await excerptOf(response), secrets);
  const said = excerpt ? `: ${excerpt}` : '';
  if (RETRYABLE.has(status) || status >= 500) {
    const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'), now);
    const wait = retryAfterMs === undefined ? '' : ` (it asked to wait ${Math.ceil(retryAfterMs / 1000)} s)`;
    return new WebhookDeliveryError(`${label} answered ${status}${said}; will retry${wait}`, {
      permanent: false,
      status,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    });
  }
  const hint =
    status >= 300 && status < 400
      ? 'it redirects (not followed, so headers never go elsewhere): put the final URL in config.yaml'
      : 'check its URL and headers in config.yaml';
  return new WebhookDeliveryError(
    `${label} refused the delivery permanently (${status}${said}); not retried: ${hint}`,
    { permanent: true, status },
  );
}

/**
 * Delivers to targets `webhook:<name>`: POSTs {@link WebhookBody} as JSON with `Idempotency-Key: <outbox
 * key>` (the same on every attempt, so a sink can drop a re-send after a crash between send and confirm),
 * the configured headers, `content-type: application/json` and `user-agent: Wren`. Redirects are not
 * followed. Resolves on 2xx. Rejects with a {@link WebhookDeliveryError}: retryable for 408/425/429/5xx,
 * network errors and timeouts (with `retryAfterMs` from `Retry-After`); permanent for other statuses, an
 * unknown webhook name, a non-http(s) URL or an invalid configured header. A caller's abort rejects with
 * the abort reason.
 */
export function createWebhookDeliverer(options: WebhookDelivererOptions): Deliverer {
  const send = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const clock = options.clock ?? Date.now;

  return async (delivery, signal) => {
    const name = delivery.target.startsWith('webhook:') ? delivery.target.slice('webhook:'.length) : '';
    const webhooks = options.webhooks();
    const webhook = Object.hasOwn(webhooks, name) ? webhooks[name] : undefined;
    if (!webhook) {
      const known = Object.keys(webhooks);
      throw new WebhookDeliveryError(
        `no webhook is configured for target "${delivery.target}" (configured: ${known.length ? known.join(', ') : 'none'}); ` +
          'add it under proactive.webhooks in config.yaml or fix the target',
        { permanent: true },
      );
    }
    if (!/^https?:\/\//i.test(webhook.url) || !URL.canParse(webhook.url)) {
      throw new WebhookDeliveryError(
        `webhook "${name}": the URL must be http(s); fix proactive.webhooks.${name}.url`,
        { permanent: true },
      );
    }
    const label = describe(name, webhook.url);
    const headers = headersFor(name, webhook.headers, delivery.sourceKey);
    const body: WebhookBody = {
      key: delivery.sourceKey,
      kind: delivery.kind,
      title: delivery.title,
      text: delivery.text,
      at: new Date(delivery.dueAt).toISOString(),
      late: delivery.late,
    };
    const deadline = createDeadline(timeoutMs, signal);
    try {
      const response = await send(webhook.url, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
        redirect: 'manual',
        signal: deadline.signal,
      });
      if (response.status >= 200 && response.status < 300) {
        await response.body?.cancel().catch(() => {});
        return;
      }
      throw await refusal(response, label, Object.values(webhook.headers), clock());
    } catch (error) {
      if (error instanceof WebhookDeliveryError) throw error;
      if (signal.aborted) throw signal.reason;
      const why = deadline.timedOut
        ? `did not answer within ${Math.ceil(timeoutMs / 1000)} s`
        : `could not be reached (${networkCause(error)})`;
      throw new WebhookDeliveryError(`${label} ${why}; will retry`, { permanent: false, cause: error });
    } finally {
      deadline.dispose();
    }
  };
}

/** The innermost message of a fetch failure ("fetch failed" hides the useful part in `cause`). */
function networkCause(error: unknown): string {
  let current: unknown = error;
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  return current instanceof Error ? current.message : String(current);
}
