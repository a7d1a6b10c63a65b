import { randomUUID } from 'node:crypto';
import { open, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Replaces (or creates) `path` with `data` so readers see the old or the new content, never a mix, even
 * across a crash: a temp file in the same folder is written, fsynced and renamed over `path`, then the
 * folder is fsynced. An existing file keeps its permission bits; a new one gets `mode` (default 0644 minus
 * the umask). @throws the file-system error; the temp file is removed and `path` is left untouched.
 */
export async function writeFileAtomicAsync(path: string, data: string | Buffer, mode = 0o644): Promise<void> {
  const existing = await stat(path).catch(() => undefined);
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomUUID().slice(0, 8)}.tmp`);
  try {
    const handle = await open(temp, 'wx', existing ? existing.mode & 0o7777 : mode);
    try {
      await handle.writeFile(data);
      if (existing) await handle.chmod(existing.mode & 0o7777);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  try {
    const folder = await open(dirname(path), 'r');
    try {
      await folder.sync();
    } finally {
      await folder.close();
    }
  } catch {
    // Some platforms cannot fsync a folder; the rename itself is still atomic.
  }
}
