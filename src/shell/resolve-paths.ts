import { climbingSegment } from './path-glob.js';
import { type AnalysisContext, expandTilde, RUNTIME, type WordValue, within } from './shell-paths.js';

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
  /**
   * Part of a path it names is only known at run time: run-time text at its start (`$X/…`), a descriptor
   * used as a folder (`/dev/fd/3/x`), another process's working folder (`/proc/4242/cwd/x`), or a folder
   * that may hold links the command makes (an archive it extracts).
   */
  unknown: boolean;
}

export interface ResolveOptions {
  /** Follow a link at the last segment too (reads and writes do; deletes and renames act on the link). */
  followLast?: boolean;
}

/** `/proc/<pid>/root` is that process's view of `/`; `/proc/<pid>/cwd` its working folder. */
const PROC_LINK = /^\/proc\/([^/]+)(?:\/task\/[^/]+)?\/(root|cwd)$/;
/** A descriptor: used as a folder, what follows is inside whatever it is open on. */
const DESCRIPTOR = /^\/(dev\/fd\/[^/]+|dev\/std(in|out|err)|proc\/[^/]+(\/task\/[^/]+)?\/fd\/[^/]+)$/;
const OWN_PROCESS = /^(self|thread-self)$/;

/**
 * The absolute paths a static or partly static argument names from each working folder it may run in.
 * Run-time text at the start makes the resolution `unknown`; what follows it, when it starts with `/`, is
 * also checked as if it were absolute (the run-time part may be empty). A glob segment that can match
 * `..` (`.*`, older bash) also yields the path with `..` in its place. Links the script made are followed,
 * and where links that already exist on disk lead is added (`ctx.real`).
 */
export function resolvePaths(
  value: WordValue,
  cwds: readonly Cwd[],
  ctx: AnalysisContext,
  options: ResolveOptions = {},
): Resolution {
  const resolution: Resolution = { refs: [], unknownCwd: false, unknown: false };
  let text = value.text;
  if (text === '') return resolution;
  if (text.startsWith(RUNTIME)) {
    resolution.unknown = true;
    text = text.replace(/^\u0001+/, '');
    if (!text.startsWith('/')) return resolution;
  }
  const pattern = value.glob === true || text.includes(RUNTIME);
  const spellings = [text];
  if (value.glob) {
    const segments = text.split('/');
    const climbing = segments.findIndex((segment) => climbingSegment(segment, ctx.glob));
    if (climbing !== -1) spellings.push(segments.map((s, i) => (i === climbing ? '..' : s)).join('/'));
  }
  const add = (path: string) => {
    if (!resolution.refs.some((ref) => ref.path === path)) resolution.refs.push({ path, pattern });
  };
  for (const spelling of spellings) {
    const absolute = spelling.startsWith('/') || spelling.startsWith('~');
    for (const cwd of cwds) {
      if (cwd === undefined && !absolute) {
        resolution.unknownCwd = true;
        continue;
      }
      const raw = absolute ? expandTilde(spelling, ctx) : `${cwd}/${spelling}`;
      const path = normalize(raw, cwd, ctx, options.followLast !== false);
      if (path === undefined) {
        resolution.unknown = true;
        continue;
      }
      add(path);
      const real = ctx.real?.extraPath(raw, path, options.followLast !== false);
      if (real !== undefined) add(real);
    }
  }
  return resolution;
}

/**
 * Resolves `.` and `..` segment by segment, following `/proc/<pid>/root` (that process's view of `/`),
 * `/proc/self/cwd` (the command's working folder) and links the script made, the way the kernel does:
 * before any `..` after them. Undefined when the path runs through something only known at run time.
 */
function normalize(raw: string, cwd: Cwd, ctx: AnalysisContext, followLast: boolean): string | undefined {
  let stack: string[] = [];
  const segments = raw.split('/').filter((segment) => segment !== '' && segment !== '.');
  const links = ctx.links !== undefined && ctx.links.size > 0 ? ctx.links : undefined;
  for (const [index, segment] of segments.entries()) {
    if (segment === '..') stack.pop();
    else stack.push(segment);
    if (!links && stack[0] !== 'proc' && stack[0] !== 'dev') continue;
    const path = `/${stack.join('/')}`;
    const last = index === segments.length - 1;
    const proc = PROC_LINK.exec(path);
    if (proc) {
      if (proc[2] === 'root') stack = [];
      else if (OWN_PROCESS.test(proc[1]!) && cwd !== undefined) stack = cwd.split('/').filter(Boolean);
      else return undefined;
      continue;
    }
    if (!last && DESCRIPTOR.test(path)) return undefined;
    const link = links?.get(path);
    if (link && (!last || followLast)) {
      if (link.target === undefined || (link.holdsLinks && !last)) return undefined;
      if (!link.holdsLinks) stack = link.target.split('/').filter(Boolean);
    }
  }
  return `/${stack.join('/')}`;
}

/** The folder a ref is known to stay in: its path, or for a pattern the folders before its first wildcard. */
export function knownFolder(ref: PathRef): string {
  if (!ref.pattern) return ref.path;
  const wildcard = ref.path.search(/[*?[\u0001]|[@!+]\(/);
  if (wildcard === -1) return ref.path;
  return ref.path.slice(0, ref.path.lastIndexOf('/', wildcard)) || '/';
}

/** Whether every path the ref may name is inside the workspace. */
export function insideWorkspace(ref: PathRef, ctx: AnalysisContext): boolean {
  return within(knownFolder(ref), ctx.workspace);
}
