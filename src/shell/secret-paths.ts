import { posix } from 'node:path';
import { SECRET_NAMES, SECRET_SAMPLES, secretFileName } from '../util/secret-file-names.js';
import { overlap, segmentMatches } from './path-glob.js';
import { insideWorkspace, type PathRef } from './resolve-paths.js';
import { type AnalysisContext, type GlobOptions, RUNTIME, showPath, within } from './shell-paths.js';

/** Folders under the home whose every file is a secret (keys, cloud and cluster credentials, tokens). */
const SECRET_FOLDERS_IN_HOME = [
  ...[
    '.ssh',
    '.aws',
    '.azure',
    '.gnupg',
    '.kube',
    '.docker',
    '.config/gcloud',
    '.config/gh',
    '.password-store',
  ],
  ...['.config/op', '.config/rclone', '.config/hub', '.terraform.d', '.local/share/keyrings', '.mozilla'],
  ...['.config/google-chrome', '.config/chromium', '.config/BraveSoftware'],
];
/** Single files under the home that hold tokens. */
const SECRET_FILES_IN_HOME = ['.config/hub', '.cargo/credentials'];

/** The folders whose files are all secret: those under the home and the protected paths (Wren's home). */
export function secretFolders(ctx: AnalysisContext): string[] {
  return [...SECRET_FOLDERS_IN_HOME.map((name) => posix.join(ctx.home, name)), ...ctx.protectedPaths];
}

/** Whether a file name (or a name pattern) can name a secret file. */
export function secretName(name: string, options?: GlobOptions): boolean {
  if (name.endsWith('.pub') || name === 'known_hosts') return false;
  return SECRET_NAMES.test(name) || SECRET_SAMPLES.some((sample) => segmentMatches(name, sample, options));
}

/**
 * The secret file a read of `ref` may reach (keys, `.env`, cloud credentials, anything in a secret folder
 * or Wren's home), shown for a signature; undefined when it cannot reach one.
 */
export function secretRead(ref: PathRef, ctx: AnalysisContext): string | undefined {
  if (insideWorkspace(ref, ctx)) return undefined;
  const path = ref.path;
  const name = posix.basename(path);
  if (name.endsWith('.pub') || name === 'known_hosts') return undefined;
  const inFolder = ref.pattern
    ? secretFolders(ctx).some((folder) => {
        const found = overlap(path, folder, ctx.glob);
        return found?.inside === true || (found?.self === true && ctx.protectedPaths.includes(folder));
      })
    : SECRET_FOLDERS_IN_HOME.some((folder) => path.startsWith(`${posix.join(ctx.home, folder)}/`)) ||
      SECRET_FILES_IN_HOME.some((file) => path === posix.join(ctx.home, file)) ||
      ctx.protectedPaths.some((folder) => within(path, folder));
  return inFolder || secretName(name, ctx.glob) ? showPath(path, ctx) : undefined;
}

/**
 * The secret file a write of `ref` may replace or plant (`.env`, `.ENV`, a key, `.netrc`; a pattern that can
 * name one), wherever it is — inside the workspace too — shown for a signature; undefined otherwise.
 */
export function secretWrite(ref: PathRef, ctx: AnalysisContext): string | undefined {
  const name = posix.basename(ref.path);
  const secret = ref.pattern ? secretName(name, ctx.glob) || secretFileName(name) : secretFileName(name);
  if (!secret) return undefined;
  return insideWorkspace(ref, ctx) ? posix.relative(ctx.workspace, ref.path) : showPath(ref.path, ctx);
}

/** The folder a recursive read of `ref` reaches that holds secret folders (`~`, `~/.config`, `/`), if any. */
export function secretFolderRead(ref: PathRef, ctx: AnalysisContext): string | undefined {
  if (insideWorkspace(ref, ctx)) return undefined;
  const reaches = (folder: string) =>
    ref.pattern
      ? overlap(ref.path, folder, ctx.glob) !== undefined
      : within(ref.path, folder) || within(folder, ref.path);
  return secretFolders(ctx).some(reaches) ? showPath(ref.path, ctx) : undefined;
}

const MEMORY_DEVICES = new Set(['/dev/mem', '/dev/kmem', '/proc/kcore']);

/**
 * Signatures for reading a process's environment or memory: `/proc/<pid>/environ` (Wren's own holds its
 * API keys), `/proc/<pid>/mem`, `/dev/mem`; `recursive` for reads of a folder that may contain them.
 */
export function processReads(ref: PathRef, ctx: AnalysisContext, recursive: boolean): string[] {
  const path = ref.path;
  const shown = showPath(path, ctx);
  if (MEMORY_DEVICES.has(path)) return [`reads process memory (${shown})`];
  if (recursive) {
    const reaches = ref.pattern
      ? overlap(path, '/proc') !== undefined
      : within(path, '/proc') || within('/proc', path);
    return reaches ? [`reads a process environment (${shown})`] : [];
  }
  const inside = ref.pattern
    ? overlap(path, '/proc')?.inside === true
    : within(path, '/proc') && path !== '/proc';
  if (!inside) return [];
  const segments = path.split('/').filter(Boolean);
  // /proc/<pid>/environ or deeper (/proc/<pid>/task/<tid>/environ); run-time text may hold more segments.
  if (!path.includes(RUNTIME) && segments.length < 3) return [];
  const name = segments.at(-1) ?? '';
  const signatures: string[] = [];
  // Another process's open files (Wren's database, its logs): `/proc/<pid>/fd/N`, `/proc/<pid>/map_files/…`.
  const open = /^\/proc\/([^/]+)(?:\/task\/[^/]+)?\/(fd|map_files)\/[^/]+$/.exec(path);
  if (open && !/^(self|thread-self)$/.test(open[1]!))
    signatures.push(`reads a secret file outside the workspace (${shown})`);
  if (segmentMatches(name, 'environ')) signatures.push(`reads a process environment (${shown})`);
  if (segmentMatches(name, 'mem')) signatures.push(`reads process memory (${shown})`);
  return signatures;
}
