import { constants } from 'node:fs';
import { type FileHandle, lstat, mkdir, open, readlink, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';
import { errorCode, PathError } from './path-error.js';

/*
 * Why this exists: resolving a path and then using it by name leaves a window in which a folder of the path
 * can be swapped for a symlink pointing out of the workspace. Node has no openat(), but on Linux a path under
 * `/proc/self/fd/<n>/` is resolved through the open descriptor <n> itself (a "magic link"): no component of
 * the original path is looked up again, so nothing swapped later can redirect it. Folders are therefore
 * opened one component at a time from the root, each with O_NOFOLLOW, and every later file operation names
 * its target as `/proc/self/fd/<folder>/<name>`.
 *
 * Where /proc/self/fd does not work (macOS, BSD, a container without /proc), the folder is opened by path
 * and verified after opening (no component is a symlink, the opened folder is the one at the resolved path,
 * by device and inode); files are then named by path. That closes the window for the open itself but leaves
 * a short one between a later verification and a rename: see writeFileAtomicAsync.
 */

const O_DIRECTORY = constants.O_DIRECTORY ?? 0;
/** O_NOFOLLOW refuses a final component that is a symlink (ELOOP); 0 where the platform lacks it. */
export const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const FOLDER_FLAGS = constants.O_RDONLY | O_DIRECTORY | O_NOFOLLOW;

/** The path that names `name` inside the folder open as `fd` (the folder itself for ''), through /proc. */
export function descriptorPath(fd: number, name = ''): string {
  return name === '' ? `/proc/self/fd/${fd}` : `/proc/self/fd/${fd}/${name}`;
}

let probe: Promise<boolean> | undefined;

/** Whether /proc/self/fd names open descriptors here (Linux with /proc mounted); checked once. */
export function descriptorPathsWork(): Promise<boolean> {
  probe ??= (async () => {
    if (process.platform !== 'linux') return false;
    try {
      const handle = await open('/', FOLDER_FLAGS);
      try {
        return (await readlink(descriptorPath(handle.fd))) === '/';
      } finally {
        await handle.close();
      }
    } catch {
      return false;
    }
  })();
  return probe;
}

/** A folder opened by descriptor and verified to be the one at its resolved real path. */
export interface OpenedFolder {
  /** The folder's real path, as resolution returned it. */
  readonly path: string;
  readonly handle: FileHandle;
  /** Whether entry() names go through the descriptor (race-free) or through the folder's path (fallback). */
  readonly viaDescriptor: boolean;
  /** A path fs calls can use for `name` in this folder ('' for the folder itself). */
  entry(name: string): string;
  close(): Promise<void>;
}

export interface OpenFolderOptions {
  /** A real root folder (as resolveInRoots returns it) that contains `folder`. */
  root: string;
  /** The real path of the folder to open. */
  folder: string;
  /** Create missing folders, one component at a time (with the umask's permissions). */
  create?: boolean;
  /** How a path is named in messages. */
  show: (path: string) => string;
  /** The descriptor walk (true) or the path fallback (false); detected when left out. Tests force it. */
  viaDescriptor?: boolean;
}

function componentsOf(root: string, folder: string): string[] {
  const rel = relative(root, folder);
  if (rel === '') return [];
  if (rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel))
    throw new Error(`openFolder: ${folder} is not inside ${root}`);
  return rel.split(sep);
}

/** Turns an errno from opening the folder `at` into a refusal the model can act on. */
async function folderProblem(error: unknown, at: string, entry: string, show: OpenFolderOptions['show']) {
  switch (errorCode(error)) {
    case 'ENOENT':
      return new PathError('missing', at, `No folder at "${show(at)}".`);
    case 'ELOOP':
    case 'ENOTDIR': {
      // O_DIRECTORY|O_NOFOLLOW reports a symlink as ENOTDIR: look again only to word the refusal.
      const now = await lstat(entry).catch(() => undefined);
      if (now?.isSymbolicLink())
        return new PathError(
          'link',
          at,
          `"${show(at)}" became a symbolic link after the path was checked; file tools do not follow it. Nothing was changed.`,
        );
      if (now?.isDirectory())
        return new PathError(
          'moved',
          at,
          `"${show(at)}" changed while it was being opened; nothing was changed. Try again.`,
        );
      return new PathError('not-folder', at, `"${show(at)}" is a file, not a folder.`);
    }
    case 'EACCES':
    case 'EPERM':
      return new PathError('denied', at, `Permission denied on the folder "${show(at)}".`);
    default:
      return error;
  }
}

