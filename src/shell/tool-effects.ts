import { readAwk } from './awk-program.js';
import type { DescribeEffects, FileEffects } from './file-effect-types.js';
import { hasOption, optionValues, parseOptions } from './parse-options.js';
import { readSed } from './sed-script.js';
import { literalValue, type WordValue } from './shell-paths.js';
import { UNPACK_PROGRAMS } from './unpack-effects.js';

/** Output paths that are files (`-` is standard output). */
function files(values: readonly (WordValue | undefined)[]): WordValue[] {
  return values.filter((value): value is WordValue => value !== undefined && value.text !== '-');
}

/** A program whose named options give the files it writes (`iconv -o FILE`, `gpg --output FILE`). */
function outputOptions(values: readonly string[], outputs: readonly string[]): DescribeEffects {
  return (args, effects) => {
    effects.writes.push(...files(optionValues(parseOptions(args, [...values, ...outputs]), ...outputs)));
  };
}

/** `uniq IN OUT`, `xxd [-r] IN OUT`: the second operand is written. */
function secondOperand(values: readonly string[]): DescribeEffects {
  return (args, effects) => {
    effects.writes.push(...files([parseOptions(args, values).operands[1]]));
  };
}

/** Programs that change the files they are given (`dos2unix FILE`, `sponge FILE`). */
function inPlace(values: readonly string[] = []): DescribeEffects {
  return (args, effects) => {
    effects.writes.push(...files(parseOptions(args, values).operands));
  };
}

const SED_VALUES = ['e', 'f', 'l', 'expression', 'file', 'line-length'];

/** `sed`: `-i` edits its files; the program's `w`/`r` files and `e` commands count too (not in `--sandbox`). */
function sed(args: WordValue[], effects: FileEffects): void {
  const inPlaceOption = (text: string) => /^-[a-zA-Z]*i/.test(text) || /^--in-place(=|$)/.test(text);
  const parsed = parseOptions(
    args.filter((arg) => !inPlaceOption(arg.text)),
    SED_VALUES,
  );
  if (optionValues(parsed, 'f', 'file').length > 0)
    effects.unanalysable.push('sed running a program from a file');
  const expressions = optionValues(parsed, 'e', 'expression');
  const scripts = expressions.length > 0 ? expressions : parsed.operands.slice(0, 1);
  const inputs = expressions.length > 0 ? parsed.operands : parsed.operands.slice(1);
  if (args.some((arg) => inPlaceOption(arg.text))) effects.writes.push(...inputs);
  effects.notPaths.push(...scripts);
  if (hasOption(parsed, 'sandbox')) return;
  for (const script of scripts) {
    if (script.dynamic) {
      effects.unanalysable.push('a sed program built at run time');
      continue;
    }
    const program = readSed(script.text);
    if (program.unreadable)
      effects.unanalysable.push(`a sed program Wren cannot read (${program.unreadable})`);
    if (program.runsText) effects.unanalysable.push('sed running the text it edits as commands (e)');
    effects.writes.push(...program.writes.map((file) => ({ ...script, text: file })));
    effects.reads.push(...program.reads.map((file) => ({ ...script, text: file })));
    for (const command of program.commands)
      effects.commands.push({ script: literalValue(command), where: 'sed e' });
  }
}

const AWK_VALUES = [
  'F',
  'v',
  'f',
  'E',
  'i',
  'l',
  'W',
  'field-separator',
  'assign',
  'file',
  'exec',
  'include',
  'load',
];

/** `awk`: the program's redirections and commands; a program from a file or a loaded extension is unknown. */
function awk(args: WordValue[], effects: FileEffects): void {
  const parsed = parseOptions(args, AWK_VALUES);
  if (optionValues(parsed, 'f', 'E', 'i', 'l', 'file', 'exec', 'include', 'load').length > 0) {
    effects.unanalysable.push('awk running a program from a file');
    return;
  }
  const program = parsed.operands[0];
  if (!program) return;
  effects.notPaths.push(program);
  if (program.dynamic) {
    effects.unanalysable.push('an awk program built at run time');
    return;
  }
  const found = readAwk(program.text);
  effects.unanalysable.push(...found.unanalysable);
  effects.writes.push(...found.writes.map((file) => ({ ...program, text: file })));
  effects.reads.push(...found.reads.map((file) => ({ ...program, text: file })));
}

/** `patch [ORIGINAL [PATCH]]`: writes ORIGINAL, `-o OUT`, or the files the patch names under `-d DIR`. */
function patch(args: WordValue[], effects: FileEffects): void {
  const values = ['i', 'o', 'd', 'p', 'D', 'F', 'B', 'Y', 'z', 'r', 'V', 'g', 'input', 'output', 'directory'];
  const parsed = parseOptions(args, [...values, 'strip', 'ifdef', 'fuzz', 'prefix', 'suffix', 'reject-file']);
  if (hasOption(parsed, 'dry-run')) return;
  const folder = optionValues(parsed, 'd', 'directory')[0];
  const inside = (value: WordValue) =>
    folder && !/^[/~]/.test(value.text) ? { ...value, text: `${folder.text}/${value.text}` } : value;
  effects.writes.push(...files(optionValues(parsed, 'r', 'reject-file')).map(inside));
  const output = files(optionValues(parsed, 'o', 'output'));
  const [original] = parsed.operands;
  if (output.length > 0) effects.writes.push(...output.map(inside));
  else if (original) effects.writes.push(inside(original));
  else effects.unpacks.push(folder ?? literalValue('.'));
}

