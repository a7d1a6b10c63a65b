import { join } from 'node:path';
import { readSecretKey } from '../../config/secret-key.js';
import { readChannelCursorAt } from '../../store/channel-repository.js';
import { unseal } from '../../util/seal.js';
import { personOf } from './whatsapp-jid.js';

/** What `wren doctor` can tell of the stored WhatsApp session without connecting. */
export type WhatsAppSession =
  | { linked: true; number?: string }
  | { linked: false; why: 'not-linked' | 'other-key' };

/**
 * Reads the session's credentials row from `<home>/wren.db` (read-only) and opens it with the home's key:
 * linked (and as which number), not linked (no row, or a link never finished), or sealed under another key.
 * Never makes a key or changes the database.
 */
export function probeWhatsAppSession(home: string, env: NodeJS.ProcessEnv = process.env): WhatsAppSession {
  const sealed = readChannelCursorAt(join(home, 'wren.db'), 'whatsapp', 'auth:creds');
  if (!sealed) return { linked: false, why: 'not-linked' };
  try {
    const key = readSecretKey(home, env);
    if (!key) return { linked: false, why: 'other-key' };
    const creds = JSON.parse(unseal(key, sealed, 'whatsapp:auth:creds')) as {
      me?: { id?: unknown };
      account?: unknown;
    };
    if (!creds.account || typeof creds.me?.id !== 'string') return { linked: false, why: 'not-linked' };
    const number = personOf(creds.me.id);
    return { linked: true, ...(number ? { number } : {}) };
  } catch {
    return { linked: false, why: 'other-key' };
  }
}
