import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** The signature headers accepted, GitHub's first: each carries `sha256=<hex HMAC of the raw body>`. */
export const SIGNATURE_HEADERS = ['x-hub-signature-256', 'x-wren-signature'] as const;

/** `sha256=<hex>`: the signature header's value for `body` signed with `secret`. */
export function signBody(secret: string, body: Uint8Array | string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/**
 * Whether a delivery proves it knows the hook's secret: a signature header (`X-Hub-Signature-256` or
 * `X-Wren-Signature`, `sha256=<hex>` over the raw body) that matches, or `Authorization: Bearer <secret>`
 * (for senders that cannot sign: Home Assistant, Uptime Kuma, n8n). Every comparison is constant-time over
 * digests of equal length, so neither the secret nor its length leaks through timing. A present but wrong
 * signature fails even when a bearer token is also sent.
 */
export function verifyHookAuth(headers: Headers, body: Uint8Array, secret: string): boolean {
  const signature = SIGNATURE_HEADERS.map((name) => headers.get(name)).find((value) => value !== null);
  if (signature !== undefined && signature !== null)
    return sameText(signature.trim(), signBody(secret, body));
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(headers.get('authorization') ?? '')?.[1];
  return bearer !== undefined && sameText(bearer, secret);
}

/** Constant-time equality of two texts (compared as SHA-256 digests, so their lengths do not matter). */
function sameText(presented: string, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(presented), digest(expected));
}
