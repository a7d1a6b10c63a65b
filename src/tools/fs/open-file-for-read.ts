import { constants, type Stats } from 'node:fs';
import { type FileHandle, open, readlink, realpath, stat } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { descriptorPath, O_NOFOLLOW, type OpenedFolder, openFolder } from './open-folder.js';
import { errorCode, PathError } from './path-error.js';

/** O_NONBLOCK: a FIFO planted in the workspace must not block the open (it is refused after fstat). */
const READ_FLAGS = constants.O_RDONLY | O_NOFOLLOW | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

export interface OpenFileForReadOptions {
  /** The real root (workspace or extra root) that contains `path`, as resolveInRoots returns it. */
  root: string;
  /** The real path of the file, as resolveInRoots returns it. */
  path: string;
  /** How a path is named in messages. */
  show: (path: string) => string;
  /** The descriptor walk (true) or the path fallback (false); detected when left out. Tests force it. */
  viaDescriptor?: boolean;
}

/** An open regular file with its fstat; the caller closes `handle`. */
export interface OpenedFile {
  handle: FileHandle;
  info: Stats;
}

async function openEntry(folder: OpenedFolder, options: OpenFileForReadOptions): Promise<FileHandle> {
  const { path, show } = options;
  try {
    return await open(folder.entry(basename(path)), READ_FLAGS);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT') throw new PathError('missing', path, `No file at "${show(path)}".`);
    if (code === 'ELOOP')
      throw new PathError(
        'link',
        path,
        `"${show(path)}" became a symbolic link after the path was checked; file tools do not follow it.`,
      );
    if (code === 'EACCES' || code === 'EPERM')
      throw new PathError('denied', path, `Permission denied on "${show(path)}".`);
    throw error;
  }
}

/** The opened file is the one at `path`: its descriptor's real path, or (fallback) the same inode there. */
async function verifyOpened(
  handle: FileHandle,
  info: Stats,
  folder: OpenedFolder,
  options: OpenFileForReadOptions,
) {
  const { path, show } = options;
  let same: boolean;
  if (folder.viaDescriptor) same = (await readlink(descriptorPath(handle.fd))) === path;
  else {
    const [named, real] = await Promise.all([stat(path), realpath(path)]);
    same = real === path && named.dev === info.dev && named.ino === info.ino;
  }
  if (!same)
    throw new PathError('moved', path, `The path changed while "${show(path)}" was being opened; try again.`);
}

function refuseKind(info: Stats, options: OpenFileForReadOptions): void {
  const { path, show } = options;
  if (info.isDirectory()) throw new PathError('folder', path, `"${show(path)}" is a folder.`);
  if (!info.isFile()) throw new PathError('not-file', path, `"${show(path)}" is not a regular file.`);
  if (info.nlink > 1)
    throw new PathError(
      'hard-links',
      path,
      `"${show(path)}" has ${info.nlink} hard links; Wren reads only files with a single link, so a link cannot expose a file outside the workspace.`,
    );
}

/**
 * Opens the regular file `path` under `root` for reading without following a symlink anywhere below the root
 * (folders as openFolder does, the file itself with O_NOFOLLOW), then checks the opened file with fstat: a
 * folder, a device, a FIFO or a file with more than one hard link is refused (a hard link inside the
 * workspace may be the same file as one outside it, and nothing about the link shows where else it lives).
 * Finally the descriptor's real path must still be `path`. The caller closes the handle.
 * @throws PathError (missing, folder, not-file, hard-links, link, moved, denied) with a message for the model.
 */
export async function openFileForRead(options: OpenFileForReadOptions): Promise<OpenedFile> {
  const { root, path, show } = options;
  if (path === root) throw new PathError('folder', path, `"${show(path)}" is a folder.`);
  const folder = await openFolder({
    root,
    folder: dirname(path),
    show,
    ...(options.viaDescriptor === undefined ? {} : { viaDescriptor: options.viaDescriptor }),
  }).catch((error) => {
    if (error instanceof PathError && error.problem === 'missing')
      throw new PathError('missing', path, `No file at "${show(path)}".`);
    throw error;
  });
  let handle: FileHandle;
  try {
    handle = await openEntry(folder, options);
  } finally {
    await folder.close();
  }
  try {
    const info = await handle.stat();
    refuseKind(info, options);
    await verifyOpened(handle, info, folder, options);
    return { handle, info };
  } catch (error) {
    await handle.close();
    throw error;
  }
}
