import { Hono } from 'hono';
import { z } from 'zod';
import type { PushService } from '../services/push-service.js';
import type * as Api from './api-types.js';
import { problem } from './problem.js';
import { limitBody, validBody } from './route-input.js';

/** A browser's subscription JSON is a few hundred bytes; this leaves room and nothing more. */
const MAX_SUBSCRIPTION_BODY_BYTES = 16 * 1024;

export interface PushRouteOptions {
  subscriptions: Pick<PushService, 'subscribe' | 'unsubscribe'>;
  /**
   * The home's VAPID public key, the key pair created on first use (`loadVapidKeys`). May reject when the
   * stored pair is damaged; its message says what to do and names no secret.
   */
  publicKey: () => Promise<string>;
  /** Whether deliveries go to subscribed browsers now (`proactive.push`). */
  enabled: () => boolean;
}

const unsubscribe = z.object({ endpoint: z.string().min(1).max(2048) }).strict();

/**
 * Web push for the web app:
 *
 * - `GET /api/push/key` → `{publicKey, enabled}`: the VAPID public key to subscribe with
 *   (`applicationServerKey`), and whether `proactive.push` sends to subscribed browsers now;
 * - `POST /api/push/subscriptions` `PushSubscription.toJSON()` (`{endpoint, keys: {p256dh, auth}}`;
 *   `expirationTime` and other fields are ignored) → `201 {subscription: {id, endpoint, createdAt}}` (the keys
 *   are not echoed); subscribing again refreshes the same one. The endpoint must be https at one of the
 *   browsers' push services (`PUSH_SERVICES` in proactive/web-push.ts): Wren POSTs to it later, so any other
 *   URL (an IP address, a name that resolves to this machine, a metadata service) is refused with 400;
 * - `DELETE /api/push/subscriptions` `{endpoint}` → `{removed}`.
 */
export function pushRoutes(options: PushRouteOptions): Hono {
  const app = new Hono();
  app.use('/api/push/subscriptions', limitBody(MAX_SUBSCRIPTION_BODY_BYTES));

  app.get('/api/push/key', async (c) => {
    let publicKey: string;
    try {
      publicKey = await options.publicKey();
    } catch (error) {
      return c.json(problem('internal', `Web push keys are unusable: ${(error as Error).message}.`), 500);
    }
    return c.json({ publicKey, enabled: options.enabled() } satisfies Api.PushKey);
  });

  app.post('/api/push/subscriptions', async (c) => {
    let raw: unknown;
    try {
      raw = await c.req.json();
    } catch {
      return c.json(problem('bad_request', 'The body must be a JSON object.'), 400);
    }
    const stored = await options.subscriptions.subscribe(raw);
    if (!stored.ok) return c.json(problem('bad_request', stored.error), 400);
    return c.json({ subscription: stored.subscription }, 201);
  });

  app.delete('/api/push/subscriptions', async (c) => {
    const parsed = await validBody(c, unsubscribe);
    if (!parsed.ok) return parsed.response;
    return c.json({ removed: options.subscriptions.unsubscribe(parsed.value.endpoint) });
  });
  return app;
}
