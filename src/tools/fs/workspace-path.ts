import { lstat, readlink, realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { ToolError } from '../../agent/tool.js';
import { revealHiddenCharacters } from '../../util/hidden-characters.js';

const MAX_PATH_CHARS = 4096;

function inside(root: string, candidate: string): boolean {
  const rel = relative(root, candidate);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

const MAX_LINK_HOPS = 40;
/** Never opened, whatever the roots say: devices and kernel interfaces. */
const SYSTEM_PSEUDO = ['/dev', '/proc', '/sys'];

/**
 * The real path of `path`, resolving symlinks in every existing component. A component that does not exist
 * is kept as written, but a dangling symlink is followed to where it points (so a link to a missing file
 * outside the workspace resolves outside, and is refused like any other escape).
 */
async function realPathOf(path: string, hops = 0): Promise<string> {
  if (hops > MAX_LINK_HOPS) throw new ToolError('Too many symbolic links in the path.');
  try {
    return await realpath(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw new ToolError('The path is a loop of symbolic links.');
    if (code === 'EACCES') throw new ToolError('Permission denied on a folder in the path.');
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw new ToolError('The path cannot be resolved.');
    const link = await lstat(path).then(
      (info) => info.isSymbolicLink(),
      () => false,
    );
    if (link) {
      // A link replaced between lstat and readlink (EINVAL): resolve the path again, within the hop limit.
      const target = await readlink(path).catch(() => undefined);
      if (target === undefined) return realPathOf(path, hops + 1);
      return realPathOf(resolve(dirname(path), target), hops + 1);
    }
    const parent = dirname(path);
    if (parent === path) return path;
    return join(await realPathOf(parent, hops), basename(path));
  }
}

/** A resolved path, the real root it lies in (where a descriptor walk to it starts) and the real workspace. */
export interface ResolvedPath {
  path: string;
  root: string;
  workspace: string;
}

/**
 * Resolves a path the model gave into a real absolute path inside one of `roots` (the first root is the
 * workspace, relative paths start there), and names that root (real path too). Every component is resolved
 * through symlinks before the check, so a link pointing out is refused like `..`. Resolution alone is a
 * check, not a guarantee: a folder can be swapped after it, so the file tools open what it returns with
 * openFolder / openFileForRead. Throws a ToolError with a message for the model when the path is too long,
 * has a NUL byte, starts with `~`, leaves the roots, or lies in /dev, /proc or /sys (even when a root
 * contains them).
 */
export async function resolveInRoots(roots: string[], requested: string): Promise<ResolvedPath> {
  const [workspace] = roots;
  if (!workspace) throw new ToolError('No workspace is configured.');
  if (requested.includes('\0')) throw new ToolError('The path contains a NUL byte.');
  if (requested.length > MAX_PATH_CHARS)
    throw new ToolError(`The path is longer than ${MAX_PATH_CHARS} characters.`);
  if (requested.startsWith('~')) {
    throw new ToolError('Paths starting with ~ are not allowed; use a path relative to the workspace.');
  }
  const realRoots = await Promise.all(roots.map((root) => realPathOf(resolve(root))));
  const candidate = await realPathOf(resolve(realRoots[0]!, requested || '.'));
  if (SYSTEM_PSEUDO.some((folder) => inside(folder, candidate))) {
    throw new ToolError(
      `"${requested}" is a device or kernel file (/dev, /proc, /sys); file tools do not open those.`,
    );
  }
  const root = realRoots.find((real) => inside(real, candidate));
  if (root === undefined) {
    throw new ToolError(
      `"${requested}" is outside the workspace. File tools only reach the workspace${roots.length > 1 ? ' and the configured extra folders' : ''}; use a relative path such as "notes/todo.md".`,
    );
  }
  return { path: candidate, root, workspace: realRoots[0]! };
}

/** resolveInRoots, for callers that need only the path. */
export async function resolveWorkspacePath(roots: string[], requested: string): Promise<string> {
  return (await resolveInRoots(roots, requested)).path;
}

/** How a real path inside the workspace is shown to the model (relative, with forward slashes). */
export function displayPath(workspace: string, absolute: string): string {
  const rel = relative(workspace, absolute);
  return rel === '' ? '.' : rel.split(sep).join('/');
}

/** Whether a real path lies inside the (real) workspace rather than an extra root. */
export function insideWorkspace(resolved: ResolvedPath): boolean {
  return inside(resolved.workspace, resolved.path);
}

/** Whether a real path lies inside the workspace (the first root, as configured) rather than an extra root. */
export function inWorkspace(roots: string[], absolute: string): boolean {
  const [workspace] = roots;
  return workspace !== undefined && inside(resolve(workspace), absolute);
}

/**
 * How a file tool echoes a real path to the model: relative inside the (real) workspace, absolute elsewhere,
 * with hidden characters made visible (a name with U+202E would otherwise display reversed). For showing
 * only: the result may not name the file any more.
 */
export function shownPath(workspace: string, absolute: string): string {
  const plain = inside(workspace, absolute) ? displayPath(workspace, absolute) : absolute;
  return revealHiddenCharacters(plain, { singleLine: true });
}

/**
 * A file tool's assessment of a path it would read: the resolved path as gate rules match it (relative to
 * the workspace, absolute in an extra root), so `match: {path: "secrets/*"}` holds whatever the spelling.
 * Nothing when the path cannot be resolved (the call then fails in `execute`).
 */
export async function assessPath(roots: string[], requested: string): Promise<{ path?: string }> {
  try {
    const resolved = await resolveInRoots(roots, requested);
    return {
      path: inside(resolved.workspace, resolved.path)
        ? displayPath(resolved.workspace, resolved.path)
        : resolved.path,
    };
  } catch {
    return {};
  }
}
