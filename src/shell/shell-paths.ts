import { posix } from 'node:path';
import type { Word, WordPart } from './shell-lexer.js';

/** Stands for text only known at run time (a variable, a substitution) inside an evaluated word. */
export const RUNTIME = '\u0001';

/** The folder `$(mktemp -d)` stands for: a fresh one of the command's own, so everything in it is scratch. */
export const MKTEMP_FOLDER = '/tmp/tmp.XXXXXXXXXX';

/** Where the analysed command runs and what it must not touch. All paths absolute. */
export interface ShellContext {
  workspace: string;
  cwd: string;
  home: string;
  /** More locations treated like `~/.ssh` (e.g. Wren's own home with its config and secrets). */
  protectedPaths: readonly string[];
}

/** Shell options that change what a glob matches, once a script sets them (`shopt -s dotglob` …). */
export interface GlobOptions {
  /** `*` and `?` match a leading dot (`dotglob`, or `GLOBIGNORE` set). */
  dot: boolean;
  /** Letters match either case (`nocaseglob`). */
  nocase: boolean;
}

/** A link a script makes: later paths through it are followed to its target. */
export interface MadeLink {
  /** Where it points, absolute; undefined when only known at run time. */
  target?: string;
  /** Its target as written when symbolic and relative (a moved copy points elsewhere). */
  text?: string;
  /** A folder the script fills with unknown files (an extracted archive): any of them may be a link. */
  holdsLinks?: boolean;
}

/** What the rules see while checking one command: the caller's context and what the script did so far. */
export interface AnalysisContext extends ShellContext {
  glob?: GlobOptions;
  /** Links the script makes (and folders that may hold links it makes), by absolute path. */
  links?: Map<string, MadeLink>;
  /** Where links that already exist on disk lead (given by the caller: the analyser reads no disk). */
  real?: ExistingLinks;
}

/**
 * The file system as the analysis sees it, for links that exist before the command runs. Implemented
 * outside src/shell (tools/exec's RealPaths reads the disk); the analysis itself does no I/O.
 */
export interface ExistingLinks {
  /**
   * The path `raw` (absolute, `..` not yet resolved) leads to, when links make it differ from `spelled` (its
   * lexical form). `followLast`: a link at the last segment counts too (not for a delete).
   */
  extraPath(raw: string, spelled: string, followLast: boolean): string | undefined;
  /** The text of the link at `path`, when one exists there now. */
  linkText(path: string): string | undefined;
}

/** A word after quote removal: `text` has RUNTIME where an expansion stands. */
export interface WordValue {
  text: string;
  dynamic: boolean;
  /** Contains `$IFS`. */
  ifs: boolean;
  /** Contains `<(…)` / `>(…)`. */
  process: boolean;
  /** Has unquoted glob characters (`*`, `?`, `[…]`, `@(…)`): bash may expand it to other names. */
  glob?: boolean;
  /** The word it was evaluated from, for checks that need its parts (where `$PATH` stands …). */
  source?: Word;
}

/** Values known for parameters while checking a function body called with literal arguments (`$1` …). */
export type Parameters = ReadonlyMap<string, WordValue>;

