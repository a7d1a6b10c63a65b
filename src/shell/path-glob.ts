import picomatch from 'picomatch';
import { type GlobOptions, RUNTIME } from './shell-paths.js';

const GLOB_CHARS = /[*?[]|[@!+]\(/;
const matchers = new Map<string, (name: string) => boolean>();

/**
 * Whether a path segment spelled as a bash pattern (extglob groups included) could name `name` (RUNTIME
 * counts as `*`). `options`: the script set `dotglob` (or GLOBIGNORE) or `nocaseglob`.
 */
export function segmentMatches(pattern: string, name: string, options?: GlobOptions): boolean {
  if (!GLOB_CHARS.test(pattern) && !pattern.includes(RUNTIME)) return pattern === name;
  // bash without dotglob: `*` and `?` do not match a leading dot (picomatch's default agrees); run-time
  // text at the start may.
  const dot = pattern.startsWith(RUNTIME) || options?.dot === true;
  const nocase = options?.nocase === true;
  const glob = pattern.replaceAll(RUNTIME, '*');
  const key = `${dot ? '.' : ' '}${nocase ? 'i' : ' '}${glob}`;
  let matcher = matchers.get(key);
  if (!matcher) {
    matcher = picomatch(glob, { dot, nocase });
    if (matchers.size > 500) matchers.clear();
    matchers.set(key, matcher);
  }
  return matcher(name);
}

function segments(path: string): string[] {
  return path.split('/').filter((segment) => segment !== '');
}

/** Which paths related to a folder an absolute pattern could name. */
export interface Overlap {
  /** The folder itself. */
  self: boolean;
  /** Something inside it. */
  inside: boolean;
  /** A folder that contains it. */
  above: boolean;
}

/**
 * How the paths an absolute pattern can name (glob characters, RUNTIME for run-time text, which may hold
 * slashes) relate to `folder`; undefined when none of them is the folder, inside it or above it.
 */
export function overlap(pattern: string, folder: string, options?: GlobOptions): Overlap | undefined {
  const names = segments(pattern);
  const parts = segments(folder);
  for (let index = 0; index < names.length; index++) {
    const name = names[index]!;
    const open = name.includes(RUNTIME) || name === '**';
    if (index >= parts.length) return { self: false, inside: true, above: false };
    if (open) {
      const head = name.includes(RUNTIME) ? name.slice(0, name.indexOf(RUNTIME)) : '';
      const part = parts[index]!;
      const fits =
        head === '' ||
        (GLOB_CHARS.test(head) ? segmentMatches(`${head}*`, part, options) : part.startsWith(head));
      return fits ? { self: true, inside: true, above: true } : undefined;
    }
    if (!segmentMatches(name, parts[index]!, options)) return undefined;
  }
  return names.length === parts.length
    ? { self: true, inside: false, above: false }
    : { self: false, inside: false, above: true };
}

/** A trailing segment that matches (nearly) every name: `*`, `?*`, `.*`, `[a-z]*`, `[!.]*` … */
const BROAD = /^\.?(\*|\?|\[[^\]]*\])+$/;

/**
 * The folder whose whole contents a pattern names (`/home/ann/*` → `/home/ann`, `/?*` → `/`), or the
 * pattern itself when its last segment is selective (`notes/*.bak`).
 */
export function broadGlobBase(pattern: string): string {
  let path = pattern;
  for (;;) {
    const slash = path.lastIndexOf('/');
    if (slash === -1 || !BROAD.test(path.slice(slash + 1))) return path;
    path = path.slice(0, slash) || '/';
    if (path === '/') return path;
  }
}

/** Whether a pattern's segment could name `..` (`.*`, `.?`), letting it climb out of its folder. */
export function climbingSegment(segment: string, options?: GlobOptions): boolean {
  return (
    (segment.startsWith('.') || options?.dot === true) &&
    GLOB_CHARS.test(segment) &&
    segmentMatches(segment, '..', options)
  );
}

/** Whether text has glob characters or run-time parts (so it stands for a set of paths). */
export function isPattern(text: string): boolean {
  return GLOB_CHARS.test(text) || text.includes(RUNTIME);
}
