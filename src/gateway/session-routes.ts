import { type Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { z } from 'zod';
import { type BrowserSessions, SESSION_COOKIE, SESSION_TTL_MS } from './browser-sessions.js';
import { EXPIRED_LINK_CSP, EXPIRED_LINK_PAGE } from './expired-link-page.js';
import { problem } from './problem.js';
import { type AuthLimiter, clientAddress, sameOrigin } from './request-guard.js';

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
 * Routes that must answer before the token check:
 * - `POST /api/session` `{token}` (JSON, ≤ 4 KB, from this origin only): signs a browser in; the answer sets the
 *   session cookie and carries the session's key (`{key}`), which the app keeps and sends as `X-Wren-Key`.
 *   The body is read before the limiter is asked, and the check and the count happen without a pause in
 *   between, so concurrent guesses cannot slip past the limit. A malformed body counts as a failure.
 * - `GET /signin?code=…`: a one-time link printed by `wren start` or made by `wren web open`; it sets the
 *   cookie and redirects to `/#key=<key>` (a fragment never reaches a server or a log). Its codes are 192-bit
 *   and single-use, so a wrong one is not counted against the address: a page elsewhere could otherwise use
 *   it to lock the owner out.
 */
export function signInRoutes(options: SessionRouteOptions): Hono {
  const app = new Hono();
  app.post(
    '/api/session',
    bodyLimit({
      maxSize: 4096,
      onError: (c) => c.json(problem('too_large', 'The request body is too large.'), 413),
    }),
    async (c) => {
      const address = clientAddress(c);
      if (!sameOrigin(c)) {
        return c.json(problem('forbidden_origin', 'Sign in from the web app of this gateway.'), 403);
      }
      const json = /^application\/json\b/i.test(c.req.header('content-type') ?? '');
      const raw = json ? await c.req.json().catch(() => undefined) : undefined;
      const parsed = signInBody.safeParse(raw);
      // From here on nothing awaits: the limit, the check and the count are one step.
      const wait = options.limiter.retryAfter(address);
      if (wait > 0) return tooMany(c, wait);
      if (!parsed.success) {
        options.limiter.fail(address);
        return c.json(
          problem(
            'bad_request',
            'Send JSON {"token": "<gateway token>"} with Content-Type: application/json.',
          ),
          400,
        );
      }
      if (!options.verifyToken(parsed.data.token)) {
        options.limiter.fail(address);
        return c.json(
          problem('unauthorized', 'That is not this gateway’s token. `wren token --rotate` makes a new one.'),
          401,
        );
      }
      options.limiter.succeed(address);
      const session = options.sessions.create();
      giveCookie(c, session.id);
      return c.json({ key: session.key });
    },
  );

  app.get('/signin', (c) => {
    c.header('Cache-Control', 'no-store');
    c.header('Referrer-Policy', 'no-referrer');
    if (!options.sessions.redeemLink(c.req.query('code'))) {
      c.header('Content-Security-Policy', EXPIRED_LINK_CSP);
      c.header('X-Content-Type-Options', 'nosniff');
      return c.html(EXPIRED_LINK_PAGE, 410);
    }
    const session = options.sessions.create();
    giveCookie(c, session.id);
    return c.redirect(`/#key=${session.key}`, 303);
  });
  return app;
}

/**
 * Routes behind the token check: `GET /api/session` (is this browser signed in), `DELETE /api/session` (sign
 * out) and `POST /api/session/link` (a one-time sign-in link, for `wren web open`).
 */
export function sessionRoutes(options: SessionRouteOptions): Hono {
  const app = new Hono();
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
  return app;
}
