import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { TokenStore } from './gateway-token.js';

/** The session cookie's name. HttpOnly and SameSite=Strict: page scripts never see it, other sites never send it. */
export const SESSION_COOKIE = 'wren_session';

const STORE_KEY = 'gateway.browser_sessions';
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
 * local command made) and gets a random 256-bit session id as a cookie; only the id's hash is stored (in the
 * settings table, so a restart keeps browsers signed in). Rotating the gateway token signs every browser out.
 * One-time links live only in this process's memory: they are for the person at this machine, right now.
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

  /** A new session: the cookie value to hand the browser (shown nowhere else). */
  create(): string {
    const id = randomBytes(32).toString('base64url');
    const kept = this.live().slice(-(MAX_BROWSER_SESSIONS - 1));
    kept.push({ hash: sha256(id), expiresAt: this.now() + SESSION_TTL_MS });
    this.save(kept);
    return id;
  }

  /** Whether `id` is a live session; a valid one is renewed (sliding expiry, written at most hourly). */
  verify(id: string | undefined): boolean {
    if (!id || id.length > 128) return false;
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
    this.save([]);
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
}