async function openChild(parent: FileHandle, at: string, name: string, options: OpenFolderOptions) {
  const entry = descriptorPath(parent.fd, name);
  try {
    return await open(entry, FOLDER_FLAGS);
  } catch (error) {
    if (errorCode(error) !== 'ENOENT' || !options.create)
      throw await folderProblem(error, at, entry, options.show);
  }
  // mkdir never follows a final symlink (EEXIST), and the open below refuses one planted since.
  await mkdir(entry).catch(async (error) => {
    if (errorCode(error) !== 'EEXIST') throw await folderProblem(error, at, entry, options.show);
  });
  return open(entry, FOLDER_FLAGS).catch(async (error) => {
    throw await folderProblem(error, at, entry, options.show);
  });
}

async function walkByDescriptor(options: OpenFolderOptions): Promise<FileHandle> {
  let handle = await open(options.root, constants.O_RDONLY | O_DIRECTORY).catch(async (error) => {
    throw await folderProblem(error, options.root, options.root, options.show);
  });
  let at = options.root;
  try {
    for (const name of componentsOf(options.root, options.folder)) {
      at = join(at, name);
      const next = await openChild(handle, at, name, options);
      await handle.close();
      handle = next;
    }
    // The walk followed no symlink; this also catches a folder of the path renamed away during the walk.
    if ((await readlink(descriptorPath(handle.fd))) !== options.folder) throw moved(options);
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

function moved(options: OpenFolderOptions): PathError {
  return new PathError(
    'moved',
    options.folder,
    `"${options.show(options.folder)}" changed (a folder was moved or replaced) while it was being opened; nothing was changed. Try again.`,
  );
}

/** Fallback: each component checked with lstat (created if asked), then the folder opened and verified. */
async function walkByPath(options: OpenFolderOptions): Promise<FileHandle> {
  let at = options.root;
  for (const name of componentsOf(options.root, options.folder)) {
    at = join(at, name);
    let info = await lstat(at).catch(() => undefined);
    if (!info && options.create) {
      await mkdir(at).catch(async (error) => {
        if (errorCode(error) !== 'EEXIST') throw await folderProblem(error, at, at, options.show);
      });
      info = await lstat(at).catch(() => undefined);
    }
    if (!info) throw new PathError('missing', at, `No folder at "${options.show(at)}".`);
    if (!info.isDirectory()) throw await folderProblem({ code: 'ENOTDIR' }, at, at, options.show);
  }
  const handle = await open(options.folder, FOLDER_FLAGS).catch(async (error) => {
    throw await folderProblem(error, options.folder, options.folder, options.show);
  });
  try {
    const [opened, named, real] = await Promise.all([
      handle.stat(),
      stat(options.folder),
      realpath(options.folder),
    ]);
    if (real !== options.folder || opened.dev !== named.dev || opened.ino !== named.ino) throw moved(options);
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/**
 * Opens the folder `folder` under `root` (creating missing folders when asked) so that no symlink is
 * followed below the root and the folder opened is verified to be the one at `folder`. The caller closes it.
 * @throws PathError (missing, not-folder, link, moved, denied) with a message for the model.
 */
export async function openFolder(options: OpenFolderOptions): Promise<OpenedFolder> {
  const viaDescriptor = options.viaDescriptor ?? (await descriptorPathsWork());
  // The root is the owner's configured folder, not a path from the model: created as a whole if missing.
  if (options.create) await mkdir(options.root, { recursive: true });
  const handle = viaDescriptor ? await walkByDescriptor(options) : await walkByPath(options);
  return {
    path: options.folder,
    handle,
    viaDescriptor,
    entry: (name) => (viaDescriptor ? descriptorPath(handle.fd, name) : join(options.folder, name)),
    close: () => handle.close(),
  };
}
