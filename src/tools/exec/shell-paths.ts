import { posix } from 'node:path';
import type { Word } from './shell-lexer.js';

/** Stands for text only known at run time (a variable, a substitution) inside an evaluated word. */
export const RUNTIME = '\u0001';

/** Where the analysed command runs and what it must not touch. All paths absolute. */
export interface ShellContext {
  workspace: string;
  cwd: string;
  home: string;
  /** More locations treated like `~/.ssh` (e.g. Wren's own home with its config and secrets). */
  protectedPaths: readonly string[];
}

/** A word after quote removal: `text` has RUNTIME where an expansion stands. */
export interface WordValue {
  text: string;
  dynamic: boolean;
  /** Contains `$IFS`. */
  ifs: boolean;
  /** Contains `<(…)` / `>(…)`. */
  process: boolean;
}

/** Evaluates what can be known statically: quotes removed, `~`/`$HOME` as `~`, `$PWD` as `.`. */
export function evaluateWord(word: Word): WordValue {
  const value: WordValue = { text: '', dynamic: false, ifs: false, process: false };
  for (const part of word.parts) {
    if (part.type === 'lit') value.text += part.value;
    else if (part.type === 'tilde') value.text += `~${part.user}`;
    else if (part.type === 'param' && part.plain && part.name === 'HOME') value.text += '~';
    else if (part.type === 'param' && part.plain && part.name === 'PWD') value.text += '.';
    else {
      value.dynamic = true;
      value.text += RUNTIME;
      if (part.type === 'param' && part.name === 'IFS') value.ifs = true;
      if (part.type === 'process') value.process = true;
    }
  }
  return value;
}

/** The absolute path a static argument names, resolved against the context (`~` is the home folder). */
export function absolutePath(text: string, ctx: ShellContext): string {
  let path = text;
  if (path === '~' || path.startsWith('~/')) path = ctx.home + path.slice(1);
  else if (path.startsWith('~')) path = posix.join(posix.dirname(ctx.home), path.slice(1));
  return posix.resolve(ctx.cwd, path);
}

/** How a path is shown in a signature: under the home folder as `~/…`. */
export function showPath(path: string, ctx: ShellContext): string {
  if (path === ctx.home) return '~';
  if (path.startsWith(`${ctx.home}/`)) return `~${path.slice(ctx.home.length)}`;
  return path;
}

function within(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder === '/' ? '/' : `${folder}/`);
}

const SYSTEM_FOLDERS = new Set(
  [
    'bin',
    'boot',
    'dev',
    'etc',
    'home',
    'lib',
    'lib32',
    'lib64',
    'opt',
    'proc',
    'root',
    'sbin',
    'srv',
    'sys',
    'usr',
    'var',
    'Users',
    'System',
    'Library',
    'Applications',
  ].map((name) => `/${name}`),
);

/**
 * What deleting (or recursively changing) `text` would hit, as a signature, or undefined when it is an
 * ordinary path. Covers `/`, the home folder, system folders, the workspace or a folder holding it, and paths
 * only known at run time.
 */
export function destructiveTarget(value: WordValue, verb: string, ctx: ShellContext): string | undefined {
  if (value.dynamic) {
    return `${verb} of a path only known at run time (${value.text.replaceAll(RUNTIME, '$…')})`;
  }
  let text = value.text.replace(/\/+$/, '') || '/';
  text = text.replace(/(^|\/)(\*|\.\*)$/, '$1.').replace(/\/\.$/, '') || '/';
  const path = absolutePath(text, ctx);
  if (path === '/') return `${verb} of /`;
  if (path === ctx.home) return `${verb} of the home folder (~)`;
  if (/^~[^/]+$/.test(text)) return `${verb} of a home folder (${text})`;
  if (SYSTEM_FOLDERS.has(path)) return `${verb} of system folder ${path}`;
  if (path === ctx.workspace) return `${verb} of the workspace root`;
  if (within(ctx.workspace, path)) return `${verb} of ${showPath(path, ctx)}, which contains the workspace`;
  return undefined;
}

const PROTECTED_IN_HOME = [
  '.ssh',
  '.aws',
  '.gnupg',
  '.kube',
  '.docker',
  '.config/gcloud',
  '.config/autostart',
  '.netrc',
  '.bashrc',
  '.bash_profile',
  '.bash_login',
  '.profile',
  '.zshrc',
  '.zprofile',
  '.zshenv',
];
const PROTECTED_SYSTEM = ['/etc', '/boot', '/usr', '/bin', '/sbin', '/lib', '/lib64', '/var/spool/cron'];

/** The protected location a written path falls in (`~/.ssh`, `/etc`, Wren's home…), if any. */
export function protectedLocation(path: string, ctx: ShellContext): string | undefined {
  if (within(path, ctx.workspace)) return undefined;
  for (const name of PROTECTED_IN_HOME) {
    const folder = posix.join(ctx.home, name);
    if (within(path, folder)) return `~/${name}`;
  }
  for (const folder of [...PROTECTED_SYSTEM, ...ctx.protectedPaths]) {
    if (within(path, folder)) return showPath(folder, ctx);
  }
  return undefined;
}

const SECRET_NAMES =
  /^(\.env(\..+)?|id_(rsa|dsa|ecdsa|ed25519)(_sk)?|.+\.(pem|key|p12|pfx|jks|keystore|kdbx)|\.netrc|\.pgpass|\.git-credentials|\.npmrc|\.pypirc|credentials(\.json)?|shadow|gshadow|sudoers|master\.key)$/;
const SECRET_FOLDERS_IN_HOME = [
  '.ssh',
  '.aws',
  '.gnupg',
  '.kube',
  '.docker',
  '.config/gcloud',
  '.password-store',
];

/** Whether a static argument names a secret file outside the workspace (keys, `.env`, cloud credentials). */
export function secretFile(text: string, ctx: ShellContext): string | undefined {
  if (text === '' || text.startsWith('-') || text.includes('://')) return undefined;
  const path = absolutePath(text, ctx);
  if (within(path, ctx.workspace)) return undefined;
  const name = posix.basename(path);
  const inSecretFolder = SECRET_FOLDERS_IN_HOME.some((folder) =>
    path.startsWith(`${posix.join(ctx.home, folder)}/`),
  );
  const inProtected = ctx.protectedPaths.some((folder) => within(path, folder));
  if (name.endsWith('.pub') || name === 'known_hosts') return undefined;
  if (SECRET_NAMES.test(name) || inSecretFolder || inProtected) return showPath(path, ctx);
  return undefined;
}
