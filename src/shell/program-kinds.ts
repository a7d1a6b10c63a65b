import { PROJECT_RUNNERS } from './check-interpreter.js';
import { describesEffects } from './file-effects.js';
import { parseGit } from './git-effects.js';
import { optionValues, parseOptions } from './parse-options.js';
import type { WordValue } from './shell-paths.js';
import { isInterpreter, programSource } from './shell-programs.js';

/** Programs that show names or metadata, never contents: a glob they expand reads no secret. */
export const NAMES_ONLY = new Set([
  ...['ls', 'du', 'stat', 'file', 'echo', 'printf', 'test', '[', 'basename', 'dirname', 'realpath'],
  ...['readlink', 'tree', 'exa', 'eza', 'lsattr', 'getfacl', 'df', 'namei', 'type', 'which', 'whereis'],
]);

/** Programs whose arguments are not files they read (names, numbers, patterns, process ids). */
const NO_FILE_ARGUMENTS = new Set([
  ...['kill', 'sleep', 'true', 'false', ':', 'exit', 'return', 'shift', 'set', 'unset', 'export', 'declare'],
  ...[
    'typeset',
    'local',
    'readonly',
    'let',
    'read',
    'wait',
    'jobs',
    'fg',
    'bg',
    'disown',
    'alias',
    'unalias',
  ],
  ...[
    'hash',
    'help',
    'history',
    'seq',
    'expr',
    'date',
    'id',
    'groups',
    'whoami',
    'uname',
    'hostname',
    'pgrep',
  ],
  ...['pkill', 'killall', 'pwd', 'getopts', 'break', 'continue', 'shopt', 'ulimit', 'umask', 'printenv'],
  ...['tput', 'nproc', 'trap', 'mapfile', 'readarray', 'complete', 'compgen', 'enable', 'caller', 'times'],
  ...['dirs', 'notify-send', 'yes', 'tty', 'uptime', 'free', 'ps', 'top', 'htop', 'usleep', 'cd', 'pushd'],
  ...['popd', 'tr', 'numfmt', 'factor', 'lsof', 'systemctl', 'journalctl', 'loginctl', 'nvidia-smi'],
]);

/** Programs whose operands are URLs, hosts or addresses (their file options are read-checked as values). */
const URL_PROGRAMS =
  /^(curl|wget2?|https?|xh|xhs|aria2c|axel|ping6?|dig|host|nslookup|drill|whois|traceroute6?|tracepath|mtr|telnet|socat|ssh-keyscan|getent|open|xdg-open|lynx|w3m|links|elinks|(nc|ncat|netcat)([.-].*)?)$/;

/** Programs known to only read the files they are given (no writes): exempt from the named-location net. */
export const READERS = new Set([
  ...['cat', 'tac', 'head', 'tail', 'less', 'more', 'wc', 'nl', 'od', 'hexdump', 'strings', 'cut', 'paste'],
  ...['comm', 'cmp', 'md5sum', 'sha1sum', 'sha256sum', 'sha512sum', 'b2sum', 'cksum', 'sum', 'base64'],
  ...['base32', 'jq', 'column', 'fold', 'fmt', 'pr', 'expand', 'unexpand', 'rev', 'bat', 'batcat', 'zcat'],
  ...['zless', 'zgrep', 'bzcat', 'xzcat', 'lzcat', 'zstdcat', 'look', 'source', '.', 'view', 'tr'],
]);

const EMPTY: ReadonlySet<WordValue> = new Set();

/**
 * The arguments `name` reads as files when they are only known at run time (such a read is unanalysable):
 * every operand for most programs; none for programs that read no files (`kill`, `echo`), task runners
 * and git (its arguments are revisions, apart from `diff --no-index` and a few plumbing commands); the
 * files after a searcher's pattern, sed's script or awk's program; an interpreter's script file.
 */
export function contentOperands(name: string, args: WordValue[]): ReadonlySet<WordValue> {
  if (NAMES_ONLY.has(name) || NO_FILE_ARGUMENTS.has(name) || PROJECT_RUNNERS.has(name)) return EMPTY;
  if (URL_PROGRAMS.test(name)) return new Set(args.filter((arg) => /^[@<]/.test(arg.text)));
  if (isInterpreter(name)) {
    const source = programSource(name, args);
    return source.from === 'file' ? new Set([source.value]) : EMPTY;
  }
  if (name === 'git') {
    const call = parseGit(args);
    const files =
      call.rest.some((arg) => arg.text === '--no-index') ||
      /^(hash-object|apply|am)$/.test(call.subcommand ?? '');
    return files ? new Set(call.rest.filter((arg) => !arg.text.startsWith('-'))) : EMPTY;
  }
  const operands = programOperands(name, args);
  return new Set(operands.filter((arg) => !arg.text.startsWith('-')));
}

/** The operands that are files, for programs whose first operand is a pattern or a program. */
function programOperands(name: string, args: WordValue[]): WordValue[] {
  if (/^(e|f|r|z)?grep$|^(rg|ag|ack)$/.test(name)) {
    const parsed = parseOptions(args, [
      'e',
      'f',
      'm',
      'A',
      'B',
      'C',
      'd',
      'D',
      'g',
      't',
      'T',
      'regexp',
      'file',
      'glob',
    ]);
    return optionValues(parsed, 'e', 'f', 'regexp', 'file').length > 0
      ? parsed.operands
      : parsed.operands.slice(1);
  }
  if (/^g?sed$/.test(name)) {
    const parsed = parseOptions(args, ['e', 'f', 'l', 'expression', 'file', 'line-length']);
    return optionValues(parsed, 'e', 'expression').length > 0 ? parsed.operands : parsed.operands.slice(1);
  }
  if (/^[gmn]?awk$/.test(name)) {
    const parsed = parseOptions(args, ['F', 'v', 'f', 'W', 'field-separator', 'assign', 'file']);
    const files = optionValues(parsed, 'f', 'file').length > 0 ? parsed.operands : parsed.operands.slice(1);
    return files.filter((arg) => !/^[A-Za-z_]\w*=/.test(arg.text));
  }
  if (name === 'jq' || name === 'yq') {
    // `--arg NAME VALUE` and the like take two words.
    const plain = args.filter(
      (_, index) =>
        !/^--(arg|argjson|slurpfile|rawfile)$/.test(args[index - 1]?.text ?? '') &&
        !/^--(arg|argjson|slurpfile|rawfile)$/.test(args[index - 2]?.text ?? ''),
    );
    const parsed = parseOptions(plain, ['f', 'from-file', 'indent', 'L', 'o', 'I', 'p']);
    return parsed.operands.slice(optionValues(parsed, 'f', 'from-file').length > 0 ? 0 : 1);
  }
  if (name === 'find' || name === 'xargs') return [];
  return args;
}

/** Programs whose writes a rule checks (editors, sqlite3, Wren's CLI). */
const CHECKED_BY_RULES =
  /^(r?ed|ex|vi|vim|nvim|view|vimdiff|gvim|nano|pico|emacs|micro|joe|mcedit|kak|hx|sqlite3?|wren)$/;

/** Whether the named-location net skips `name`: it only reads or shows names, or its writes are known. */
export function knownAccess(name: string): boolean {
  return (
    NAMES_ONLY.has(name) ||
    READERS.has(name) ||
    NO_FILE_ARGUMENTS.has(name) ||
    describesEffects(name) ||
    CHECKED_BY_RULES.test(name)
  );
}
