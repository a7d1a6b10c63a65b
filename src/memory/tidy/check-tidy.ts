import { factLine, normalizeFact } from '../memory-file.js';
import { type FactAge, isNewer, newestAge } from './fact-ages.js';
import { contentWords, type FactLine, negations, type ParsedMemory, parseMemory } from './fact-lines.js';

/** What a tidy changed, line by line (for HISTORY.md, the feed and undo). */
export interface TidyChanges {
  /** New lines, each from two or more old ones. */
  merged: Array<{ into: string; from: string[] }>;
  /**
   * Old lines dropped: said again by `by` (duplicate), contradicted by the newer `by` (superseded), or a
   * one-off whose dates are all past (stale: `by` is empty).
   */
  removed: Array<{ line: string; reason: 'duplicate' | 'superseded' | 'stale'; by: string }>;
}

export type TidyVerdict =
  | { ok: true; unchanged: true }
  | {
      ok: true;
      unchanged: false;
      text: string;
      changes: TidyChanges;
      /** The keys (normalizeFact) of the original items the answer keeps. */
      kept: string[];
    }
  | { ok: false; reason: string };

export interface CheckTidyOptions {
  before: string;
  /** The model's tidied file. */
  after: string;
  /** The age of each fact of `before`, in the order parseMemory lists them. */
  ages: readonly FactAge[];
  /** The model's word on which line replaces a dropped one (a hint: it must still be newer). */
  replacedBy?: ReadonlyArray<{ line: string; replacedBy: string }>;
  /** Keys (normalizeFact) of items that may be dropped as past one-offs (the caller checked their dates). */
  stale?: ReadonlySet<string>;
}

interface OutputFact {
  text: string;
  key: string;
  age: FactAge;
  words: Set<string>;
}

const quote = (text: string, max = 120) => {
  const line = text.replace(/^\s*(?:[-*+]|\d+[.)])\s+/, '').trim();
  return `"${line.length > max ? `${line.slice(0, max - 1)}…` : line}"`;
};

const overlap = (a: ReadonlySet<string>, b: ReadonlySet<string>) =>
  [...a].filter((word) => b.has(word)).length;

/**
 * Decides whether the model's tidied MEMORY.md may replace `before`, and builds the text to write. The tidy
 * may only merge facts and drop facts; it can add none. The rules:
 *
 * - Lines that are not list items (headings, notes, comments) stay exactly as they were, in order.
 * - Every list item of the answer is an existing item (compared as normalizeFact does; the original text is
 *   written back), or a merge: its sources are the dropped items it covers at least half of, it has two or
 *   more of them, every word of it (but connectors such as "and", "the") comes from them — so no new name,
 *   number, date, link, address or instruction — and it keeps every negation they have.
 * - Every other dropped item is either said by a remaining item (all its words are there: a duplicate),
 *   replaced by a newer item (see isNewer): the one the model named, or one that shares a word with it, or
 *   one of `stale` (a past one-off the caller vouched for).
 *
 * Pure; `ok: false` carries the first reason, for the owner.
 */
export function checkTidy(options: CheckTidyOptions): TidyVerdict {
  const before = parseMemory(options.before);
  const after = parseMemory(options.after);
  const structure = checkStructure(before.structure, after.structure);
  if (structure) return { ok: false, reason: structure };

  const originals = new Map<string, FactLine[]>();
  for (const fact of before.facts) originals.set(fact.key, [...(originals.get(fact.key) ?? []), fact]);
  const ageOf = (fact: FactLine) => options.ages[before.facts.indexOf(fact)] ?? { position: fact.position };

  const outputs: OutputFact[] = [];
  const merges: Array<{ fact: FactLine; words: Set<string> }> = [];
  const emitted = new Set<string>();
  for (const fact of after.facts) {
    if (emitted.has(fact.key)) continue;
    emitted.add(fact.key);
    const kept = originals.get(fact.key);
    const words = contentWords(fact.text);
    if (kept) outputs.push({ text: kept[0]!.text, key: fact.key, age: newestAge(kept.map(ageOf)), words });
    else merges.push({ fact, words });
  }

  const consumed = before.facts.filter((fact) => !emitted.has(fact.key));
  const changes: TidyChanges = { merged: [], removed: [] };
  const mergedAway = new Set<FactLine>();
  for (const { fact, words } of merges) {
    const problem = checkMerge(fact, words, consumed);
    if (typeof problem === 'string') return { ok: false, reason: problem };
    const into = factLine(fact.text);
    for (const source of problem) mergedAway.add(source);
    changes.merged.push({ into, from: problem.map((source) => source.text) });
    outputs.push({ text: into, key: fact.key, age: newestAge(problem.map(ageOf)), words });
  }

  const named = new Map(
    (options.replacedBy ?? []).map((item) => [normalizeFact(item.line), normalizeFact(item.replacedBy)]),
  );
  for (const fact of consumed) {
    if (mergedAway.has(fact)) continue;
    const removal = options.stale?.has(fact.key)
      ? { line: fact.text, reason: 'stale' as const, by: '' }
      : justifyRemoval(fact, ageOf(fact), outputs, named.get(fact.key));
    if (typeof removal === 'string') return { ok: false, reason: removal };
    changes.removed.push(removal);
  }
  // An item written twice and kept once: the second is a duplicate of the first.
  for (const [key, copies] of originals) {
    if (!emitted.has(key)) continue;
    for (const copy of copies.slice(1))
      changes.removed.push({ line: copy.text, reason: 'duplicate', by: copies[0]!.text });
  }
  if (changes.merged.length === 0 && changes.removed.length === 0) return { ok: true, unchanged: true };
  const kept = [...emitted].filter((key) => originals.has(key));
  return { ok: true, unchanged: false, text: render(before, after, outputs), changes, kept };
}

