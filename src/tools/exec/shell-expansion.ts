import type { ShellScript } from './shell-commands.js';
import type { Word, WordPart } from './shell-lexer.js';
import {
  evaluateWord,
  evaluateWordWith,
  literalValue,
  type Parameters,
  type WordValue,
} from './shell-paths.js';

/** Builtins that assign variables from their arguments (`export NAME=value`). */
export const DECLARATIONS = new Set(['export', 'declare', 'typeset', 'local', 'readonly']);

/** A function body, an alias's text or known variable values applied to commands, in the caller's scope. */
export interface Expansion {
  /** `$1` … for a function called with arguments; known values of variables. */
  params?: Parameters;
  /** `"$@"`: the call's arguments. */
  args?: WordValue[];
  /** Maps the scope a command was walked in to the scope it runs in. */
  scope: (scope: string) => string;
}

/** Word values, with `"$@"` standing for the arguments of the function being expanded. */
export function expandWords(words: Word[], expansion: Expansion | undefined): WordValue[] {
  return words.flatMap((word) => {
    const [part] = word.parts;
    const all = word.parts.length === 1 && part?.type === 'param' && part.plain && /^[@*]$/.test(part.name);
    return all && expansion?.args ? expansion.args : [evaluateWordWith(word, expansion?.params)];
  });
}

/** Moves scopes under `from` to under `to` (a function body or an alias text run by a caller). */
export function rebase(from: string, to: string, tag: string): (scope: string) => string {
  return (scope) =>
    scope === from ? to : scope.startsWith(`${from}.`) ? `${to}.${tag}${scope.slice(from.length)}` : scope;
}

/** Whether the parts mention `$IFS` anywhere. */
export function mentionsIfs(parts: WordPart[]): boolean {
  return parts.some(
    (part) =>
      (part.type === 'param' && (part.name === 'IFS' || mentionsIfs(part.inner))) ||
      (part.type === 'array' && part.words.some((word) => mentionsIfs(word.parts))),
  );
}

/** The parameters the parts use as a whole (`$f`, `${f}`), where a known value can stand. */
export function parameterNames(parts: WordPart[]): string[] {
  return parts.flatMap((part) =>
    part.type === 'param'
      ? [...(part.plain ? [part.name] : []), ...parameterNames(part.inner)]
      : part.type === 'array'
        ? part.words.flatMap((word) => parameterNames(word.parts))
        : [],
  );
}

/**
 * The static values the script assigns to each variable (`f=/etc/x`, `export f=/etc/x`), wherever the
 * assignment is (at most four per name). A command using `$f` is checked again with each, besides the check
 * with `$f` unknown, so a conditional or subshell assignment can only add findings.
 */
export function staticVariables(script: ShellScript): Map<string, WordValue[]> {
  const variables = new Map<string, WordValue[]>();
  for (const command of script.commands) {
    const head = command.words[0] ? evaluateWord(command.words[0]) : undefined;
    const words =
      head === undefined ? command.assignments : DECLARATIONS.has(head.text) ? command.words.slice(1) : [];
    for (const word of words) {
      const value = evaluateWord(word);
      const match = /^([A-Za-z_]\w*)=(.*)$/s.exec(value.text);
      if (!match || value.dynamic) continue;
      const [, name, text] = match as unknown as [string, string, string];
      const known = variables.get(name) ?? [];
      if (!known.some((other) => other.text === text) && known.length < 4) known.push(literalValue(text));
      variables.set(name, known);
    }
  }
  return variables;
}
