import { ARCHIVE_PROGRAMS } from './archive-effects.js';
import { type DescribeEffects, type FileEffects, noEffects } from './file-effect-types.js';
import { gitEffects } from './git-effects.js';
import { hasOption, optionValues, parseOptions } from './parse-options.js';
import { SEARCH_PROGRAMS } from './search-effects.js';
import { literalValue, type WordValue } from './shell-paths.js';
import { programName } from './shell-programs.js';
import { TOOL_PROGRAMS } from './tool-effects.js';

/**
 * What running `name` with `args` does to files, for the programs that write, delete, link or read
 * recursively (everything else: no effects beyond reading its arguments). Never throws.
 */
export function fileEffects(name: string, args: WordValue[]): FileEffects {
  const effects = noEffects();
  describer(name)?.(args, effects);
  return effects;
}

/** Whether the analysis knows which files `name` writes, deletes and links (so no argument is a guess). */
export function describesEffects(name: string): boolean {
  return describer(name) !== undefined;
}

function describer(name: string): DescribeEffects | undefined {
  return name === 'git'
    ? gitEffects
    : (FILE_PROGRAMS[name] ?? ARCHIVE_PROGRAMS[name] ?? SEARCH_PROGRAMS[name] ?? TOOL_PROGRAMS[name]);
}

const TARGET = ['t', 'S', 'target-directory', 'suffix'];
const FIND_FILTERS =
  /^-(i?name|i?path|i?regex|type|newer\w*|[acm](time|min)|size|empty|user|group|perm|i?wholename)$/;

/** The destination of `cp`/`mv`/`install`: `-t DIR`, else the last operand (when there are two or more). */
function destination(args: WordValue[], values: readonly string[]) {
  const parsed = parseOptions(args, values);
  const folder = optionValues(parsed, 't', 'target-directory')[0];
  const sources = folder ? parsed.operands : parsed.operands.slice(0, -1);
  const target = folder ?? (parsed.operands.length > 1 ? parsed.operands.at(-1) : undefined);
  return { parsed, folder, sources, target };
}

function writeOperands(values: readonly string[]): DescribeEffects {
  return (args, effects) => {
    effects.writes.push(...parseOptions(args, values).operands);
  };
}

function deleteOperands(args: WordValue[], effects: FileEffects): void {
  for (const value of parseOptions(args).operands) effects.deletes.push({ value });
}

/** `chmod`/`chown`/`chgrp`: the first operand is the mode or owner unless `--reference` gives it. */
function changeOwnerOrMode(verb: string, isOption: (text: string) => boolean): DescribeEffects {
  return (args, effects) => {
    let recursive = false;
    let reference = false;
    const operands: WordValue[] = [];
    for (const arg of args) {
      if (arg.text.startsWith('--')) {
        recursive ||= arg.text === '--recursive';
        reference ||= arg.text.startsWith('--reference');
      } else if (isOption(arg.text)) recursive ||= arg.text.includes('R');
      else operands.push(arg);
    }
    const harmless = !reference && verb === 'recursive chmod' && harmlessMode(operands[0]?.text ?? '');
    for (const value of reference ? operands : operands.slice(1)) {
      effects.writes.push(value);
      if (recursive && !harmless) effects.recursiveChanges.push({ value, verb });
    }
  };
}

const ownerOptions = (text: string) => /^-[RcfvhHLP]+$/.test(text);

/** Sizes this large count as filling the disk. */
const DISK_FILL = 2 ** 30;

/** Bytes in a size such as `500G`, `10M`, `1KB`, `+2GiB` (K = 1024, KB = 1000); undefined when not one. */
export function sizeBytes(text: string): number | undefined {
  const match = /^\+?(\d+(?:\.\d+)?)(?:([kKMGTPE])(i?B)?)?$/.exec(text.trim());
  if (!match) return undefined;
  const power = match[2] ? 'KMGTPE'.indexOf(match[2].toUpperCase()) + 1 : 0;
  return Number(match[1]) * (match[3] === 'B' ? 1000 : 1024) ** power;
}

