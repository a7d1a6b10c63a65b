import { createHash } from 'node:crypto';
import { chmodSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import webPush from 'web-push';
import * as z from 'zod';
import type { Delivery } from '../store/outbox-repository.js';
import type { PushSubscriptionStore } from '../store/ports.js';
import type { PushSubscriptionKeys, StoredPushSubscription } from '../store/push-subscription-repository.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { createDeadline } from '../util/create-deadline.js';
import type { ProactiveConfig } from './proactive-config.js';
import type { Deliverer } from './run-executor.js';
import { parseRetryAfter } from './webhook-deliverer.js';

/** The delivery target that fans one delivery out to every subscribed browser. */
export const PUSH_TARGET = 'push:all';

/** The targets web push adds to a delivery: `push:all` when `proactive.push` is on, none otherwise. */
export function pushTargets(config: Pick<ProactiveConfig, 'push'>): string[] {
  return config.push ? [PUSH_TARGET] : [];
}

export const MAX_TITLE_LENGTH = 80;
export const MAX_BODY_LENGTH = 240;
/** How long a push service keeps a message for an offline browser. */
const TTL_SECONDS = 24 * 60 * 60;
const VAPID_FILE = 'push-vapid.json';

export interface VapidKeys {
  publicKey: string;
  privateKey: string;
}

/** Decoded length of a base64url string, or -1 when it is not one. */
function base64urlBytes(text: string): number {
  return /^[A-Za-z0-9_-]+={0,2}$/.test(text) ? Buffer.from(text, 'base64url').length : -1;
}

function validVapid(value: unknown): value is VapidKeys {
  const keys = value as Partial<VapidKeys> | null;
  return (
    typeof keys?.publicKey === 'string' &&
    typeof keys.privateKey === 'string' &&
    base64urlBytes(keys.publicKey) === 65 &&
    base64urlBytes(keys.privateKey) === 32
  );
}

/**
 * The home's VAPID key pair, from `<home>/push-vapid.json`; generated and written (0600, atomically) the
 * first time. Every browser subscription is bound to the public key, so the file is never replaced once
 * written: a damaged one throws (with what to do) instead of being silently regenerated. A file readable
 * by others is narrowed to 0600. Meant for the process that holds the home's start-up lock.
 * @throws Error when the file exists but is not a key pair, or cannot be read or written.
 */
export function loadVapidKeys(home: string): VapidKeys {
  const path = join(home, VAPID_FILE);
  let text: string | undefined;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (text === undefined) {
    const { publicKey, privateKey } = webPush.generateVAPIDKeys();
    writeFileAtomic(path, `${JSON.stringify({ publicKey, privateKey }, null, 2)}\n`, 0o600);
    return { publicKey, privateKey };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!validVapid(parsed)) {
    throw new Error(
      `${path} is not a VAPID key pair; move it aside (mv ${path} ${path}.broken) to generate new keys ` +
        '(every browser then has to enable notifications again)',
    );
  }
  if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
  return { publicKey: parsed.publicKey, privateKey: parsed.privateKey };
}

/**
 * The browsers' push services: Chrome's (FCM), Firefox's (Mozilla autopush), Safari's (Apple) and Edge's on
 * Windows (WNS); `*.` matches any subdomain. A subscription makes Wren POST to its endpoint later, from this
 * machine, with whatever body it encrypts, so any other host would let whoever can subscribe aim Wren at the
 * local network or a cloud metadata service (a public name may resolve to 127.0.0.1, e.g. `*.nip.io`).
 */
export const PUSH_SERVICES = [
  'fcm.googleapis.com',
  'updates.push.services.mozilla.com',
  '*.push.apple.com',
  '*.notify.windows.com',
] as const;

const PUSH_SERVICES_TEXT = `${PUSH_SERVICES.slice(0, -1).join(', ')} or ${PUSH_SERVICES.at(-1)}`;

function isPushServiceHost(host: string): boolean {
  return PUSH_SERVICES.some((service) =>
    service.startsWith('*.') ? host.endsWith(service.slice(1)) : host === service,
  );
}

/**
 * `endpoint` as the WHATWG URL parser normalizes it when it is https on the default port, without user info,
 * on a host of {@link PUSH_SERVICES} (exact, or below a `*.` entry); otherwise undefined. Deliveries go to this
 * normalized form, so the host checked is the host web-push connects to. Pure.
 */
export function pushServiceUrl(endpoint: string): string | undefined {
  if (!URL.canParse(endpoint)) return undefined;
  const url = new URL(endpoint);
  const plain = url.protocol === 'https:' && url.port === '' && url.username === '' && url.password === '';
  return plain && isPushServiceHost(url.hostname) ? url.href : undefined;
}

const subscriptionSchema = z.object({
  endpoint: z
    .string()
    .max(2048)
    .refine((text) => text.startsWith('https://') && URL.canParse(text), 'must be an https URL')
    .refine(
      (text) => pushServiceUrl(text) !== undefined,
      `must be a browser push service's URL: https on the default port at ${PUSH_SERVICES_TEXT}`,
    ),
  keys: z.object({
    p256dh: z.string().refine((text) => base64urlBytes(text) === 65, 'must be a base64url P-256 public key'),
    auth: z.string().refine((text) => base64urlBytes(text) === 16, 'must be a base64url 16-byte secret'),
  }),
});

/**
 * Validates what a browser sent (`PushSubscription.toJSON()`: `{endpoint, keys: {p256dh, auth}}`, other
 * fields ignored); the endpoint must be one of {@link PUSH_SERVICES} (see {@link pushServiceUrl}). Pure.
 * @throws Error whose message says which field is wrong (fit for a 400 answer).
 */
export function parsePushSubscription(value: unknown): PushSubscriptionKeys {
  const result = subscriptionSchema.safeParse(value);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new Error(`invalid push subscription: ${issue?.path.join('.') || 'value'} ${issue?.message ?? ''}`);
  }
  return { endpoint: result.data.endpoint, keys: { ...result.data.keys } };
}