function checkStructure(before: readonly string[], after: readonly string[]): string | undefined {
  const added = after.find((line) => !before.includes(line));
  if (added !== undefined) return `it adds or changes a line that is not a list item: ${quote(added)}`;
  const removed = before.find((line) => !after.includes(line));
  if (removed !== undefined) return `it removes a line that is not a list item: ${quote(removed)}`;
  if (before.length !== after.length || before.some((line, index) => after[index] !== line))
    return 'it moves or repeats headings or notes (lines that are not list items)';
  return undefined;
}

/** The sources of a merged line, or why it is not a merge of existing lines. */
function checkMerge(fact: FactLine, words: Set<string>, consumed: FactLine[]): FactLine[] | string {
  if (words.size === 0) return `it adds an item with no content: ${quote(fact.text)}`;
  const sources = consumed.filter((candidate) => {
    const own = contentWords(candidate.text);
    return overlap(own, words) >= Math.max(1, Math.ceil(own.size / 2));
  });
  const known = new Set(sources.flatMap((source) => [...contentWords(source.text)]));
  const fresh = [...words].filter((word) => !known.has(word));
  if (fresh.length > 0) {
    const listed = fresh
      .slice(0, 5)
      .map((word) => `"${word}"`)
      .join(', ');
    return `it adds ${quote(fact.text)}, with words no line it could merge has (${listed}): the tidy may not add facts`;
  }
  if (new Set(sources.map((source) => source.key)).size < 2)
    return `it rewrites ${quote(sources[0]!.text)} as ${quote(fact.text)} instead of keeping it or merging it with another line`;
  const said = new Set(contentWords(fact.text));
  for (const source of sources) {
    const lost = [...negations(source.text)].find((word) => !said.has(word));
    if (lost) return `it drops "${lost}" from ${quote(source.text)} in ${quote(fact.text)}`;
  }
  return sources;
}

/** Why dropping `fact` is right (a remaining line says it, or a newer one replaces it), or why it is not. */
function justifyRemoval(
  fact: FactLine,
  age: FactAge,
  outputs: readonly OutputFact[],
  namedKey: string | undefined,
): TidyChanges['removed'][number] | string {
  const words = contentWords(fact.text);
  const saying = outputs.find((output) => [...words].every((word) => output.words.has(word)));
  if (saying) return { line: fact.text, reason: 'duplicate', by: saying.text };
  const named = outputs.find((output) => output.key === namedKey);
  const candidates = [
    ...(named ? [named] : []),
    ...outputs.filter((output) => output !== named && overlap(words, output.words) > 0),
  ];
  const winner = candidates.find((output) => isNewer(output.age, age));
  if (winner) return { line: fact.text, reason: 'superseded', by: winner.text };
  const older = named ? ` (${quote(named.text)}, which it names, is not newer)` : '';
  return `it drops ${quote(fact.text)}, which no newer line replaces${older}`;
}

/**
 * The file to write: the answer's order, each kept item as originally written, merges as plain bullets,
 * the original text of every other line; runs of blank lines left by removals become one.
 */
function render(before: ParsedMemory, after: ParsedMemory, outputs: OutputFact[]): string {
  const originalStructure = before.lines
    .filter((line) => !line.fact && line.text.trim())
    .map((line) => line.text.replace(/\s+$/, ''));
  const byKey = new Map(outputs.map((output) => [output.key, output.text]));
  const written = new Set<string>();
  const lines: string[] = [];
  let structureIndex = 0;
  for (const line of after.lines) {
    if (!line.fact) {
      if (line.text.trim()) lines.push(originalStructure[structureIndex++] ?? line.text);
      else if (lines.length > 0 && lines[lines.length - 1] !== '') lines.push('');
      continue;
    }
    const key = normalizeFact(line.text);
    if (written.has(key)) continue;
    written.add(key);
    lines.push(byKey.get(key)!);
  }
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return `${lines.join('\n')}\n`;
}
