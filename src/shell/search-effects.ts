import type { DescribeEffects, FileEffects } from './file-effect-types.js';
import { hasOption, optionValues, parseOptions } from './parse-options.js';
import type { WordValue } from './shell-paths.js';

const GREP_VALUES = [
  ...['e', 'f', 'm', 'A', 'B', 'C', 'd', 'D', 'regexp', 'file', 'max-count', 'after-context'],
  ...['before-context', 'context', 'include', 'exclude', 'exclude-dir', 'label', 'directories', 'devices'],
  ...['binary-files', 'exclude-from', 'group-separator'],
];
const RG_VALUES = [
  ...['e', 'f', 'g', 't', 'T', 'm', 'A', 'B', 'C', 'M', 'j', 'E', 'r', 'd', 'regexp', 'file', 'glob'],
  ...['iglob', 'type', 'type-not', 'type-add', 'max-count', 'after-context', 'before-context', 'context'],
  ...['max-columns', 'threads', 'encoding', 'replace', 'ignore-file', 'max-depth', 'max-filesize'],
  ...['path-separator', 'pre', 'pre-glob', 'sort', 'sortr', 'colors', 'context-separator'],
];
const DIFF_VALUES = ['x', 'X', 'I', 'C', 'U', 'D', 'S', 'F', 'exclude', 'exclude-from', 'label'];

/** A searcher's paths: its operands after the pattern (the first operand, unless `-e`/`-f` gave one). */
function searchedPaths(args: WordValue[], values: readonly string[]) {
  const parsed = parseOptions(args, values);
  const patterned = optionValues(parsed, 'e', 'f', 'regexp', 'file').length > 0;
  return { parsed, paths: patterned ? parsed.operands : parsed.operands.slice(1) };
}

function grep(args: WordValue[], effects: FileEffects): void {
  const { parsed, paths } = searchedPaths(args, GREP_VALUES);
  const recursive =
    hasOption(parsed, 'r', 'R', 'recursive', 'dereference-recursive') ||
    optionValues(parsed, 'd', 'directories').some((value) => value.text === 'recurse');
  if (recursive) effects.recursiveReads.push(...paths);
}

/** Searchers that descend into folders by default. */
function recursiveSearcher(values: readonly string[]): DescribeEffects {
  return (args, effects) => {
    const { parsed, paths } = searchedPaths(args, values);
    if (hasOption(parsed, 'pre')) effects.unanalysable.push('rg --pre runs a program on every file');
    effects.recursiveReads.push(...paths);
  };
}

/** Searchers and comparers that read whole folders. */
export const SEARCH_PROGRAMS: Record<string, DescribeEffects> = {
  grep,
  egrep: grep,
  fgrep: grep,
  rg: recursiveSearcher(RG_VALUES),
  ag: recursiveSearcher(['G', 'm', 'A', 'B', 'C', 'p', 'file-search-regex', 'max-count', 'path-to-ignore']),
  ack: recursiveSearcher(['m', 'A', 'B', 'C', 'type', 'max-count', 'ignore-dir', 'ignore-file']),
  diff(args, effects) {
    const parsed = parseOptions(args, DIFF_VALUES);
    if (hasOption(parsed, 'r', 'recursive')) effects.recursiveReads.push(...parsed.operands);
  },
};
