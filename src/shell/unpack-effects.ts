import { from } from './archive-effects.js';
import type { DescribeEffects, FileEffects } from './file-effect-types.js';
import { hasOption, optionValues, parseOptions } from './parse-options.js';
import { literalValue, RUNTIME, type WordValue } from './shell-paths.js';

/** `7z x|e ARCHIVE [members] [-oDIR]`, `7z a ARCHIVE files…`: extraction into DIR, or the archive written. */
function sevenZip(args: WordValue[], effects: FileEffects): void {
  const [command, archive, ...rest] = args.filter((arg) => !arg.text.startsWith('-'));
  const output = args.find((arg) => arg.text.startsWith('-o'));
  const folder = output ? { ...output, text: output.text.slice(2) } : undefined;
  if (!command || !archive) return;
  if (command.text === 'x' || command.text === 'e') {
    if (rest.length > 0) effects.writes.push(...rest.map((member) => from(folder, member)));
    else effects.unpacks.push(folder ?? literalValue('.'));
    if (folder) effects.writes.push(folder);
  } else if (/^[aud]$|^rn$/.test(command.text)) {
    effects.writes.push(archive);
    effects.recursiveReads.push(...rest);
  }
}

/**
 * `cpio -i` extracts into `-D DIR` (or here); `-o` and `-p` read the files named on standard input,
 * which are only known at run time.
 */
function cpio(args: WordValue[], effects: FileEffects): void {
  const parsed = parseOptions(args, ['D', 'F', 'O', 'I', 'H', 'R', 'E', 'M', 'directory', 'file', 'format']);
  const folder = optionValues(parsed, 'D', 'directory')[0];
  if (hasOption(parsed, 'i', 'extract')) {
    if (!hasOption(parsed, 't', 'list', 'to-stdout')) effects.unpacks.push(folder ?? literalValue('.'));
  } else if (hasOption(parsed, 'o', 'create', 'p', 'pass-through')) {
    effects.unanalysable.push('cpio reads the files named on its standard input');
    effects.writes.push(...optionValues(parsed, 'F', 'O', 'file'), ...parsed.operands);
  }
}

/** `cmake -E copy|rename|rm|make_directory|touch|create_symlink|tar …`; `chdir`/`env`/`time` run commands. */
function cmake(args: WordValue[], effects: FileEffects): void {
  if (args[0]?.text !== '-E') return;
  const [command, ...rest] = args.slice(1);
  const verb = command?.text ?? '';
  const operands = rest.filter((arg) => !arg.text.startsWith('-'));
  const recursive = rest.some((arg) => /^-[a-zA-Z]*r/.test(arg.text));
  if (/^copy(_if_different|_directory|_directory_if_different)?$/.test(verb) && operands.length >= 2) {
    const target = operands.at(-1)!;
    effects.writes.push(target);
    effects.into.push({ folder: target, sources: operands.slice(0, -1) });
  } else if (verb === 'rename' && operands.length === 2) {
    effects.deletes.push({ value: operands[0]!, verb: 'move', move: true });
    effects.writes.push(operands[1]!);
  } else if (verb === 'rm' || verb === 'remove' || verb === 'remove_directory') {
    const how = recursive || verb === 'remove_directory' ? { verb: 'recursive delete' } : {};
    for (const value of operands) effects.deletes.push({ value, ...how });
  } else if (/^(make_directory|touch|touch_nocreate)$/.test(verb)) effects.writes.push(...operands);
  else if ((verb === 'create_symlink' || verb === 'create_hardlink') && operands.length === 2)
    effects.links.push({ target: operands[0]!, path: operands[1]!, symbolic: verb === 'create_symlink' });
  else if (verb === 'tar' && /x/.test(operands[0]?.text ?? '')) effects.unpacks.push(literalValue('.'));
  else if (/^(chdir|env|time)$/.test(verb)) effects.unanalysable.push(`cmake -E ${verb} runs a command`);
}

/**
 * `rename`: Perl's (`rename 's/a/b/' FILES`, an expression) or util-linux's (`rename FROM TO FILES`). Each
 * file is moved to its new name, computed when the expression is a plain substitution; other Perl code is
 * unanalysable.
 */
function rename(args: WordValue[], effects: FileEffects): void {
  const parsed = parseOptions(args, ['e', 'E']);
  const [first, second, ...rest] = parsed.operands;
  if (!first) return;
  // Perl's takes an expression (`s/a/b/`, or any code); util-linux's FROM is plain text.
  const code = /^(s|y|tr)\W/.test(first.text) || /[(){};$`@]/.test(first.text) || first.dynamic;
  const perl = optionValues(parsed, 'e', 'E')[0] ?? (code ? first : undefined);
  const names = perl ? parsed.operands.filter((operand) => operand !== perl) : rest;
  if (perl && !/^s(.)(?:(?!\1)[^\\]|\\.)*\1(?:(?!\1)[^\\]|\\.)*\1[gi]*$/.test(perl.text)) {
    effects.unanalysable.push('rename running a Perl expression');
    return;
  }
  if (perl) effects.notPaths.push(perl);
  else if (second) effects.notPaths.push(first, second);
  for (const name of names) {
    effects.deletes.push({ value: name, verb: 'move', move: true });
    effects.writes.push(renamed(name, perl?.text, first.text, second?.text ?? ''));
  }
}

/** The new name of `name` under `s/x/y/` or util-linux's FROM → TO; run-time text when it cannot be known. */
function renamed(name: WordValue, expression: string | undefined, from: string, to: string): WordValue {
  if (name.dynamic || name.glob) return { ...name, text: `${name.text}${RUNTIME}`, dynamic: true };
  if (!expression) return { ...name, text: name.text.replace(from, to) };
  const delimiter = expression[1]!;
  const [, pattern = '', replacement = '', flags = ''] = expression.split(delimiter);
  try {
    const regex = new RegExp(pattern, flags.replace('g', '') + (flags.includes('g') ? 'g' : ''));
    return { ...name, text: name.text.replace(regex, replacement.replace(/\\(\d)/g, '$$$1')) };
  } catch {
    return { ...name, text: `${name.text}${RUNTIME}`, dynamic: true };
  }
}

/** Extractors and file movers beyond tar and unzip. */
export const UNPACK_PROGRAMS: Record<string, DescribeEffects> = {
  '7z': sevenZip,
  '7za': sevenZip,
  '7zr': sevenZip,
  '7zz': sevenZip,
  cpio,
  cmake,
  rename,
  prename: rename,
  'file-rename': rename,
  'perl-rename': rename,
};
