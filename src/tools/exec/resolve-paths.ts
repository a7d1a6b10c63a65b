import { climbingSegment } from './path-glob.js';
import { expandTilde, RUNTIME, type ShellContext, type WordValue, within } from './shell-paths.js';

/** A working folder; undefined when it is only known at run time (after `cd "$DIR"`). */
export type Cwd = string | undefined;

/** One absolute path (or set of paths) an argument may name. */
export interface PathRef {
  /** Absolute and normalized; RUNTIME marks run-time text, which may hold slashes. */
  path: string;
  /** It stands for several paths: it has glob characters or run-time text. */
  pattern: boolean;
}

/** The paths an argument may name. */
export interface Resolution {
  refs: PathRef[];
  /** The argument is relative and (one of) the working folders is only known at run time. */
  unknownCwd: boolean;
}

/** `/proc/<pid>/root` is that process's view of `/`; `/proc/<pid>/cwd` its working folder. */
const PROC_LINK = /^\/proc\/[^/]+(?:\/task\/[^/]+)?\/(root|cwd)$/;

/**
 * The absolute paths a static or partly static argument names from each working folder it may run in.
 * An argument that starts with run-time text names no known path (its refs are empty). A glob segment that
 * can match `..` (`.*`, older bash) also yields the path with `..` in its place.
 */
export function resolvePaths(value: WordValue, cwds: readonly Cwd[], ctx: ShellContext): Resolution {
  const resolution: Resolution = { refs: [], unknownCwd: false };
  const text = value.text;
  if (text === '' || text.startsWith(RUNTIME)) return resolution;
  const pattern = value.glob === true || value.dynamic;
  const spellings = [text];
  if (value.glob) {
    const segments = text.split('/');
    const climbing = segments.findIndex(climbingSegment);
    if (climbing !== -1) spellings.push(segments.map((s, i) => (i === climbing ? '..' : s)).join('/'));
  }
  for (const spelling of spellings) {
    const absolute = spelling.startsWith('/') || spelling.startsWith('~');
    for (const cwd of cwds) {
      if (cwd === undefined && !absolute) {
        resolution.unknownCwd = true;
        continue;
      }
      const raw = absolute ? expandTilde(spelling, ctx) : `${cwd}/${spelling}`;
      const path = normalize(raw, cwd);
      if (!resolution.refs.some((ref) => ref.path === path)) resolution.refs.push({ path, pattern });
    }
  }
  return resolution;
}

/**
 * Resolves `.` and `..` segment by segment, following `/proc/<pid>/root` (that process's view of `/`) and
 * `/proc/<pid>/cwd` (its working folder, taken as `cwd`) the way the kernel does: before any `..` after them.
 */
function normalize(raw: string, cwd: Cwd): string {
  let stack: string[] = [];
  for (const segment of raw.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') stack.pop();
    else stack.push(segment);
    const link = PROC_LINK.exec(`/${stack.join('/')}`);
    if (link) stack = link[1] === 'root' || cwd === undefined ? [] : cwd.split('/').filter(Boolean);
  }
  return `/${stack.join('/')}`;
}

/** The folder a ref is known to stay in: its path, or for a pattern the folders before its first wildcard. */
export function knownFolder(ref: PathRef): string {
  if (!ref.pattern) return ref.path;
  const wildcard = ref.path.search(/[*?[\u0001]/);
  if (wildcard === -1) return ref.path;
  return ref.path.slice(0, ref.path.lastIndexOf('/', wildcard)) || '/';
}

/** Whether every path the ref may name is inside the workspace. */
export function insideWorkspace(ref: PathRef, ctx: ShellContext): boolean {
  return within(knownFolder(ref), ctx.workspace);
}
