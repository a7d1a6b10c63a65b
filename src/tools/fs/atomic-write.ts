import { randomUUID } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import { type FileHandle, lstat, open, realpath, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { O_NOFOLLOW, type OpenedFolder, openFolder } from './open-folder.js';
import { errorCode, PathError } from './path-error.js';

const TEMP_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | O_NOFOLLOW;

export interface AtomicWriteOptions {
  /** The real root (workspace or extra root) that contains `path`, as resolveInRoots returns it. */
  root: string;
  /** The real path of the file, as resolveInRoots returns it. */
  path: string;
  data: string | Buffer;
  /** How a path is named in messages. */
  show: (path: string) => string;
  /** Permission bits of a new file before the umask (default 0644). */
  mode?: number;
  /** The descriptor walk (true) or the path fallback (false); detected when left out. Tests force it. */
  viaDescriptor?: boolean;
}

function refuseExisting(existing: Stats | undefined, options: AtomicWriteOptions): void {
  const { path, show } = options;
  if (!existing) return;
  if (existing.isSymbolicLink())
    throw new PathError(
      'link',
      path,
      `"${show(path)}" became a symbolic link after the path was checked; file tools do not write through it. Nothing was changed.`,
    );
  if (existing.isDirectory())
    throw new PathError('folder', path, `"${show(path)}" is a folder; give a file path inside it.`);
  if (!existing.isFile()) throw new PathError('not-file', path, `"${show(path)}" is not a regular file.`);
}

/**
 * Fallback only: the temp file just created by path is the one in the real folder (same inode under the
 * resolved folder, whose path has no symlink). Leaves a window between this check and the rename, in which
 * a swapped folder makes the rename fail (the temp name is random) rather than land elsewhere.
 */
async function verifyTemp(folder: OpenedFolder, temp: string, handle: FileHandle): Promise<void> {
  const [opened, named, real] = await Promise.all([
    handle.stat(),
    lstat(join(folder.path, temp)),
    realpath(folder.path),
  ]);
  if (real !== folder.path || opened.dev !== named.dev || opened.ino !== named.ino)
    throw new PathError(
      'moved',
      folder.path,
      'A folder of the path changed while writing; nothing was changed.',
    );
}

/** `mode` is exact when `replacing` (the old file's bits), else the umask narrows it. */
async function writeThroughTemp(
  folder: OpenedFolder,
  name: string,
  data: string | Buffer,
  mode: { bits: number; replacing: boolean },
) {
  // A bounded prefix keeps the temp name within NAME_MAX for long file names.
  const temp = `.${name.slice(0, 60)}.${process.pid}.${randomUUID().slice(0, 8)}.tmp`;
  try {
    const handle = await open(folder.entry(temp), TEMP_FLAGS, mode.bits);
    try {
      if (!folder.viaDescriptor) await verifyTemp(folder, temp, handle);
      await handle.writeFile(data);
      if (mode.replacing) await handle.chmod(mode.bits);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(folder.entry(temp), folder.entry(name));
  } catch (error) {
    await unlink(folder.entry(temp)).catch(() => {});
    // The open folder (or the temp file) was removed from under the write.
    if (errorCode(error) === 'ENOENT')
      throw new PathError('moved', folder.path, 'The folder was removed while writing; nothing was changed.');
    throw error;
  }
}

/**
 * Replaces (or creates) the file `path` under `root` with `data` so readers see the old or the new content,
 * never a mix, even across a crash: a temp file is written in the same folder, fsynced and renamed over the
 * file, then the folder is fsynced. An existing file keeps its permission bits; a new one gets `mode` minus
 * the umask. Missing folders are created. The folder is opened with openFolder (no symlink followed below
 * the root, verified after opening) and the temp file and the rename go through that open folder, so a
 * folder swapped for a symlink mid-way cannot move the write outside. A final component that is a symlink is
 * refused (resolution returned a real path, so one appearing there is a swap); replacing a hard link replaces
 * the link only, never the file it shares. Returns whether the file was created.
 * @throws PathError for a refused path, else the file-system error; the temp file is removed and the file
 * is left untouched.
 */
export async function writeFileAtomicAsync(options: AtomicWriteOptions): Promise<{ created: boolean }> {
  const { root, path, show } = options;
  if (path === root)
    throw new PathError('folder', path, `"${show(path)}" is a folder; give a file path inside it.`);
  const folder = await openFolder({
    root,
    folder: dirname(path),
    create: true,
    show,
    ...(options.viaDescriptor === undefined ? {} : { viaDescriptor: options.viaDescriptor }),
  });
  try {
    const name = basename(path);
    const existing = await lstat(folder.entry(name)).catch((error) => {
      if (errorCode(error) === 'ENOENT') return undefined;
      throw error;
    });
    refuseExisting(existing, options);
    const bits = existing ? existing.mode & 0o7777 : (options.mode ?? 0o644);
    await writeThroughTemp(folder, name, options.data, { bits, replacing: existing !== undefined });
    // Some platforms cannot fsync a folder; the rename itself is still atomic.
    await folder.handle.sync().catch(() => {});
    return { created: !existing };
  } finally {
    await folder.close();
  }
}