/** Cuts `text` to `max` characters (code points, so no emoji is split), ending with … when cut. */
export function cap(text: string, max: number): string {
  const chars = Array.from(text.trim());
  return chars.length <= max
    ? chars.join('')
    : `${chars
        .slice(0, max - 1)
        .join('')
        .trimEnd()}…`;
}

/** The JSON a subscribed browser's service worker receives. */
export interface PushMessage {
  title: string;
  body: string;
  /** The outbox key: the same on a re-send, so the page can drop a duplicate. */
  key: string;
  kind: Delivery['kind'];
  at: string;
  late: boolean;
}

export function pushMessage(delivery: Delivery): PushMessage {
  return {
    title: cap(delivery.title, MAX_TITLE_LENGTH),
    body: cap(delivery.text, MAX_BODY_LENGTH),
    key: delivery.sourceKey,
    kind: delivery.kind,
    at: new Date(delivery.dueAt).toISOString(),
    late: delivery.late,
  };
}

/**
 * Sends one encrypted message, resolving when the push service took it (2xx), rejecting otherwise with an
 * error carrying `statusCode` (and `headers`) when the service answered, like web-push's `WebPushError`.
 * `signal` fires at the deadline or on shutdown.
 */
export type PushSend = (
  subscription: webPush.PushSubscription,
  payload: string,
  options: webPush.RequestOptions,
  signal: AbortSignal,
) => Promise<unknown>;

/** web-push's own sender (https only; it cannot take a signal, so its socket timeout is set instead). */
const defaultSend: PushSend = (subscription, payload, options) =>
  webPush.sendNotification(subscription, payload, options);

/** Why no subscribed browser took a delivery; `permanent` and `retryAfterMs` as the run executor reads them. */
export class PushDeliveryError extends Error {
  override readonly name = 'PushDeliveryError';
  readonly permanent: boolean;
  readonly retryAfterMs?: number;

  constructor(message: string, details: { permanent: boolean; retryAfterMs?: number }) {
    super(message);
    this.permanent = details.permanent;
    if (details.retryAfterMs !== undefined) this.retryAfterMs = details.retryAfterMs;
  }
}

export interface PushDelivererOptions {
  subscriptions: PushSubscriptionStore;
  vapid: VapidKeys;
  /** The VAPID contact, `mailto:` or `https:` (push services may contact the sender there). */
  subject?: string;
  send?: PushSend;
  /** Deadline for the whole fan-out (default 10 s). */
  timeoutMs?: number;
  clock?: () => number;
}

type Outcome =
  | { ok: true }
  | { ok: false; dead: boolean; retryable: boolean; why: string; retryAfterMs?: number };

/** Resolves or rejects with `promise`, or rejects with the signal's reason as soon as it aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function outcomeOf(error: unknown, host: string, now: number): Outcome {
  const status = (error as { statusCode?: unknown }).statusCode;
  if (typeof status !== 'number') {
    const said = error instanceof Error ? error.message : String(error);
    return { ok: false, dead: false, retryable: true, why: `${host}: ${said}` };
  }
  if (status === 404 || status === 410)
    return { ok: false, dead: true, retryable: false, why: `${host}: gone` };
  const headers = (error as { headers?: Record<string, string | string[] | undefined> }).headers ?? {};
  const header = headers['retry-after'];
  const retryAfterMs = parseRetryAfter(typeof header === 'string' ? header : null, now);
  const retryable = status === 408 || status === 425 || status === 429 || status >= 500;
  return {
    ok: false,
    dead: false,
    retryable,
    why: `${host} answered ${status}`,
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  };
}

function hostOf(endpoint: string): string {
  return URL.canParse(endpoint) ? new URL(endpoint).host : 'push service';
}

/** A stored subscription with the URL its messages go to ({@link pushServiceUrl} of its endpoint). */
type SendableSubscription = StoredPushSubscription & { url: string };

