import { randomUUID } from 'node:crypto';
import { closeSync, fchmodSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * Replaces `path` with `data` so that readers see either the old or the new content, never a mix, even
 * across a crash: writes a temp file in the same folder, fsyncs it, renames it over `path` and fsyncs the
 * folder. The result has exactly `mode` (default 0600), whatever the umask or the old file's mode.
 * @throws the file-system error; the temp file is removed and `path` is left untouched.
 */
export function writeFileAtomic(path: string, data: string, mode = 0o600): void {
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomUUID().slice(0, 8)}.tmp`);
  try {
    const fd = openSync(temp, 'wx', mode);
    try {
      writeSync(fd, data);
      fchmodSync(fd, mode);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
  try {
    const dir = openSync(dirname(path), 'r');
    try {
      fsyncSync(dir);
    } finally {
      closeSync(dir);
    }
  } catch {
    // Some platforms cannot fsync a folder; the rename itself is still atomic.
  }
}
