import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** A sealed value could not be opened: a different key, or the stored text was altered or cut. */
export class SealError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SealError';
  }
}

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

function checkKey(key: Uint8Array): void {
  if (key.length !== 32) throw new SealError(`a sealing key is 32 bytes, not ${key.length}`);
}

/**
 * Encrypts `plain` with AES-256-GCM under `key` (32 bytes) as `v1:<base64 of iv · tag · ciphertext>`.
 * `context` (e.g. the row it is stored in) is authenticated, not stored: a value moved to another row no
 * longer opens. A fresh random IV per call.
 */
export function seal(key: Uint8Array, plain: string, context = ''): string {
  checkKey(key);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
}

/**
 * The text `seal` sealed under the same key and context.
 * @throws SealError for another key, another context, or altered or truncated text (never the key or the text).
 */
export function unseal(key: Uint8Array, sealed: string, context = ''): string {
  checkKey(key);
  const [version, payload] = sealed.split(':', 2);
  if (version !== VERSION || !payload) throw new SealError('not a sealed value');
  const bytes = Buffer.from(payload, 'base64');
  if (bytes.length < IV_BYTES + TAG_BYTES) throw new SealError('the sealed value is truncated');
  const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES));
  decipher.setAAD(Buffer.from(context, 'utf8'));
  decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString(
      'utf8',
    );
  } catch {
    throw new SealError('the sealed value does not open with this key (another key, or it was altered)');
  }
}
