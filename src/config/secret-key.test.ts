import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { homeSecretKey } from './secret-key.js';

const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});
function home(): string {
  const dir = mkdtempSync(join(tmpdir(), 'wren-key-'));
  homes.push(dir);
  return dir;
}

describe('homeSecretKey', () => {
  it('makes a key once, keeps it in .env (0600) beside other lines, and returns the same key after', () => {
    const dir = home();
    writeFileSync(join(dir, '.env'), 'TELEGRAM_BOT_TOKEN=123:abc\n');
    const first = homeSecretKey(dir, {});
    expect(first).toHaveLength(32);
    const env = readFileSync(join(dir, '.env'), 'utf8');
    expect(env).toMatch(/^TELEGRAM_BOT_TOKEN=123:abc\nWREN_SECRET_KEY=[\w-]{43}\n$/);
    expect(statSync(join(dir, '.env')).mode & 0o777).toBe(0o600);
    expect(homeSecretKey(dir, {}).equals(first)).toBe(true);
  });

  it('takes the environment first, hex or base64, and refuses a key of the wrong length', () => {
    const dir = home();
    const hex = 'ab'.repeat(32);
    expect(homeSecretKey(dir, { WREN_SECRET_KEY: hex }).toString('hex')).toBe(hex);
    const base64 = Buffer.alloc(32, 7).toString('base64');
    expect([...homeSecretKey(dir, { WREN_SECRET_KEY: base64 })]).toEqual(Array(32).fill(7));
    expect(() => homeSecretKey(dir, { WREN_SECRET_KEY: 'short' })).toThrow(/must be 32 bytes/);
    // A wrong key is never replaced by a fresh one (that would lock out what it sealed).
    expect(() => homeSecretKey(dir, { WREN_SECRET_KEY: 'short' })).not.toThrow(/short/);
  });
});
