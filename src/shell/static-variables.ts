import { expandBraces } from './brace-expansion.js';
import type { Word, WordPart } from './shell-lexer.js';
import { evaluateWord, literalValue, MKTEMP_FOLDER, type WordValue } from './shell-paths.js';
import { ROOT_SCOPE, type ShellScript, type SimpleCommand } from './shell-script.js';
import { literalOf } from './shell-tokens.js';

/** Builtins that assign variables from their arguments (`export NAME=value`). */
export const DECLARATIONS = new Set(['export', 'declare', 'typeset', 'local', 'readonly']);
/** More static values than this for one name and it counts as known only at run time (bounds the passes). */
const MAX_VALUES = 16;

/** What the script can give one variable. */
export interface KnownVariable {
  /** Its static values (`f=/etc/x`, `for f in a b`), at most MAX_VALUES. */
  values: WordValue[];
  /** Some binding gives it a value only known at run time (`f=$(…)`, `read f`, a loop over `$(…)`). */
  dynamic: boolean;
  /** The index of the first command from which it is surely set (an assignment every run passes). */
  sureFrom?: number;
}

/**
 * The values a script gives each variable, wherever the binding is: assignments (`f=x`, `export f=x`),
 * `for f in …` lists, `unset f` (empty), and the bindings only known at run time (`read`, `mapfile`,
 * `printf -v`, `getopts`, namerefs, `${f:=…}`, `$(…)`, and every variable once the script runs `source`).
 * `$(mktemp -d)` stands for a fresh folder of its own in /tmp.
 */
export function staticVariables(script: ShellScript): Map<string, KnownVariable> {
  const variables = new Map<string, KnownVariable>();
  const entry = (name: string) => {
    const known = variables.get(name) ?? { values: [], dynamic: false };
    variables.set(name, known);
    return known;
  };
  const bind = (name: string, value: WordValue | undefined, sure?: number) => {
    const known = entry(name);
    if (!value || value.dynamic) known.dynamic = true;
    else if (!known.values.some((other) => other.text === value.text)) {
      if (known.values.length >= MAX_VALUES) known.dynamic = true;
      else known.values.push(value);
    }
    if (sure !== undefined && known.sureFrom === undefined) known.sureFrom = sure;
  };
  let sources = false;
  for (const [index, command] of script.commands.entries()) {
    const sure = surelyRuns(command) ? index : undefined;
    sources ||= bindingsOf(command, sure, bind);
  }
  for (const loop of script.loops) {
    const values = loop.words?.flatMap((word) =>
      (expandBraces(word) ?? [undefined]).map((w) => w && evaluateWord(w)),
    );
    if (!values || loop.select || values.length === 0) bind(loop.name, undefined);
    else for (const value of values) bind(loop.name, value, -1);
  }
  for (const word of script.words) for (const name of assignedDefaults(word.parts)) bind(name, undefined);
  if (sources) for (const known of variables.values()) known.dynamic = true;
  return variables;
}

/** Whether every run of the script passes this command: at its own level, not in a branch, loop or function. */
function surelyRuns(command: SimpleCommand): boolean {
  return (
    command.scope === ROOT_SCOPE && !command.conditional && !command.inLoop && command.functions.length === 0
  );
}

type Bind = (name: string, value: WordValue | undefined, sure?: number) => void;

/** The bindings one command makes; true when it sources a file (which may set anything). */
function bindingsOf(command: SimpleCommand, sure: number | undefined, bind: Bind): boolean {
  const [first, ...rest] = command.words;
  const head = first ? evaluateWord(first).text : undefined;
  if (head === undefined) {
    for (const word of command.assignments) assignment(word, sure, bind);
    return false;
  }
  const texts = rest.map((word) => evaluateWord(word).text);
  if (DECLARATIONS.has(head)) {
    const nameref = texts.some((text) => /^[-+][a-zA-Z]*n/.test(text));
    for (const word of rest) {
      const text = evaluateWord(word).text;
      const name = /^([A-Za-z_]\w*)=/.exec(text)?.[1];
      if (nameref && name) bind(name, undefined);
      else if (!text.startsWith('-')) assignment(word, sure, bind);
    }
  } else if (head === 'unset') for (const name of names(texts, /^$/)) bind(name, literalValue(''));
  else for (const name of runTimeBindings(head, texts)) bind(name, undefined);
  return head === 'source' || head === '.';
}

/** The variables a builtin sets from input (`read a b`, `mapfile lines`, `printf -v out`, `getopts o opt`). */
export function runTimeBindings(head: string, texts: string[]): string[] {
  if (head === 'read') return names(texts, /^-[adinNptu]$/);
  if (head === 'mapfile' || head === 'readarray') return names(texts, /^-[dnOsuCc]$/);
  if (head === 'printf' && texts[0] === '-v' && texts[1]) return [texts[1]];
  if (head === 'getopts' && texts[1]) return [texts[1]];
  return [];
}

function names(texts: string[], takesValue: RegExp): string[] {
  return operandsAfter(texts, takesValue).filter((text) => /^[A-Za-z_]\w*$/.test(text));
}

/** Operands, skipping options and the value after an option matching `takesValue`. */
function operandsAfter(texts: string[], takesValue: RegExp): string[] {
  const operands: string[] = [];
  for (let index = 0; index < texts.length; index++) {
    const text = texts[index]!;
    if (takesValue.test(text)) index++;
    else if (!text.startsWith('-')) operands.push(text);
  }
  return operands;
}

function assignment(word: Word, sure: number | undefined, bind: Bind): void {
  const value = evaluateWord(word);
  const match = /^([A-Za-z_]\w*)(\+?)=(.*)$/s.exec(value.text);
  if (!match) return;
  const [, name, append, text] = match as unknown as [string, string, string, string];
  if (append) bind(name, undefined);
  else if (mktemp(word)) bind(name, literalValue(MKTEMP_FOLDER), sure);
  else bind(name, value.dynamic ? undefined : literalValue(text), sure);
}

/** `NAME=$(mktemp [-d] [-q] [TEMPLATE])`: a fresh file or folder in /tmp. */
function mktemp(word: Word): boolean {
  const [name, substitution, ...rest] = word.parts;
  if (name?.type !== 'lit' || substitution?.type !== 'command' || rest.length > 0) return false;
  const words = substitution.tokens.map((token) =>
    token.kind === 'word' ? literalOf(token.word) : undefined,
  );
  const [program, ...args] = words;
  return (
    program === 'mktemp' &&
    args.every((arg) => arg !== undefined && /^(-[dqu]+|--directory|--quiet|[\w.-]*X{3,})$/.test(arg))
  );
}

/** Names assigned by `${NAME:=…}` / `${NAME=…}` anywhere in the parts. */
function assignedDefaults(parts: WordPart[]): string[] {
  return parts.flatMap((part) => {
    if (part.type === 'param') {
      const first = part.inner[0];
      const assigns = first?.type === 'lit' && /^:?=/.test(first.value);
      return [...(assigns ? [part.name] : []), ...assignedDefaults(part.inner)];
    }
    if (part.type === 'array') return part.words.flatMap((word) => assignedDefaults(word.parts));
    return [];
  });
}