/** `fallocate -l SIZE FILE`, `truncate -s SIZE FILE`: writes FILE, and a size of a gigabyte or more fills the disk. */
function sized(name: string, sizes: string[], values: string[]): DescribeEffects {
  return (args, effects) => {
    const parsed = parseOptions(args, [...sizes, ...values]);
    effects.writes.push(...parsed.operands);
    const size = optionValues(parsed, ...sizes)[0];
    if (size && (sizeBytes(size.text) ?? 0) >= DISK_FILL)
      effects.signatures.push(`fills the disk (${name} ${size.text})`);
  };
}

/**
 * A mode change that cannot lock anyone out or open the files to others: adding the owner's permissions
 * (`u+w`) or taking group and others' away (`go-rwx`).
 */
function harmlessMode(mode: string): boolean {
  return mode
    .split(',')
    .every((clause) => /^u+[+=][rwxX]+$/.test(clause) || /^[go]+-[rwxXst]+$/.test(clause));
}

const FILE_PROGRAMS: Record<string, DescribeEffects> = {
  rm(args, effects) {
    const parsed = parseOptions(args);
    if (hasOption(parsed, 'no-preserve-root')) effects.signatures.push('rm --no-preserve-root');
    const recursive = hasOption(parsed, 'r', 'R', 'recursive');
    for (const value of parsed.operands)
      effects.deletes.push(recursive ? { value, verb: 'recursive delete' } : { value });
  },
  rmdir: deleteOperands,
  unlink: deleteOperands,
  shred(args, effects) {
    const parsed = parseOptions(args, ['n', 's', 'iterations', 'size', 'random-source']);
    effects.writes.push(...parsed.operands);
    if (hasOption(parsed, 'u', 'remove'))
      for (const value of parsed.operands) effects.deletes.push({ value });
  },
  mv(args, effects) {
    const { parsed, sources, target } = destination(args, TARGET);
    if (!target) return;
    effects.writes.push(target);
    for (const value of sources) effects.deletes.push({ value, verb: 'move', move: true });
    if (!hasOption(parsed, 'T', 'no-target-directory')) effects.into.push({ folder: target, sources });
    effects.linkCopies.push({ sources, target });
  },
  cp(args, effects) {
    const { parsed, folder, sources, target } = destination(args, TARGET);
    if (!target) return;
    effects.writes.push(target);
    if (!hasOption(parsed, 'T', 'no-target-directory')) effects.into.push({ folder: target, sources });
    const recursive = hasOption(parsed, 'r', 'R', 'a', 'recursive', 'archive');
    if (recursive) effects.recursiveReads.push(...sources);
    // GNU cp copies links as links with -P, -d, -a, and with -R unless -L or -H follows them.
    const keepsLinks = hasOption(parsed, 'P', 'd', 'a', 'no-dereference', 'archive') || recursive;
    if (keepsLinks && !hasOption(parsed, 'L', 'H', 'dereference'))
      effects.linkCopies.push({ sources, target });
    const symbolic = hasOption(parsed, 's', 'symbolic-link');
    if (!symbolic && !hasOption(parsed, 'l', 'link')) return;
    const where = folder || sources.length > 1 ? { folder: target } : { path: target };
    for (const source of sources) effects.links.push({ target: source, symbolic, ...where });
    if (symbolic) effects.notPaths.push(...sources);
  },
  install(args, effects) {
    const { parsed, target } = destination(args, [...TARGET, 'm', 'o', 'g', 'mode', 'owner', 'group']);
    if (hasOption(parsed, 'strip-program'))
      effects.unanalysable.push('install --strip-program runs a program');
    if (hasOption(parsed, 'd', 'directory')) effects.folders.push(...parsed.operands);
    else if (target) {
      effects.writes.push(target);
      effects.into.push({ folder: target, sources: destination(args, TARGET).sources });
    }
  },
  ln(args, effects) {
    const parsed = parseOptions(args, TARGET);
    const symbolic = hasOption(parsed, 's', 'symbolic');
    const folder = optionValues(parsed, 't', 'target-directory')[0];
    const operands = parsed.operands;
    let targets = operands;
    if (folder) effects.writes.push(folder);
    else if (operands.length === 1) effects.writes.push(literalValue('.'));
    else {
      targets = operands.slice(0, -1);
      effects.writes.push(operands.at(-1)!);
    }
    const where = folder
      ? { folder }
      : operands.length === 1
        ? { folder: literalValue('.') }
        : operands.length > 2
          ? { folder: operands.at(-1)! }
          : { path: operands.at(-1)! };
    for (const target of targets) effects.links.push({ target, symbolic, ...where });
    if (symbolic) effects.notPaths.push(...targets);
  },
  link(args, effects) {
    const [target, path] = parseOptions(args).operands;
    if (!target || !path) return;
    effects.writes.push(path);
    effects.links.push({ target, path, symbolic: false });
  },
  touch: writeOperands(['d', 't', 'r', 'date', 'reference']),
  mkdir(args, effects) {
    effects.folders.push(...parseOptions(args, ['m', 'mode', 'context']).operands);
  },
  mkfifo: writeOperands(['m', 'mode', 'context']),
  mknod(args, effects) {
    const first = parseOptions(args, ['m', 'mode', 'context']).operands[0];
    if (first) effects.writes.push(first);
  },
  truncate: sized('truncate', ['s', 'size'], ['r', 'reference']),
  fallocate: sized('fallocate', ['l', 'length'], ['o', 'offset']),
  tee: writeOperands([]),
  chmod: changeOwnerOrMode('recursive chmod', (text) => /^-[RcfvH]+$/.test(text)),
  chown: changeOwnerOrMode('recursive chown', ownerOptions),
  chgrp: changeOwnerOrMode('recursive chgrp', ownerOptions),
  chattr(args, effects) {
    for (const arg of args) if (!/^([-+=][a-zA-Z]+|\d+)$/.test(arg.text)) effects.writes.push(arg);
  },
  dd(args, effects) {
    effects.notPaths.push(...args);
    const operand = (key: string) =>
      args.find((arg) => arg.text.startsWith(`${key}=`))?.text.slice(key.length + 1);
    for (const arg of args) {
      const [, key, path] = /^(if|of)=(.+)$/.exec(arg.text) ?? [];
      if (path) (key === 'of' ? effects.writes : effects.reads).push({ ...arg, text: path });
    }
    const block = sizeBytes(operand('obs') ?? operand('bs') ?? '512') ?? 512;
    const count = operand('count');
    const endless = count === undefined && /^\/dev\/(zero|u?random)$/.test(operand('if') ?? '');
    const total = count === undefined ? 0 : (sizeBytes(count) ?? 0) * block;
    if (operand('of') && (endless || total >= DISK_FILL)) effects.signatures.push('fills the disk (dd)');
  },
  find: findEffects,
};

