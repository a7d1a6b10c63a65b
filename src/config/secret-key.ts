import { randomBytes } from 'node:crypto';
import { readDotEnv } from '../util/interpolate.js';
import { setEnvVar } from './config-writer.js';

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

/**
 * The sealing key set for the home (environment first, then `.env`), or undefined when none is; never makes one.
 * @throws Error when one is set but is not 32 bytes.
 */
export function readSecretKey(home: string, env: NodeJS.ProcessEnv = process.env): Buffer | undefined {
  const set = env[SECRET_KEY_VAR] ?? readDotEnv(home)[SECRET_KEY_VAR];
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
 * `WREN_SECRET_KEY` from the environment, else from `<home>/.env`; when neither has one, a random key is made
 * and written to `.env` (mode 0600), so the database alone (a copied backup) does not open the secrets.
 * @throws Error when a key is set but is not 32 bytes (it is never replaced: that would lock out what it sealed).
 */
export function homeSecretKey(home: string, env: NodeJS.ProcessEnv = process.env): Buffer {
  const set = readSecretKey(home, env);
  if (set) return set;
  const key = randomBytes(32);
  setEnvVar(home, SECRET_KEY_VAR, key.toString('base64url'));
  return key;
}