/** `split [INPUT [PREFIX]]`, `csplit -f PREFIX`: files named PREFIX followed by a suffix. */
function prefixed(prefix: WordValue | undefined, fallback: string, effects: FileEffects): void {
  const value = prefix ?? literalValue(fallback);
  effects.writes.push({ ...value, text: `${value.text}*`, glob: true });
}

/** Compilers and linkers: `-o FILE` (or `-oFILE`); `-B DIR`, `-wrapper` and plugins run other programs. */
function compiler(args: WordValue[], effects: FileEffects): void {
  args.forEach((arg, index) => {
    if (arg.text === '-o' && args[index + 1]) effects.writes.push(args[index + 1]!);
    else if (/^-o./.test(arg.text)) effects.writes.push({ ...arg, text: arg.text.slice(2) });
    else if (arg.text.startsWith('--output=')) effects.writes.push({ ...arg, text: arg.text.slice(9) });
    if (/^(-B|-wrapper$|-fplugin|--plugin|-specs)/.test(arg.text))
      effects.unanalysable.push(`a compiler option that runs another program (${arg.text})`);
  });
}

/** `yq -i EXPR FILE…` edits the files (`yq eval -i …` too). */
function yq(args: WordValue[], effects: FileEffects): void {
  const parsed = parseOptions(args, ['I', 'indent', 'o', 'output-format', 'p', 'input-format', 'from-file']);
  if (!hasOption(parsed, 'i', 'inplace')) return;
  const operands = parsed.operands.filter(
    (operand, index) => index > 0 || !/^(e|eval|ea|eval-all)$/.test(operand.text),
  );
  effects.writes.push(...operands.slice(hasOption(parsed, 'from-file') ? 0 : 1));
}

/** ImageMagick: the last word is the output (`convert in.png out.png`, `-write FILE` too). */
function imageOutput(args: WordValue[], effects: FileEffects): void {
  args.forEach((arg, index) => {
    if (arg.text === '-write' && args[index + 1]) effects.writes.push(args[index + 1]!);
  });
  const last = args.at(-1);
  if (args.length >= 2 && last && !last.text.startsWith('-')) effects.writes.push(last);
}

/** `openssl … -out FILE -keyout FILE`. */
function openssl(args: WordValue[], effects: FileEffects): void {
  args.forEach((arg, index) => {
    if (/^-(out|keyout|certout|signature)$/.test(arg.text) && args[index + 1])
      effects.writes.push(args[index + 1]!);
  });
}

const COMPILERS = ['gcc', 'g++', 'cc', 'c++', 'clang', 'clang++', 'tcc', 'gfortran', 'rustc', 'as', 'nasm'];
const LINKERS = ['ld', 'ld.lld', 'ld.gold', 'ld.bfd', 'lld', 'mold'];

/** Text, build and media tools that write files named in their arguments. */
export const TOOL_PROGRAMS: Record<string, DescribeEffects> = {
  sed,
  gsed: sed,
  awk,
  gawk: awk,
  mawk: awk,
  nawk: awk,
  patch,
  uniq: secondOperand(['f', 's', 'w', 'skip-fields', 'skip-chars', 'check-chars']),
  xxd: secondOperand(['c', 'g', 'l', 'o', 's', 'n', 'R']),
  sdiff: outputOptions(['w', 'I', 'width', 'ignore-matching-lines', 'diff-program'], ['o', 'output']),
  iconv: outputOptions(['f', 't', 'from-code', 'to-code'], ['o', 'output']),
  gpg: outputOptions(['u', 'r', 'local-user', 'recipient', 'default-key', 'homedir'], ['o', 'output']),
  gpg2: outputOptions(['u', 'r', 'local-user', 'recipient', 'default-key', 'homedir'], ['o', 'output']),
  openssl,
  split(args, effects) {
    const parsed = parseOptions(args, ['a', 'b', 'C', 'l', 'n', 't', 'additional-suffix', 'filter']);
    if (hasOption(parsed, 'filter')) effects.unanalysable.push('split --filter runs a command');
    prefixed(parsed.operands[1], 'x', effects);
  },
  csplit(args, effects) {
    const parsed = parseOptions(args, ['b', 'f', 'n', 'suffix-format', 'prefix', 'digits']);
    prefixed(optionValues(parsed, 'f', 'prefix')[0], 'xx', effects);
  },
  yq,
  dos2unix: inPlace(),
  unix2dos: inPlace(),
  mac2unix: inPlace(),
  unix2mac: inPlace(),
  sponge: inPlace(),
  ...Object.fromEntries([...COMPILERS, ...LINKERS].map((name) => [name, compiler])),
  convert: imageOutput,
  magick: imageOutput,
  montage: imageOutput,
  composite: imageOutput,
  mogrify: inPlace(['resize', 'format', 'quality', 'path']),
  ...UNPACK_PROGRAMS,
};
