import type { Context, Hono } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { z } from 'zod';
import { type BrowserSessions, SESSION_COOKIE, SESSION_TTL_MS } from './browser-sessions.js';
import { problem } from './problem.js';
import { type AuthLimiter, clientAddress } from './request-guard.js';

export interface SessionRouteOptions {
  sessions: BrowserSessions;
  verifyToken: (token: string) => boolean;
  /** The same limiter as bearer tokens: a wrong token counts the same whichever way it is tried. */
  limiter: AuthLimiter;
  /** Sockets of a browser that signs out are closed. */
  onSignOut?: (sessionId: string) => void;
}

const signInBody = z.object({ token: z.string().min(1).max(512) }).strict();

/** The browser's session id from its cookie, if any. */
export function sessionCookie(c: Context): string | undefined {
  return getCookie(c, SESSION_COOKIE);
}

function giveCookie(c: Context, id: string): void {
  setCookie(c, SESSION_COOKIE, id, {
    httpOnly: true,
    sameSite: 'Strict',
    path: '/',
    maxAge: Math.floor(SESSION_TTL_MS / 1000),
    secure: new URL(c.req.url).protocol === 'https:',
  });
}

function tooMany(c: Context, wait: number) {
  c.header('Retry-After', String(wait));
  return c.json(problem('too_many_attempts', `Too many failed sign-ins; try again in ${wait} s.`), 429);
}

/**
 * Routes that must answer before the token check: `POST /api/session` (sign in with the gateway token; the
 * answer sets the session cookie) and `GET /signin?code=…` (a one-time link printed by `wren start` or made by
 * `wren web open`; it sets the cookie and redirects to the app). Failures count against the address like a
 * wrong bearer token.
 */
export function registerSignInRoutes(app: Hono, options: SessionRouteOptions): void {
  app.post('/api/session', async (c) => {
    const address = clientAddress(c);
    const wait = options.limiter.retryAfter(address);
    if (wait > 0) return tooMany(c, wait);
    const parsed = signInBody.safeParse(await c.req.json().catch(() => undefined));
    if (!parsed.success)
      return c.json(problem('bad_request', 'The body must be {"token": "<gateway token>"}.'), 400);
    if (!options.verifyToken(parsed.data.token)) {
      options.limiter.fail(address);
      return c.json(
        problem('unauthorized', 'That is not this gateway’s token. `wren token --rotate` makes a new one.'),
        401,
      );
    }
    options.limiter.succeed(address);
    giveCookie(c, options.sessions.create());
    return c.body(null, 204);
  });

  app.get('/signin', (c) => {
    const address = clientAddress(c);
    const wait = options.limiter.retryAfter(address);
    if (wait > 0) return tooMany(c, wait);
    if (!options.sessions.redeemLink(c.req.query('code'))) {
      options.limiter.fail(address);
      c.header('Cache-Control', 'no-store');
      return c.html(
        '<!doctype html><meta charset="utf-8"><title>Wren</title><p>This sign-in link has expired or was already used. ' +
          'Run <code>wren web open</code> for a new one, or <a href="/">sign in with the gateway token</a>.</p>',
        410,
      );
    }
    options.limiter.succeed(address);
    giveCookie(c, options.sessions.create());
    c.header('Cache-Control', 'no-store');
    c.header('Referrer-Policy', 'no-referrer');
    return c.redirect('/', 303);
  });
}

/**
 * Routes behind the token check: `GET /api/session` (is this browser signed in), `DELETE /api/session` (sign
 * out) and `POST /api/session/link` (a one-time sign-in link, for `wren web open`).
 */
export function registerSessionRoutes(app: Hono, options: SessionRouteOptions): void {
  app.get('/api/session', (c) =>
    c.json({ signedIn: true, via: c.req.header('authorization') ? 'token' : 'cookie' }),
  );
  app.delete('/api/session', (c) => {
    const id = sessionCookie(c);
    if (id) {
      options.sessions.end(id);
      options.onSignOut?.(id);
    }
    deleteCookie(c, SESSION_COOKIE, { path: '/' });
    return c.body(null, 204);
  });
  app.post('/api/session/link', (c) => {
    const link = options.sessions.createLink();
    const origin = new URL(c.req.url).origin;
    return c.json({ url: `${origin}/signin?code=${link.code}`, expiresAt: link.expiresAt });
  });
}
