import type { TidyChanges } from '../tidy/check-tidy.js';
import type { FactLine } from '../tidy/fact-lines.js';
import type { DreamChunk } from './dream-chunks.js';

/** A chunk whose tidy was accepted: what checkTidy decided for it. */
export interface TidiedChunk {
  chunk: DreamChunk;
  changes: TidyChanges;
  /** Keys of the chunk's facts the answer keeps. */
  kept: readonly string[];
}

const same = (a: FactLine, text: string) => a.text.trim() === text.trim();

/**
 * MEMORY.md with the accepted chunks applied in place: a kept fact stays on its line (the first copy of a
 * repeated one), a merged line takes the place of its first source, every other fact of those chunks goes;
 * a blank line left next to another by a removal is dropped. Headings and other lines never move. Pure.
 */
export function spliceChunks(text: string, tidied: readonly TidiedChunk[]): string {
  const lines: Array<string | undefined> = text.split('\n');
  for (const { chunk, changes, kept } of tidied) {
    const keep = new Set(kept);
    const placed = new Set<TidyChanges['merged'][number]>();
    for (const fact of chunk.facts) {
      if (keep.delete(fact.key)) continue;
      const merge = changes.merged.find((candidate) => candidate.from.some((from) => same(fact, from)));
      if (merge && !placed.has(merge)) {
        placed.add(merge);
        lines[fact.position] = merge.into;
      } else lines[fact.position] = undefined;
    }
  }
  const out: string[] = [];
  let removed = false;
  for (const line of lines) {
    if (line === undefined) {
      removed = true;
      continue;
    }
    const blank = line.trim() === '';
    if (blank && removed && (out.length === 0 || out[out.length - 1]!.trim() === '')) continue;
    out.push(line);
    if (!blank) removed = false;
  }
  return out.join('\n');
}
