import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signBody, verifyHookAuth } from './verify-hook-auth.js';

const SECRET = 'a-hook-secret-of-24-chars';
const body = new TextEncoder().encode('{"action":"opened"}');
const github = `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;

describe('verifyHookAuth', () => {
  it('accepts a GitHub-style or Wren signature of the raw body, and a bearer secret', () => {
    expect(signBody(SECRET, body)).toBe(github);
    expect(verifyHookAuth(new Headers({ 'x-hub-signature-256': github }), body, SECRET)).toBe(true);
    expect(verifyHookAuth(new Headers({ 'x-wren-signature': github }), body, SECRET)).toBe(true);
    expect(verifyHookAuth(new Headers({ authorization: `Bearer ${SECRET}` }), body, SECRET)).toBe(true);
  });

  it('refuses a missing, wrong, truncated or other-body signature and a wrong bearer', () => {
    const other = new TextEncoder().encode('{"action":"closed"}');
    expect(verifyHookAuth(new Headers(), body, SECRET)).toBe(false);
    expect(verifyHookAuth(new Headers({ 'x-hub-signature-256': github }), other, SECRET)).toBe(false);
    expect(verifyHookAuth(new Headers({ 'x-hub-signature-256': github.slice(0, 20) }), body, SECRET)).toBe(
      false,
    );
    expect(verifyHookAuth(new Headers({ 'x-hub-signature-256': 'sha256=' }), body, SECRET)).toBe(false);
    expect(verifyHookAuth(new Headers({ authorization: `Bearer ${SECRET}x` }), body, SECRET)).toBe(false);
    expect(verifyHookAuth(new Headers({ authorization: SECRET }), body, SECRET)).toBe(false);
  });

  it('refuses a wrong signature even when the bearer secret is right', () => {
    const headers = new Headers({ 'x-hub-signature-256': 'sha256=00', authorization: `Bearer ${SECRET}` });
    expect(verifyHookAuth(headers, body, SECRET)).toBe(false);
  });
});
