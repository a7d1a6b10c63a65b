import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SealError, seal, unseal } from './seal.js';

const key = randomBytes(32);

describe('seal', () => {
  it('round-trips text, with a fresh IV each time and nothing of the plain text in the sealed form', () => {
    const plain = '{"noiseKey":"private-bytes-Zm9vYmFy","me":"4915112345678"} ✓';
    const first = seal(key, plain, 'whatsapp:auth:creds');
    const second = seal(key, plain, 'whatsapp:auth:creds');
    expect(first).not.toBe(second);
    expect(first).toMatch(/^v1:[A-Za-z0-9+/=]+$/);
    expect(first).not.toContain('4915112345678');
    expect(Buffer.from(first.slice(3), 'base64').toString('latin1')).not.toContain('noiseKey');
    expect(unseal(key, first, 'whatsapp:auth:creds')).toBe(plain);
  });

  it('refuses another key, another context, a flipped bit and a cut value', () => {
    const sealed = seal(key, 'secret', 'row-a');
    expect(() => unseal(randomBytes(32), sealed, 'row-a')).toThrow(SealError);
    expect(() => unseal(key, sealed, 'row-b')).toThrow(/does not open with this key/);
    const bytes = Buffer.from(sealed.slice(3), 'base64');
    bytes[bytes.length - 1]! ^= 1;
    expect(() => unseal(key, `v1:${bytes.toString('base64')}`, 'row-a')).toThrow(SealError);
    expect(() => unseal(key, sealed.slice(0, 12), 'row-a')).toThrow(/truncated/);
    expect(() => unseal(key, 'plain text', 'row-a')).toThrow(/not a sealed value/);
    expect(() => seal(randomBytes(16), 'x')).toThrow(/32 bytes, not 16/);
  });
});