const GLOB = /[*?]|\[[^\]]+\]|[@!+]\(/;

/** A static word value. */
export function literalValue(text: string): WordValue {
  return { text, dynamic: false, ifs: false, process: false };
}

/** Evaluates what can be known statically: quotes removed, `~`/`$HOME` as `~`, `$PWD` as `.`. */
export function evaluateWord(word: Word): WordValue {
  return evaluateWordWith(word);
}

/** {@link evaluateWord}, with `params` standing for the parameters it names (`$1` in a called function). */
export function evaluateWordWith(word: Word, params?: Parameters): WordValue {
  const value: WordValue = { text: '', dynamic: false, ifs: false, process: false, source: word };
  for (const [index, part] of word.parts.entries()) {
    if (part.type === 'lit') {
      // A `~` bash leaves as it is (quoted, or not a tilde prefix) names a file called `~`.
      value.text += index === 0 && part.value.startsWith('~') ? `./${part.value}` : part.value;
      if (!part.quoted && GLOB.test(part.value)) value.glob = true;
    } else if (part.type === 'tilde') tilde(value, part.user);
    else if (part.type === 'param' && fixed(part, 'HOME')) value.text += '~';
    else if (part.type === 'param' && fixed(part, 'PWD')) value.text += '.';
    else if (part.type === 'param' && part.plain && params?.has(part.name)) {
      const known = params.get(part.name)!;
      value.text += known.text;
      value.dynamic ||= known.dynamic;
      if (known.glob) value.glob = true;
    } else {
      value.dynamic = true;
      value.text += RUNTIME;
      if (part.type === 'param' && part.name === 'IFS') value.ifs = true;
      if (part.type === 'process') value.process = true;
    }
  }
  return value;
}

/** `~` is the home folder, `~+` the working folder (`.`); `~-` and `~N` (the folder stack) are run-time text. */
function tilde(value: WordValue, user: string): void {
  if (user === '+') value.text += '.';
  else if (/^[+-]?\d*$/.test(user) && user !== '') {
    value.text += RUNTIME;
    value.dynamic = true;
  } else value.text += `~${user}`;
}

/**
 * Whether a parameter part reads `name` as it is: `$HOME`, `${HOME}`, and forms that only differ when it is
 * unset or ends in a slash (`${HOME:?}`, `${HOME:-x}`, `${HOME%/}`); bash always sets HOME and PWD.
 */
function fixed(part: Extract<WordPart, { type: 'param' }>, name: string): boolean {
  if (part.name !== name || part.op) return false;
  if (part.plain) return true;
  const inner = part.inner.map((piece) => (piece.type === 'lit' ? piece.value : RUNTIME)).join('');
  return /^:?[?-]/.test(inner) || /^%%?\/$/.test(inner);
}

/** `text` with a leading `~` or `~user` replaced by that home folder (nothing else changed). */
export function expandTilde(text: string, ctx: ShellContext): string {
  if (text === '~' || text.startsWith('~/')) return ctx.home + text.slice(1);
  if (text.startsWith('~')) return `${posix.dirname(ctx.home)}/${text.slice(1)}`;
  return text;
}

/** The absolute path a static argument names, resolved against the context (`~` is the home folder). */
export function absolutePath(text: string, ctx: ShellContext): string {
  return posix.resolve(ctx.cwd, expandTilde(text, ctx));
}

/** How a path is shown in a signature: under the home folder as `~/…`, run-time parts as `$…`. */
export function showPath(path: string, ctx: ShellContext): string {
  const shown =
    path === ctx.home ? '~' : path.startsWith(`${ctx.home}/`) ? `~${path.slice(ctx.home.length)}` : path;
  return shown.replaceAll(RUNTIME, '$…');
}

/** Whether `path` is `folder` or lies inside it (both absolute and normalized). */
export function within(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder === '/' ? '/' : `${folder}/`);
}

/** Top-level system folders: deleting or recursively changing one breaks the machine. */
export const SYSTEM_FOLDERS = new Set(
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

/** Files and folders in the home folder that a write must not reach (keys, credentials, start-up files). */
export const PROTECTED_IN_HOME = [
  '.ssh',
  '.aws',
  '.gnupg',
  '.kube',
  '.docker',
  '.config/gcloud',
  '.config/autostart',
  '.config/systemd',
  '.config/git',
  '.gitconfig',
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

/** Locations a write must not reach (`~/.ssh`, `/etc`, Wren's home…), with how each is shown. */
export function protectedFolders(ctx: ShellContext): Array<{ folder: string; shown: string }> {
  return [
    ...PROTECTED_IN_HOME.map((name) => ({ folder: posix.join(ctx.home, name), shown: `~/${name}` })),
    ...[...PROTECTED_SYSTEM, ...ctx.protectedPaths].map((folder) => ({
      folder,
      shown: showPath(folder, ctx),
    })),
  ];
}

/** The protected location a written path falls in (`~/.ssh`, `/etc`, Wren's home…), if any. */
export function protectedLocation(path: string, ctx: ShellContext): string | undefined {
  if (within(path, ctx.workspace)) return undefined;
  return protectedFolders(ctx).find(({ folder }) => within(path, folder))?.shown;
}
