import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runVaultKey } from '../cli/commands/vault.js';
import { homeSecretKey, moveSecretKey, readSecretKey, secretKeyPlace } from './secret-key.js';

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

/**
 * A stand-in for libsecret's `secret-tool` on PATH (the keyring's process boundary): entries in files of
 * `store/`, every argv line in `argv.log`; `store/locked` makes `store` fail as a locked keyring does.
 */
function fakeKeyring() {
  const dir = home();
  const bin = join(dir, 'bin');
  const store = join(dir, 'store');
  mkdirSync(bin);
  mkdirSync(store);
  writeFileSync(
    join(bin, 'secret-tool'),
    `#!/bin/sh
echo "$*" >> "${dir}/argv.log"
cmd=$1; shift
key=""
for a in "$@"; do case "$a" in --label=*) ;; *) key="$key/$a";; esac; done
f="${store}/$(printf %s "$key" | sha256sum | cut -c1-16)"
case $cmd in
  store) [ -f "${store}/locked" ] && exit 1; cat > "$f";;
  lookup) [ -f "$f" ] || exit 1; cat "$f";;
  clear) rm -f "$f";;
esac
`,
  );
  chmodSync(join(bin, 'secret-tool'), 0o755);
  const env = { PATH: `${bin}:/usr/bin:/bin` };
  return {
    env,
    store,
    argv: () => readFileSync(join(dir, 'argv.log'), 'utf8'),
    lock: () => writeFileSync(join(store, 'locked'), ''),
  };
}

const buffers = () => {
  const out = { stdout: '', stderr: '' };
  return {
    out,
    io: {
      stdout: {
        write: (text: string) => {
          out.stdout += text;
          return true;
        },
      },
      stderr: {
        write: (text: string) => {
          out.stderr += text;
          return true;
        },
      },
    },
  };
};

describe('the key in the OS keyring', () => {
  it('moves the key from .env to the keyring and back, reading it from there, never passing it in argv', async () => {
    const keyring = fakeKeyring();
    const dir = home();
    const key = homeSecretKey(dir, keyring.env);
    expect(secretKeyPlace(dir, keyring.env)).toEqual({ place: '.env', keyring: 'secret-tool' });

    const { out, io } = buffers();
    expect(await runVaultKey({ home: dir, to: 'keyring', env: keyring.env, io })).toBe(0);
    expect(out.stdout).toContain('The key that seals the vault is in the OS keyring.');
    expect(readFileSync(join(dir, '.env'), 'utf8')).not.toContain('WREN_SECRET_KEY');
    expect(readSecretKey(dir, keyring.env)?.equals(key)).toBe(true);
    expect(homeSecretKey(dir, keyring.env).equals(key)).toBe(true);
    expect(keyring.argv()).not.toContain(key.toString('base64url'));
    // Without the keyring (another machine, a copied backup) the home has no key.
    expect(readSecretKey(dir, {})).toBeUndefined();

    moveSecretKey(dir, 'env', keyring.env);
    expect(readFileSync(join(dir, '.env'), 'utf8')).toContain(`WREN_SECRET_KEY=${key.toString('base64url')}`);
    expect(readdirSync(keyring.store)).toEqual([]);
    expect(readSecretKey(dir, {})?.equals(key)).toBe(true);
  });

  it('loses nothing when the keyring refuses, and leaves a key set in the environment alone', async () => {
    const keyring = fakeKeyring();
    const dir = home();
    const key = homeSecretKey(dir, keyring.env);
    keyring.lock();
    const { out, io } = buffers();
    expect(await runVaultKey({ home: dir, to: 'keyring', env: keyring.env, io })).toBe(1);
    expect(out.stderr).toBe(
      'wren: secret-tool could not store the key (is a keyring unlocked in this session?)\n',
    );
    expect(readSecretKey(dir, keyring.env)?.equals(key)).toBe(true);
    expect(readFileSync(join(dir, '.env'), 'utf8')).toContain('WREN_SECRET_KEY=');

    const fromEnv = { ...keyring.env, WREN_SECRET_KEY: 'ab'.repeat(32) };
    expect(() => moveSecretKey(dir, 'keyring', fromEnv)).toThrow(/set in the environment/);
    expect(await runVaultKey({ home: dir, to: 'disk', env: keyring.env, io })).toBe(2);
    expect(() => moveSecretKey(dir, 'keyring', { PATH: '/nonexistent' })).toThrow(/no OS keyring/);
    expect(secretKeyPlace(dir, { PATH: '/nonexistent', WREN_KEYRING: 'off' })).toEqual({ place: '.env' });
  });
});
