import { randomBytes } from 'node:crypto';
import { type Context, Hono } from 'hono';
import { DEFAULT_HOOK_BODY_KB, findHook, type HooksConfig } from '../config/hooks-config.js';
import { HookRateLimiter } from '../hooks/hook-rate-limiter.js';
import { type HookEvent, hookTriggerEvent } from '../hooks/hook-trigger-event.js';
import { readCappedBody } from '../hooks/read-capped-body.js';
import { verifyHookAuth } from '../hooks/verify-hook-auth.js';
import { problem } from './problem.js';

export interface HookRouteOptions {
  /** The hooks in force (read per request, so live edits of config.yaml apply). */
  hooks: () => HooksConfig;
  /** Stores an accepted delivery to run once (false when its key was seen before: a replay). */
  record: (event: HookEvent) => boolean;
  /** Where a hook without `deliver_to` delivers (`proactive.deliver_to`). */
  defaultTargets: () => readonly string[];
  /** Unexpected failures of recording (the sender gets a 500 and may retry). */
  onError?: (error: Error) => void;
  limiter?: HookRateLimiter;
}

const DEFAULT_MAX_BYTES = DEFAULT_HOOK_BODY_KB * 1024;
/** Unknown hooks are "checked" against this throwaway key, so they cost what a known one does. */
const DECOY_SECRET = randomBytes(32).toString('hex');

/**
 * `POST /hooks/<name>`: inbound webhooks, outside the gateway token (each hook authenticates with its own
 * secret: a `sha256=` HMAC signature of the raw body, or a bearer token). In order: the body is read up to
 * the hook's cap (413 past it; the connection is then closed, so the rest is never read); the auth is checked
 * (401, the same for an unknown hook, a missing and a wrong signature — nothing tells them apart); the hook's
 * rate limit is taken (429 with Retry-After); the delivery is recorded under its delivery id and answered 202
 * — a replay too, but it runs nothing.
 */
export function hookRoutes(options: HookRouteOptions): Hono {
  const app = new Hono();
  const limiter = options.limiter ?? new HookRateLimiter();
  app.post('/hooks/:name', async (c) => {
    const hook = findHook(options.hooks(), c.req.param('name'));
    const maxBytes = hook?.maxBodyBytes ?? DEFAULT_MAX_BYTES;
    const declared = Number(c.req.header('content-length') ?? 0);
    if (declared > maxBytes) return tooLarge(c, maxBytes);
    const body = await readCappedBody(c.req.raw.body, maxBytes);
    if (!body.ok) return tooLarge(c, maxBytes);
    const headers = c.req.raw.headers;
    const authentic = verifyHookAuth(headers, body.bytes, hook?.secret ?? DECOY_SECRET);
    if (!hook || !authentic) return unauthorized(c);
    const rate = limiter.take(hook.name, hook.ratePerMinute);
    if (!rate.ok) {
      c.header('retry-after', String(rate.retryAfterSeconds));
      return c.json(problem('rate_limited', 'Too many deliveries to this hook; retry later.'), 429);
    }
    const event = hookTriggerEvent(hook, { headers, body: body.bytes }, options.defaultTargets());
    let fresh: boolean;
    try {
      fresh = options.record(event);
    } catch (error) {
      options.onError?.(error instanceof Error ? error : new Error(String(error)));
      return c.json(problem('internal', 'The delivery could not be stored; retry later.'), 500);
    }
    return c.json({ accepted: true, duplicate: !fresh }, 202);
  });
  // Any other method or path under /hooks answers like a bad signature: nothing tells what exists.
  app.all('/hooks/*', (c) => unauthorized(c));
  app.all('/hooks', (c) => unauthorized(c));
  return app;
}

function unauthorized(c: Context) {
  return c.json(problem('unauthorized', 'Missing or invalid hook signature.'), 401);
}

/** 413, closing the connection: the rest of the body is never read (Node drops the socket after this answer). */
function tooLarge(c: Context, maxBytes: number) {
  c.header('connection', 'close');
  return c.json(problem('too_large', `The body is over ${Math.round(maxBytes / 1024)} kB.`), 413);
}
