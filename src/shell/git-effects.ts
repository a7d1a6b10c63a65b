import { from } from './archive-effects.js';
import type { FileEffects } from './file-effect-types.js';
import { optionValues, parseOptions } from './parse-options.js';
import { literalValue, type WordValue } from './shell-paths.js';

/** git's global options that take the next argument as their value. */
export const GIT_GLOBAL_VALUES = new Set([
  '-C',
  '-c',
  '--config-env',
  '--git-dir',
  '--work-tree',
  '--namespace',
]);

/** git's global options, the subcommand and its arguments. */
export interface GitCall {
  /** `-C DIR` (the last one; paths in the subcommand are relative to it). */
  folder?: WordValue;
  gitDir?: WordValue;
  workTree?: WordValue;
  /** `-c key=value` settings, glued (`-ckey=value`) or not. */
  settings: WordValue[];
  subcommand?: string;
  /** Where the subcommand is in the arguments (their length when there is none). */
  at: number;
  rest: WordValue[];
}

/** Splits `git [global options] subcommand args…`. */
export function parseGit(args: WordValue[]): GitCall {
  const call: GitCall = { settings: [], rest: [], at: 0 };
  let index = 0;
  for (; index < args.length; index++) {
    const arg = args[index]!;
    const text = arg.text;
    if (!text.startsWith('-')) break;
    const equals = text.indexOf('=');
    const glued = /^-[cC]./.test(text) ? text.slice(0, 2) : undefined;
    const key = glued ?? (text.startsWith('--') && equals !== -1 ? text.slice(0, equals) : text);
    let value: WordValue | undefined;
    if (glued) value = { ...arg, text: text.slice(2) };
    else if (key !== text) value = { ...arg, text: text.slice(equals + 1) };
    else if (GIT_GLOBAL_VALUES.has(key)) value = args[++index];
    if (!value) continue;
    if (key === '-C') call.folder = from(call.folder, value);
    else if (key === '-c') call.settings.push(value);
    else if (key === '--git-dir') call.gitDir = value;
    else if (key === '--work-tree') call.workTree = value;
  }
  const subcommand = args[index]?.text;
  if (subcommand !== undefined) call.subcommand = subcommand;
  call.at = Math.min(index, args.length);
  call.rest = args.slice(index + 1);
  return call;
}

/** Subcommands that only read the repository and its work tree. */
const READS_ONLY =
  /^(status|log|diff|show|ls-files|ls-tree|grep|blame|describe|rev-parse|rev-list|branch|tag|config|remote|fetch|shortlog|reflog|cat-file|for-each-ref|show-ref|whatchanged|help|version|var|check-ignore|name-rev|merge-base|count-objects|fsck|verify-commit|bisect|archive|format-patch|bundle|notes|ls-remote|cherry|range-diff)$/;
/** Options whose value is text (a format, a search), never a path; and `-m` for subcommands with a message. */
const TEXT_OPTIONS = ['format', 'pretty', 'grep', 'author', 'committer', 'trailer'];
const WITH_MESSAGE = /^(commit|tag|merge|stash|notes|revert|cherry-pick|commit-tree)$/;
const CLONE_VALUES = ['o', 'b', 'u', 'c', 'j', 'origin', 'branch', 'depth', 'reference', 'config', 'filter'];
const CLONE_FILES = ['separate-git-dir', 'template', 'upload-pack'];

/**
 * What `git …` does to files: `--output=FILE`, `archive -o`, `format-patch -o DIR`, `worktree add DIR`,
 * `clone … DIR`, `init DIR`, `config --global/--system/--file`, paths restored by `checkout`/`restore`,
 * `mv`/`rm`, `clean`, patches applied (`apply`, `am`: files not known here), and a work tree outside
 * (`--work-tree`, `-C`) for subcommands that change one. Messages (`-m`) are text, not paths.
 */
export function gitEffects(args: WordValue[], effects: FileEffects): void {
  const call = parseGit(args);
  const at = (value: WordValue) => from(call.folder, value);
  const sub = call.subcommand ?? '';
  const text = WITH_MESSAGE.test(sub) ? [...TEXT_OPTIONS, 'm', 'message', 'F', 'file'] : TEXT_OPTIONS;
  const parsed = parseOptions(call.rest, [...text, 'output']);
  effects.notPaths.push(...optionValues(parsed, ...text.filter((name) => name !== 'F' && name !== 'file')));
  effects.writes.push(...optionValues(parsed, 'output').map(at));
  if (call.workTree && !READS_ONLY.test(sub)) {
    const tree = at(call.workTree);
    if (sub === 'clean') effects.deletes.push({ value: tree, verb: 'recursive delete', filtered: true });
    else effects.writes.push(tree);
  }
  const changesTree = /^(clean|reset|checkout|switch|restore|merge|pull|stash|rebase|cherry-pick|revert)$/;
  if (call.folder && !call.workTree && changesTree.test(sub)) {
    if (sub === 'clean')
      effects.deletes.push({ value: call.folder, verb: 'recursive delete', filtered: true });
    else effects.writes.push(call.folder);
  }
  subcommandEffects(sub, call, effects, at);
}

