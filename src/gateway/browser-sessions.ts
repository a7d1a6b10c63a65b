import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { TokenStore } from './token-store.js';

/** The session cookie's name. HttpOnly and SameSite=Strict: page scripts never see it, other sites never send it. */
export const SESSION_COOKIE = 'wren_session';

const STORE_KEY = 'gateway.browser_sessions';
const SECRET_KEY = 'gateway.browser_secret';
const TOKEN_KEY = 'gateway.browser_token';
/** The header that carries a session's key on API calls (the WebSocket sends it as a subprotocol). */
export const SESSION_KEY_HEADER = 'x-wren-key';
/** The WebSocket subprotocol prefix that carries the key: browsers cannot set headers on an upgrade. */
export const SESSION_KEY_PROTOCOL = 'wren-key.';
/** Signed-in browsers kept at once; signing in one more forgets the oldest. */
export const MAX_BROWSER_SESSIONS = 20;
/** How long a browser stays signed in without coming back (each visit renews it). */
export const SESSION_TTL_MS = 30 * 24 * 3600_000;
/** How long a one-time sign-in link works. */
export const LINK_TTL_MS = 10 * 60_000;
const MAX_LINKS = 10;

interface StoredSession {
  /** SHA-256 of the cookie value (hex): the store never holds a usable cookie. */
  hash: string;
  expiresAt: number;
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * The browsers signed in to this gateway. A browser proves the gateway token once (or opens a one-time link a
 * local command made) and gets two things: a random 256-bit session id as an HttpOnly cookie, and the session's
 * key (an HMAC of the id under a secret only the gateway knows) that the app keeps in its origin's storage and
 * sends as `X-Wren-Key`. Both are required. Cookies are not scoped by port, so any other server on this host
 * the browser visits receives the cookie — but not the key, which only this origin's pages can read.
 * Only the id's hash is stored (in the settings table, so a restart keeps browsers signed in). Rotating or
 * changing the gateway token signs every browser out. One-time links live only in this process's memory:
 * they are for the person at this machine, right now.
 */
export class BrowserSessions {
  private readonly links = new Map<string, number>();
  private readonly now: () => number;

  constructor(
    private readonly store: TokenStore,
    options: { now?: () => number } = {},
  ) {
    this.now = options.now ?? Date.now;
  }

  /** A new session: the cookie value and the key to hand the browser (shown nowhere else). */
  create(): { id: string; key: string } {
    const id = randomBytes(32).toString('base64url');
    const kept = this.live().slice(-(MAX_BROWSER_SESSIONS - 1));
    kept.push({ hash: sha256(id), expiresAt: this.now() + SESSION_TTL_MS });
    this.save(kept);
    return { id, key: this.keyOf(id) };
  }

  /** The key that goes with session `id`. */
  keyOf(id: string): string {
    let secret = this.store.get(SECRET_KEY);
    if (!secret) {
      secret = randomBytes(32).toString('hex');
      this.store.set(SECRET_KEY, secret);
    }
    return createHmac('sha256', Buffer.from(secret, 'hex')).update(id).digest('base64url');
  }

  /**
   * Whether `id` is a live session and `key` its key; a valid one is renewed (sliding expiry, written at
   * most hourly).
   */
  verify(id: string | undefined, key: string | undefined): boolean {
    if (!id || id.length > 128 || !key || key.length > 128) return false;
    const expected = Buffer.from(this.keyOf(id));
    const given = Buffer.from(key);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return false;
    const hash = sha256(id);
    const sessions = this.live();
    const found = sessions.find((session) => sameHash(session.hash, hash));
    if (!found) return false;
    const renewed = this.now() + SESSION_TTL_MS;
    if (renewed - found.expiresAt > 3600_000) {
      found.expiresAt = renewed;
      this.save(sessions);
    }
    return true;
  }

  /** Signs one browser out. */
  end(id: string | undefined): void {
    if (!id) return;
    const hash = sha256(id);
    this.save(this.live().filter((session) => !sameHash(session.hash, hash)));
  }

  /** Signs every browser out (the gateway token was rotated). */
  endAll(): void {
    endBrowserSessions(this.store);
  }

  /**
   * Signs every browser out when the gateway's token is not the one they signed in with (a new
   * `gateway.token` or WREN_GATEWAY_TOKEN between runs). Only a salted hash of the token is kept.
   */
  bindToken(token: string): void {
    const print = sha256(`wren-browser-token:${token}`);
    const bound = this.store.get(TOKEN_KEY);
    if (bound === print) return;
    if (bound !== undefined) this.endAll();
    this.store.set(TOKEN_KEY, print);
  }

  /** A one-time sign-in code, valid for LINK_TTL_MS. */
  createLink(): { code: string; expiresAt: number } {
    const now = this.now();
    for (const [code, expiresAt] of this.links) if (expiresAt <= now) this.links.delete(code);
    while (this.links.size >= MAX_LINKS) this.links.delete(this.links.keys().next().value!);
    const code = randomBytes(24).toString('base64url');
    const expiresAt = now + LINK_TTL_MS;
    this.links.set(sha256(code), expiresAt);
    return { code, expiresAt };
  }

  /** Uses up a one-time code: true once, for a code made here and not yet expired. */
  redeemLink(code: string | undefined): boolean {
    if (!code || code.length > 128) return false;
    const key = sha256(code);
    const expiresAt = this.links.get(key);
    this.links.delete(key);
    return expiresAt !== undefined && expiresAt > this.now();
  }

  private live(): StoredSession[] {
    const raw = this.store.get(STORE_KEY);
    if (!raw) return [];
    try {
      const parsed = JSON.parse(raw) as unknown;
      if (!Array.isArray(parsed)) return [];
      const now = this.now();
      return parsed.filter(
        (entry): entry is StoredSession =>
          typeof entry?.hash === 'string' && typeof entry?.expiresAt === 'number' && entry.expiresAt > now,
      );
    } catch {
      return [];
    }
  }

  private save(sessions: StoredSession[]): void {
    this.store.set(STORE_KEY, JSON.stringify(sessions));
  }
}

/** Signs every browser out: called with the token's rotation, so an old token's sessions die with it. */
export function endBrowserSessions(store: TokenStore): void {
  store.set(STORE_KEY, '[]');
  // A new secret: keys handed out before are worthless even for a session id that somehow survived.
  store.set(SECRET_KEY, randomBytes(32).toString('hex'));
}

/** The session key a request presents: the `X-Wren-Key` header, or the WebSocket subprotocol `wren-key.<key>`. */
export function presentedKey(headers: { get(name: string): string | null | undefined }): string | undefined {
  const header = headers.get(SESSION_KEY_HEADER);
  if (header) return header;
  for (const protocol of (headers.get('sec-websocket-protocol') ?? '').split(',')) {
    const value = protocol.trim();
    if (value.startsWith(SESSION_KEY_PROTOCOL)) return value.slice(SESSION_KEY_PROTOCOL.length);
  }
  return undefined;
}
