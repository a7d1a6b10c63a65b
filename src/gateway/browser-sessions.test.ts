import { describe, expect, it } from 'vitest';
import { BrowserSessions, LINK_TTL_MS, MAX_BROWSER_SESSIONS, SESSION_TTL_MS } from './browser-sessions.js';
import { rotateGatewayToken, type TokenStore } from './gateway-token.js';

function memoryStore(): TokenStore & { values: Map<string, string> } {
  const values = new Map<string, string>();
  return { values, get: (key) => values.get(key), set: (key, value) => void values.set(key, value) };
}

describe('BrowserSessions', () => {
  it('stores only hashes, verifies the cookie, and forgets it at sign-out', () => {
    const store = memoryStore();
    const sessions = new BrowserSessions(store);
    const id = sessions.create();
    expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect([...store.values.values()].join()).not.toContain(id);
    expect(sessions.verify(id)).toBe(true);
    expect(sessions.verify(`${id}x`)).toBe(false);
    expect(sessions.verify(undefined)).toBe(false);
    expect(sessions.verify('x'.repeat(10_000))).toBe(false);
    sessions.end(id);
    expect(sessions.verify(id)).toBe(false);
  });

  it('survives a restart (a new instance over the same store) and expires when unused', () => {
    let now = 1_000_000;
    const store = memoryStore();
    const id = new BrowserSessions(store, { now: () => now }).create();
    const later = new BrowserSessions(store, { now: () => now });
    now += SESSION_TTL_MS - 1000;
    expect(later.verify(id)).toBe(true);
    // Each visit renews it: another almost-full period later it still works.
    now += SESSION_TTL_MS - 1000;
    expect(later.verify(id)).toBe(true);
    now += SESSION_TTL_MS + 1;
    expect(later.verify(id)).toBe(false);
  });

  it(`keeps at most ${MAX_BROWSER_SESSIONS} browsers, forgetting the oldest`, () => {
    const sessions = new BrowserSessions(memoryStore());
    const ids = Array.from({ length: MAX_BROWSER_SESSIONS + 1 }, () => sessions.create());
    expect(sessions.verify(ids[0]!)).toBe(false);
    expect(sessions.verify(ids.at(-1)!)).toBe(true);
    expect(sessions.verify(ids[1]!)).toBe(true);
  });

  it('a one-time link works once and only within its time', () => {
    let now = 5_000;
    const sessions = new BrowserSessions(memoryStore(), { now: () => now });
    const { code } = sessions.createLink();
    expect(sessions.redeemLink(code)).toBe(true);
    expect(sessions.redeemLink(code)).toBe(false);
    const late = sessions.createLink();
    now += LINK_TTL_MS + 1;
    expect(sessions.redeemLink(late.code)).toBe(false);
    expect(sessions.redeemLink('made-up')).toBe(false);
    expect(sessions.redeemLink(undefined)).toBe(false);
  });

  it('rotating the gateway token signs every browser out', () => {
    const store = memoryStore();
    const sessions = new BrowserSessions(store);
    const id = sessions.create();
    rotateGatewayToken(store);
    expect(sessions.verify(id)).toBe(false);
  });

  it('treats a corrupt stored list as no sessions', () => {
    const store = memoryStore();
    store.set('gateway.browser_sessions', '{not json');
    const sessions = new BrowserSessions(store);
    expect(sessions.verify('anything')).toBe(false);
    const id = sessions.create();
    expect(sessions.verify(id)).toBe(true);
  });
});