/**
 * The stored subscriptions with the URL to send to; one whose endpoint is no push service (stored before
 * {@link PUSH_SERVICES} was checked) is removed instead: sending there is what the check prevents.
 */
function sendable(repository: PushSubscriptionStore): SendableSubscription[] {
  return repository.list().flatMap((subscription) => {
    const url = pushServiceUrl(subscription.endpoint);
    if (url === undefined) repository.remove(subscription.endpoint);
    return url === undefined ? [] : [{ ...subscription, url }];
  });
}

/** What the fan-out ends with: resolve, or the error to reject with. */
function conclude(outcomes: readonly Outcome[]): PushDeliveryError | undefined {
  const failed = outcomes.filter((outcome) => !outcome.ok);
  // Delivered to a browser, or nobody left to deliver to: a retry would only repeat it on the others.
  if (failed.length < outcomes.length || failed.every((outcome) => outcome.dead)) return undefined;
  const live = failed.filter((outcome) => !outcome.dead);
  const why = live.map((outcome) => outcome.why).join('; ');
  if (live.some((outcome) => outcome.retryable)) {
    const hints = live.map((outcome) => outcome.retryAfterMs ?? 0);
    const retryAfterMs = Math.max(0, ...hints);
    return new PushDeliveryError(`no subscribed browser took the notification (${why}); will retry`, {
      permanent: false,
      ...(retryAfterMs > 0 ? { retryAfterMs } : {}),
    });
  }
  return new PushDeliveryError(
    `every push service refused the notification permanently (${why}); enable notifications again in the ` +
      'web app (a 403 usually means the VAPID keys changed)',
    { permanent: true },
  );
}

/**
 * Delivers to target `push:all`: one encrypted message ({@link PushMessage}, title ≤ 80 and body ≤ 240
 * characters) to every subscribed browser at once, with a topic derived from the outbox key (a push service
 * replaces a still-queued message with the same topic, so a re-send does not stack). Endpoints answering
 * 404/410 are deleted, and so are endpoints that are not on {@link PUSH_SERVICES} (never sent to); other
 * failures are counted on the subscription. Resolves when at least one browser
 * took it, or when none is (left) subscribed; rejects with a {@link PushDeliveryError}, retryable unless
 * every live endpoint refused with a non-retryable status, when none did. Quiet results never get here:
 * the outbox creates no delivery for them. A caller's abort rejects with the abort reason.
 */
export function createPushDeliverer(options: PushDelivererOptions): Deliverer {
  const send = options.send ?? defaultSend;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const clock = options.clock ?? Date.now;
  const vapidDetails = { subject: options.subject ?? 'mailto:wren@example.com', ...options.vapid };

  return async (delivery, signal) => {
    if (delivery.target !== PUSH_TARGET) {
      throw new PushDeliveryError(`unknown push target "${delivery.target}"; use ${PUSH_TARGET}`, {
        permanent: true,
      });
    }
    const subscriptions = sendable(options.subscriptions);
    if (subscriptions.length === 0) return;
    const payload = JSON.stringify(pushMessage(delivery));
    const topic = createHash('sha256').update(delivery.sourceKey).digest('base64url').slice(0, 32);
    const requestOptions: webPush.RequestOptions = {
      vapidDetails,
      TTL: TTL_SECONDS,
      urgency: 'normal',
      topic,
      contentEncoding: 'aes128gcm',
      timeout: timeoutMs,
    };
    const deadline = createDeadline(timeoutMs, signal);
    try {
      const sendOne = async (subscription: SendableSubscription): Promise<Outcome> => {
        const target = { endpoint: subscription.url, keys: subscription.keys };
        try {
          await untilAborted(send(target, payload, requestOptions, deadline.signal), deadline.signal);
          return { ok: true };
        } catch (error) {
          if (deadline.timedOut)
            return {
              ok: false,
              dead: false,
              retryable: true,
              why: `${hostOf(target.endpoint)}: no answer in time`,
            };
          return outcomeOf(error, hostOf(target.endpoint), clock());
        }
      };
      const outcomes = await Promise.all(subscriptions.map(sendOne));
      if (signal.aborted) throw signal.reason;
      subscriptions.forEach((subscription, index) => {
        const outcome = outcomes[index]!;
        if (outcome.ok) options.subscriptions.markOk(subscription.id);
        else if (outcome.dead) options.subscriptions.remove(subscription.endpoint);
        else options.subscriptions.markFailed(subscription.id);
      });
      const error = conclude(outcomes);
      if (error) throw error;
    } finally {
      deadline.dispose();
    }
  };
}
