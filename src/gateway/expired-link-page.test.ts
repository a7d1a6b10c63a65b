import { createHash } from 'node:crypto';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { BrowserSessions } from './browser-sessions.js';
import { EXPIRED_LINK_CSP, EXPIRED_LINK_PAGE } from './expired-link-page.js';
import { AuthLimiter } from './request-guard.js';
import { signInRoutes } from './session-routes.js';

function gateway() {
  const values = new Map<string, string>();
  const sessions = new BrowserSessions({
    get: (key) => values.get(key),
    set: (key, value) => void values.set(key, value),
  });
  const app = new Hono();
  app.route('/', signInRoutes({ sessions, verifyToken: () => false, limiter: new AuthLimiter() }));
  return { app, sessions };
}

describe('the page of a used or expired sign-in link', () => {
  it('is the styled page (410), whose only style the CSP allows by hash, with no script and no echo', async () => {
    const { app, sessions } = gateway();
    const { code } = sessions.createLink();
    expect((await app.request(`/signin?code=${code}`)).status).toBe(303);
    const hostile = encodeURIComponent('<script>alert(1)</script>"><img src=x onerror=alert(2)>');
    for (const path of [`/signin?code=${code}`, `/signin?code=${hostile}`, '/signin']) {
      const answer = await app.request(path);
      expect(answer.status, path).toBe(410);
      expect(answer.headers.get('set-cookie')).toBeNull();
      expect(answer.headers.get('content-security-policy')).toBe(EXPIRED_LINK_CSP);
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
      expect(answer.headers.get('cache-control')).toBe('no-store');
      const html = await answer.text();
      expect(html).toBe(EXPIRED_LINK_PAGE);
      expect(html).not.toMatch(/<script|alert|onerror/i);
    }
    const styles = [...EXPIRED_LINK_PAGE.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((match) => match[1]!);
    expect(styles).toHaveLength(1);
    const hash = createHash('sha256').update(styles[0]!).digest('base64');
    expect(EXPIRED_LINK_CSP).toContain(`style-src 'sha256-${hash}'`);
    expect(EXPIRED_LINK_CSP).toContain("default-src 'none'");
    expect(EXPIRED_LINK_PAGE).not.toMatch(/style="/);
  });

  it('says what happened and what to do: the 10-minute single use, `wren web open`, or the token', () => {
    const text = EXPIRED_LINK_PAGE.replace(/<style>[\s\S]*<\/style>/, '').replace(/<[^>]+>/g, ' ');
    expect(text).toMatch(/expired or was already used/);
    expect(text).toMatch(/works once, within 10 minutes/);
    expect(text).toContain('wren web open');
    expect(EXPIRED_LINK_PAGE).toContain('<a class="btn" href="/">Sign in with the gateway token</a>');
  });
});
