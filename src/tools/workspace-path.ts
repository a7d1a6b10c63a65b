import { realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { ToolError } from '../agent/tool.js';

const MAX_PATH_CHARS = 4096;

function inside(root: string, candidate: string): boolean {
  const rel = relative(root, candidate);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/** The real path of `path`, resolving symlinks in every existing component; missing tail components are kept. */
async function realPathOf(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    const parent = dirname(path);
    if (parent === path) return path;
    return join(await realPathOf(parent), basename(path));
  }
}

/**
 * Resolves a path the model gave into a real absolute path inside one of `roots` (the first root is the
 * workspace, relative paths start there). Every component is resolved through symlinks before the check, so a
 * link pointing out is refused like `..`. Throws a ToolError with a message for the model when the path is
 * empty, too long, has a NUL byte, starts with `~`, or leaves the roots.
 */
export async function resolveWorkspacePath(roots: string[], requested: string): Promise<string> {
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
  if (!realRoots.some((root) => inside(root, candidate))) {
    throw new ToolError(
      `"${requested}" is outside the workspace. File tools only reach the workspace${roots.length > 1 ? ' and the configured extra folders' : ''}; use a relative path such as "notes/todo.md".`,
    );
  }
  return candidate;
}

/** How a real path inside the workspace is shown to the model (relative, with forward slashes). */
export function displayPath(workspace: string, absolute: string): string {
  const rel = relative(workspace, absolute);
  return rel === '' ? '.' : rel.split(sep).join('/');
}
