import { parameterNames } from './shell-expansion.js';
import { literalValue, type Parameters, type WordValue } from './shell-paths.js';
import type { SimpleCommand } from './shell-script.js';
import type { KnownVariable } from './static-variables.js';

/**
 * The parameter values to check a command with, one map per check. A variable with only static values is
 * checked with each (and with the empty value when the command may run before it is set, `rm -rf "$d"/`
 * with `d` unset is `rm -rf /`); one that also gets run-time values is checked unknown first, then with
 * each static value. Values are zipped, not combined: every value of every variable is seen once.
 */
export function variablePasses(
  command: SimpleCommand,
  order: number,
  variables: ReadonlyMap<string, KnownVariable>,
  given: Parameters | undefined,
): Array<Parameters | undefined> {
  const words = [
    ...command.words,
    ...command.assignments,
    ...command.redirects.map((redirect) => redirect.target),
  ];
  const lists: Array<[string, Array<WordValue | undefined>]> = [];
  for (const name of new Set(words.flatMap((word) => parameterNames(word.parts)))) {
    const known = variables.get(name);
    if (!known || known.values.length === 0 || given?.has(name)) continue;
    const sure = known.sureFrom !== undefined && known.sureFrom < order;
    const values = known.dynamic
      ? [undefined, ...known.values]
      : [...known.values, ...(sure ? [] : [literalValue('')])];
    lists.push([name, values]);
  }
  if (lists.length === 0) return [given];
  const count = Math.max(...lists.map(([, values]) => values.length));
  return Array.from({ length: count }, (_, pass) => {
    const params = new Map(given ?? []);
    for (const [name, values] of lists) {
      const value = values[Math.min(pass, values.length - 1)];
      if (value) params.set(name, value);
    }
    return params;
  });
}

/** Variables of a script run by this shell later (`trap`), with those of the shell that runs it. */
export function mergeVariables(
  own: Map<string, KnownVariable>,
  inherited: ReadonlyMap<string, KnownVariable> | undefined,
): Map<string, KnownVariable> {
  for (const [name, outer] of inherited ?? []) {
    const mine = own.get(name);
    if (!mine)
      own.set(name, {
        values: outer.values,
        dynamic: outer.dynamic,
        ...(outer.sureFrom === undefined ? {} : { sureFrom: -1 }),
      });
    else own.set(name, { values: [...outer.values, ...mine.values], dynamic: outer.dynamic || mine.dynamic });
  }
  return own;
}
