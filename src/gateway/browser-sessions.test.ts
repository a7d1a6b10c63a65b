import { describe, expect, it } from 'vitest';
import { BrowserSessions, LINK_TTL_MS, MAX_BROWSER_SESSIONS, SESSION_TTL_MS } from './browser-sessions.js';
import { rotateGatewayToken, type TokenStore } from './gateway-token.js';

function memoryStore(): TokenStore & { values: Map<string, string> } {
  const values = new Map<string, string>();
  return { values, get: (key) => values.get(key), set: (key, value) => void values.set(key, value) };
}

describe('BrowserSessions', () => {
  it('stores only hashes, needs the cookie and its key, and forgets them at sign-out', () => {
    const store = memoryStore();
    const sessions = new BrowserSessions(store);
    const { id, key } = sessions.create();
    expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const stored = [...store.values.values()].join();
    expect(stored).not.toContain(id);
    expect(stored).not.toContain(key);
    expect(sessions.verify(id, key)).toBe(true);
    // The cookie alone (what another server on this host receives) is not enough, nor another session's key.
    expect(sessions.verify(id, undefined)).toBe(false);
    expect(sessions.verify(id, sessions.create().key)).toBe(false);
    expect(sessions.verify(`${id}x`, key)).toBe(false);
    expect(sessions.verify(undefined, key)).toBe(false);
    expect(sessions.verify('x'.repeat(10_000), key)).toBe(false);
    sessions.end(id);
    expect(sessions.verify(id, key)).toBe(false);
  });

  it('survives a restart (a new instance over the same store) and expires when unused', () => {
    let now = 1_000_000;
    const store = memoryStore();
    const { id, key } = new BrowserSessions(store, { now: () => now }).create();
    const later = new BrowserSessions(store, { now: () => now });
    now += SESSION_TTL_MS - 1000;
    expect(later.verify(id, key)).toBe(true);
    // Each visit renews it: another almost-full period later it still works.
    now += SESSION_TTL_MS - 1000;
    expect(later.verify(id, key)).toBe(true);
    now += SESSION_TTL_MS + 1;
    expect(later.verify(id, key)).toBe(false);
  });

  it(`keeps at most ${MAX_BROWSER_SESSIONS} browsers, forgetting the oldest`, () => {
    const sessions = new BrowserSessions(memoryStore());
    const made = Array.from({ length: MAX_BROWSER_SESSIONS + 1 }, () => sessions.create());
    expect(sessions.verify(made[0]!.id, made[0]!.key)).toBe(false);
    expect(sessions.verify(made.at(-1)!.id, made.at(-1)!.key)).toBe(true);
    expect(sessions.verify(made[1]!.id, made[1]!.key)).toBe(true);
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
    const { id, key } = sessions.create();
    rotateGatewayToken(store);
    expect(sessions.verify(id, key)).toBe(false);
  });

  it('a different configured token at the next start signs every browser out; the same one does not', () => {
    const store = memoryStore();
    const first = new BrowserSessions(store);
    first.bindToken('token-one-0123456789');
    const { id, key } = first.create();
    const sameToken = new BrowserSessions(store);
    sameToken.bindToken('token-one-0123456789');
    expect(sameToken.verify(id, key)).toBe(true);
    expect([...store.values.values()].join()).not.toContain('token-one-0123456789');
    const otherToken = new BrowserSessions(store);
    otherToken.bindToken('token-two-0123456789');
    expect(otherToken.verify(id, key)).toBe(false);
  });

  it('treats a corrupt stored list as no sessions', () => {
    const store = memoryStore();
    store.set('gateway.browser_sessions', '{not json');
    const sessions = new BrowserSessions(store);
    expect(sessions.verify('anything', 'key')).toBe(false);
    const { id, key } = sessions.create();
    expect(sessions.verify(id, key)).toBe(true);
  });
});