function subcommandEffects(
  sub: string,
  call: GitCall,
  effects: FileEffects,
  at: (value: WordValue) => WordValue,
): void {
  const rest = call.rest;
  const operands = parseOptions(rest, ['o', 's', 'source', 'b', 'B', 'reason']).operands;
  if (sub === 'archive' || sub === 'format-patch' || sub === 'bundle') {
    const parsed = parseOptions(rest, ['o', 'output', 'output-directory', 'prefix', 'format', 'remote']);
    effects.writes.push(...optionValues(parsed, 'o', 'output', 'output-directory').map(at));
    if (sub === 'bundle' && parsed.operands[0]?.text === 'create' && parsed.operands[1])
      effects.writes.push(at(parsed.operands[1]));
  } else if (sub === 'worktree' && operands[0]?.text === 'add' && operands[1]) {
    effects.writes.push(at(operands[1]));
  } else if (sub === 'clone') cloneEffects(rest, effects, at);
  else if (sub === 'init') {
    const parsed = parseOptions(rest, [
      'b',
      'initial-branch',
      'template',
      'separate-git-dir',
      'object-format',
    ]);
    effects.writes.push(...[...parsed.operands, ...optionValues(parsed, 'separate-git-dir')].map(at));
  } else if (sub === 'config') configEffects(rest, effects, at);
  else if (sub === 'checkout' || sub === 'restore') pathsRestored(sub, rest, effects, at);
  else if (sub === 'mv' && operands.length >= 2) {
    effects.writes.push(at(operands.at(-1)!));
    for (const value of operands.slice(0, -1))
      effects.deletes.push({ value: at(value), verb: 'move', move: true });
  } else if (sub === 'rm' && !rest.some((arg) => arg.text === '--cached')) {
    for (const value of operands) effects.deletes.push({ value: at(value) });
  } else if (sub === 'apply' || sub === 'am') {
    const checks = rest.some((arg) => /^--(check|stat|numstat|summary|cached)$/.test(arg.text));
    if (!checks) effects.unpacks.push(call.folder ?? literalValue('.'));
  }
}

function cloneEffects(rest: WordValue[], effects: FileEffects, at: (value: WordValue) => WordValue): void {
  const parsed = parseOptions(rest, [...CLONE_VALUES, ...CLONE_FILES]);
  effects.writes.push(...optionValues(parsed, 'separate-git-dir').map(at));
  const [repository, folder] = parsed.operands;
  if (folder) effects.writes.push(at(folder));
  else if (repository && !repository.dynamic) {
    const name = repository.text
      .replace(/\/+$/, '')
      .replace(/\.git$/, '')
      .split(/[/:]/)
      .at(-1);
    if (name) effects.writes.push(at(literalValue(name)));
  }
}

/** `git config` writes `~/.gitconfig` (`--global`), `/etc/gitconfig` (`--system`) or `--file F` when it sets. */
function configEffects(rest: WordValue[], effects: FileEffects, at: (value: WordValue) => WordValue): void {
  const parsed = parseOptions(rest, ['f', 'file', 'blob', 'type', 'default', 'comment', 'value']);
  const reads = parsed.options.some((option) =>
    /^(get|get-all|get-regexp|get-urlmatch|list|l|show-origin|show-scope|name-only)$/.test(option.name),
  );
  const [first] = parsed.operands;
  const verb = first && /^(get|list)$/.test(first.text);
  const sets =
    !reads &&
    !verb &&
    (parsed.operands.length >= 2 ||
      parsed.options.some((option) =>
        /^(unset|unset-all|add|replace-all|edit|e|rename-section|remove-section)$/.test(option.name),
      ));
  if (!sets) return;
  const file = optionValues(parsed, 'f', 'file')[0];
  if (file) effects.writes.push(at(file));
  else if (parsed.options.some((option) => option.name === 'global'))
    effects.writes.push(literalValue('~/.gitconfig'));
  else if (parsed.options.some((option) => option.name === 'system'))
    effects.writes.push(literalValue('/etc/gitconfig'));
}

/** `git checkout [tree-ish] -- PATHS`, `git checkout TREE PATHS`, `git restore PATHS`: those paths change. */
function pathsRestored(
  sub: string,
  rest: WordValue[],
  effects: FileEffects,
  at: (value: WordValue) => WordValue,
): void {
  const dash = rest.findIndex((arg) => arg.text === '--');
  const before = parseOptions(dash === -1 ? rest : rest.slice(0, dash), [
    'b',
    'B',
    's',
    'source',
    'orphan',
    'conflict',
  ]);
  const paths =
    dash !== -1 ? rest.slice(dash + 1) : sub === 'restore' ? before.operands : before.operands.slice(1);
  effects.writes.push(...paths.map(at));
}
