import { expandBraces } from './brace-expansion.js';
import type { Word, WordPart } from './shell-lexer.js';
import { evaluateWordWith, type Parameters, RUNTIME, type WordValue } from './shell-paths.js';

export { DECLARATIONS } from './static-variables.js';

/** A function body, an alias's text or known variable values applied to commands, in the caller's scope. */
export interface Expansion {
  /** `$1` … for a function called with arguments; known values of variables. */
  params?: Parameters;
  /** `"$@"`: the call's arguments. */
  args?: WordValue[];
  /** Maps the scope a command was walked in to the scope it runs in. */
  scope: (scope: string) => string;
}

/**
 * Word values after brace expansion (`{a,b}` gives two), with `"$@"` standing for the arguments of the
 * function being expanded.
 */
export function expandWords(words: Word[], expansion: Expansion | undefined): WordValue[] {
  return words.flatMap((word) => {
    const [part] = word.parts;
    const all = word.parts.length === 1 && part?.type === 'param' && part.plain && /^[@*]$/.test(part.name);
    return all && expansion?.args ? expansion.args : evaluateWords(word, expansion?.params);
  });
}

/** The values of one word after brace expansion; too many alternatives make it run-time text. */
export function evaluateWords(word: Word, params?: Parameters): WordValue[] {
  const words = expandBraces(word);
  if (!words) return [{ text: RUNTIME, dynamic: true, ifs: false, process: false, source: word }];
  return words.map((each) => evaluateWordWith(each, params));
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
