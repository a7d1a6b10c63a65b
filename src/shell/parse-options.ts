import { RUNTIME, type WordValue } from './shell-paths.js';

/** The arguments of a GNU-style command, options separated from operands. */
export interface ParsedArguments {
  operands: WordValue[];
  /** Every option given, by name (`r`, `recursive`), with its value when it takes one. */
  options: Array<{ name: string; value?: WordValue }>;
}

/**
 * Splits arguments the way GNU getopt does: options may follow operands, `--` ends them, short options
 * cluster (`-rf`), and an option named in `takesValue` (`t`, `target-directory`) takes the rest of its
 * cluster or the next argument (`-t DIR`, `-tDIR`, `--target-directory=DIR`, `--target-directory DIR`).
 * Arguments that start with run-time text are operands.
 */
export function parseOptions(args: WordValue[], takesValue: readonly string[] = []): ParsedArguments {
  const parsed: ParsedArguments = { operands: [], options: [] };
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    const text = arg.text;
    if (text === '--') {
      parsed.operands.push(...args.slice(index + 1));
      break;
    }
    if (!text.startsWith('-') || text === '-' || text.startsWith(RUNTIME)) {
      parsed.operands.push(arg);
    } else if (text.startsWith('--')) {
      const equals = text.indexOf('=');
      const name = text.slice(2, equals === -1 ? undefined : equals);
      if (equals !== -1) parsed.options.push({ name, value: { ...arg, text: text.slice(equals + 1) } });
      else if (takesValue.includes(name) && index + 1 < args.length)
        parsed.options.push({ name, value: args[++index]! });
      else parsed.options.push({ name });
    } else {
      index = shortCluster(args, index, takesValue, parsed);
    }
  }
  return parsed;
}

function shortCluster(
  args: WordValue[],
  index: number,
  takesValue: readonly string[],
  parsed: ParsedArguments,
): number {
  const arg = args[index]!;
  for (let at = 1; at < arg.text.length; at++) {
    const name = arg.text[at]!;
    if (!takesValue.includes(name)) {
      parsed.options.push({ name });
      continue;
    }
    const rest = arg.text.slice(at + 1);
    if (rest !== '') parsed.options.push({ name, value: { ...arg, text: rest } });
    else if (index + 1 < args.length) parsed.options.push({ name, value: args[++index]! });
    else parsed.options.push({ name });
    break;
  }
  return index;
}

/** Whether any of the named options was given. */
export function hasOption(parsed: ParsedArguments, ...names: string[]): boolean {
  return parsed.options.some((option) => names.includes(option.name));
}

/** The values given to any of the named options, in order. */
export function optionValues(parsed: ParsedArguments, ...names: string[]): WordValue[] {
  return parsed.options.flatMap((option) =>
    names.includes(option.name) && option.value ? [option.value] : [],
  );
}
