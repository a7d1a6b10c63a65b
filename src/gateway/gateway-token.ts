import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { endBrowserSessions } from './browser-sessions.js';
import type { TokenStore } from './token-store.js';

export type { TokenStore };

const HASH_KEY = 'gateway.token_sha256';

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

export interface GatewayToken {
  /** Whether `presented` is the gateway token; constant time. */
  verify(presented: string): boolean;
  /** Set only when this call generated a new token: show it to the owner once, it is not stored in clear. */
  generated?: string;
  /** Where the token came from, for `wren status`. */
  source: 'config' | 'stored' | 'generated';
}

/**
 * Settles the gateway's bearer token. A token given in config or `WREN_GATEWAY_TOKEN` wins and is never
 * stored; otherwise the stored hash is used; otherwise a new random token is generated, its SHA-256 stored,
 * and the token itself returned once in `generated`.
 */
export function settleGatewayToken(store: TokenStore, configured: string | undefined): GatewayToken {
  if (configured) {
    const expected = sha256(configured);
    return { source: 'config', verify: (presented) => timingSafeEqual(sha256(presented), expected) };
  }
  if (store.get(HASH_KEY)) return { source: 'stored', verify: verifyStored(store) };
  return rotateGatewayToken(store);
}

/** Checks against the hash in the store at each call, so `wren token --rotate` applies to a running gateway. */
function verifyStored(store: TokenStore): (presented: string) => boolean {
  return (presented) => {
    const stored = store.get(HASH_KEY);
    if (!stored) return false;
    const expected = Buffer.from(stored, 'hex');
    return expected.length === 32 && timingSafeEqual(sha256(presented), expected);
  };
}

/**
 * Replaces the stored token with a new random one (`wren token --rotate`); the old one stops working at once,
 * and so does every browser signed in with it.
 */
export function rotateGatewayToken(store: TokenStore): GatewayToken & { generated: string } {
  const token = `wren_${randomBytes(24).toString('base64url')}`;
  store.set(HASH_KEY, sha256(token).toString('hex'));
  endBrowserSessions(store);
  return { source: 'generated', generated: token, verify: verifyStored(store) };
}

/** Loopback addresses may run without an explicitly configured token; anything else may not. */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}