/** `find`: deletes (`-delete`, `-exec rm`), recursive reads (`-exec`), output files (`-fprint`). */
function findEffects(args: WordValue[], effects: FileEffects): void {
  const firstExpression = args.findIndex((arg) => /^[-(!]/.test(arg.text) && arg.text !== '-');
  const given = firstExpression === -1 ? args : args.slice(0, firstExpression);
  const starts = given.length > 0 ? given : [literalValue('.')];
  const expression = firstExpression === -1 ? [] : args.slice(firstExpression);
  let deletes = false;
  let runs = false;
  expression.forEach((arg, index) => {
    const next = expression[index + 1];
    if (arg.text === '-delete') deletes = true;
    if (/^-(exec|execdir|ok|okdir)$/.test(arg.text)) {
      runs = true;
      if (next && !next.dynamic && /^(rm|unlink|shred)$/.test(programName(next.text))) deletes = true;
    }
    if (/^-(fprint0?|fprintf|fls)$/.test(arg.text) && next) effects.writes.push(next);
  });
  if (runs) effects.recursiveReads.push(...starts);
  if (!deletes) return;
  const filtered = expression.some((arg) => FIND_FILTERS.test(arg.text));
  for (const value of starts) effects.deletes.push({ value, verb: 'recursive delete (find)', filtered });
}
