import { constants, lstatSync, mkdirSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { extname, join } from 'node:path';

/** The workspace folder received files are saved in. */
export const INBOX_DIR = 'inbox';

/**
 * A file name safe to create in the inbox from whatever a sender called it: no folders, no control or
 * shell-special characters, no leading dot (hidden files), at most 100 characters with the extension kept.
 */
export function safeFileName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  const cleaned = base
    .normalize('NFKC')
    .replace(/[\u0000-\u001f\u007f"'`$<>|:*?;&!#%{}[\]~^]/g, '')
    .replace(/\s+/g, '_')
    .replace(/^[.\-_]+/, '');
  const ext = extname(cleaned).slice(0, 12);
  const stem = cleaned.slice(0, cleaned.length - ext.length).slice(0, 100 - ext.length);
  return stem ? `${stem}${ext}` : `file${ext || ''}`;
}

/**
 * Saves received bytes as `inbox/<date>-<safe name>` in the workspace, never overwriting (a numbered name
 * when taken) and never following a symlink planted in the inbox. Returns the path relative to the
 * workspace.
 * @throws Error when the inbox is a symlink or the file cannot be written.
 */
export async function saveInboxFile(workspace: string, name: string, bytes: Uint8Array, now = new Date()) {
  const inbox = join(workspace, INBOX_DIR);
  mkdirSync(inbox, { recursive: true, mode: 0o700 });
  if (lstatSync(inbox).isSymbolicLink())
    throw new Error('the workspace inbox is a symlink; refusing to write');
  const safe = safeFileName(name);
  const ext = extname(safe);
  const stem = safe.slice(0, safe.length - ext.length);
  const day = now.toISOString().slice(0, 10);
  for (let index = 0; index < 1000; index++) {
    const file = `${day}-${stem}${index ? `-${index}` : ''}${ext}`;
    try {
      const handle = await open(
        join(inbox, file),
        constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
        0o600,
      );
      try {
        await handle.writeFile(bytes);
      } finally {
        await handle.close();
      }
      return `${INBOX_DIR}/${file}`;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  throw new Error(`too many files named ${safe} in the inbox today`);
}
