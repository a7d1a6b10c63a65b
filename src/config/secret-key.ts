import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { readDotEnv } from '../util/interpolate.js';
import { setEnvVar, unsetEnvVar } from './config-writer.js';
import { type OsKeyring, osKeyring } from './os-keyring.js';

/** The variable in `<home>/.env` (or the environment) that holds the key Wren seals stored secrets with. */
export const SECRET_KEY_VAR = 'WREN_SECRET_KEY';

/** The key as 32 bytes, when `text` is one (64 hex digits, or 43-44 characters of base64/base64url). */
function decodeKey(text: string | undefined): Buffer | undefined {
  const value = text?.trim();
  if (!value) return undefined;
  const bytes = /^[0-9a-f]{64}$/i.test(value)
    ? Buffer.from(value, 'hex')
    : Buffer.from(value.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  return bytes.length === 32 ? bytes : undefined;
}

/** Where a home's sealing key is kept: the process environment, `<home>/.env`, or the OS keyring. */
export type SecretKeyPlace = 'environment' | '.env' | 'keyring';

/** The keyring entry of a home is named by its absolute path (one machine may hold several homes). */
const account = (home: string) => resolve(home);

/** Where the key is set and its text (environment first, then `.env`, then the OS keyring), if anywhere. */
function findKey(
  home: string,
  env: NodeJS.ProcessEnv,
  keyring: () => OsKeyring | undefined,
): { place: SecretKeyPlace; text: string } | undefined {
  const fromEnv = env[SECRET_KEY_VAR];
  if (fromEnv !== undefined) return { place: 'environment', text: fromEnv };
  const fromFile = readDotEnv(home)[SECRET_KEY_VAR];
  if (fromFile !== undefined) return { place: '.env', text: fromFile };
  const fromKeyring = keyring()?.get(account(home));
  return fromKeyring !== undefined ? { place: 'keyring', text: fromKeyring } : undefined;
}

/** Where the home's key lives now, and the keyring tool when the machine has one. */
export function secretKeyPlace(
  home: string,
  env: NodeJS.ProcessEnv = process.env,
): { place?: SecretKeyPlace; keyring?: string } {
  const keyring = osKeyring(env);
  const found = findKey(home, env, () => keyring);
  return { ...(found ? { place: found.place } : {}), ...(keyring ? { keyring: keyring.tool } : {}) };
}

/**
 * Moves the home's key between `.env` and the OS keyring (`wren vault key --to keyring|env`): written to
 * the new place and read back before it leaves the old one, so a failure loses nothing. A home with no key
 * yet gets a new one in the new place.
 * @throws Error when the machine has no keyring, the key is set in the process environment (Wren cannot
 * move that), or the keyring refused.
 */
export function moveSecretKey(
  home: string,
  to: 'keyring' | 'env',
  env: NodeJS.ProcessEnv = process.env,
): void {
  const keyring = osKeyring(env);
  if (!keyring)
    throw new Error('this machine has no OS keyring Wren can use (secret-tool on Linux, security on macOS)');
  const found = findKey(home, env, () => keyring);
  if (found?.place === 'environment')
    throw new Error(
      `${SECRET_KEY_VAR} is set in the environment; Wren leaves it there (unset it to move the key)`,
    );
  const target: SecretKeyPlace = to === 'keyring' ? 'keyring' : '.env';
  if (found?.place === target) return;
  if (found && !decodeKey(found.text))
    throw new Error(`${SECRET_KEY_VAR} is not a valid key; nothing was moved`);
  const text = found?.text.trim() ?? randomBytes(32).toString('base64url');
  if (target === 'keyring') {
    keyring.set(account(home), text);
    if (keyring.get(account(home)) !== text)
      throw new Error(`${keyring.tool} did not give the key back; it stays in .env`);
    unsetEnvVar(home, SECRET_KEY_VAR);
  } else {
    setEnvVar(home, SECRET_KEY_VAR, text);
    keyring.delete(account(home));
  }
}

/**
 * The sealing key set for the home (environment first, then `.env`, then the OS keyring), or undefined when
 * none is; never makes one.
 * @throws Error when one is set but is not 32 bytes.
 */
export function readSecretKey(home: string, env: NodeJS.ProcessEnv = process.env): Buffer | undefined {
  const set = findKey(home, env, () => osKeyring(env))?.text;
  if (set === undefined) return undefined;
  const key = decodeKey(set);
  if (!key)
    throw new Error(
      `${SECRET_KEY_VAR} must be 32 bytes as 64 hex digits or base64 (it seals stored secrets; make one with \`openssl rand -base64 32\`)`,
    );
  return key;
}

/**
 * The home's sealing key (AES-256, for secrets Wren keeps in its database such as a WhatsApp session):
 * `WREN_SECRET_KEY` from the environment, else from `<home>/.env`, else from the OS keyring (where `wren vault
 * key --to keyring` put it); when none has one, a random key is made and written to `.env` (mode 0600), so the database alone (a copied backup) does not open the secrets.
 * @throws Error when a key is set but is not 32 bytes (it is never replaced: that would lock out what it sealed).
 */
export function homeSecretKey(home: string, env: NodeJS.ProcessEnv = process.env): Buffer {
  const set = readSecretKey(home, env);
  if (set) return set;
  const key = randomBytes(32);
  setEnvVar(home, SECRET_KEY_VAR, key.toString('base64url'));
  return key;
}
