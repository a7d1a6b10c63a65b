/**
 * How Dream splits MEMORY.md into model calls: facts that share a distinctive word (and so may repeat or
 * contradict each other) go in the same chunk; chunks hold at most `maxTokens` of facts. Pure.
 */
import { createHash } from 'node:crypto';
import { estimateTokens } from '../../llm/token-estimate.js';
import { contentWords, type FactLine } from '../tidy/fact-lines.js';

export interface DreamChunk {
  /** Indexes into the file's facts (parseMemory order), ascending. */
  indexes: number[];
  facts: FactLine[];
  /** What the model sees: the chunk's facts, one per line, in file order. */
  text: string;
  /** SHA-256 of `text` (a chunk looked at before and unchanged is not sent again). */
  hash: string;
}

/** A word in more facts than this share (or in 8 or more) links nothing: "owner", "likes". */
const COMMON_SHARE = 0.2;
const COMMON_COUNT = 8;

/** Groups of fact indexes that share a distinctive word, transitively (union-find), by first fact. */
function relatedGroups(facts: readonly FactLine[]): number[][] {
  const parent = facts.map((_, index) => index);
  const find = (index: number): number => {
    while (parent[index] !== index) {
      parent[index] = parent[parent[index]!]!;
      index = parent[index]!;
    }
    return index;
  };
  const byWord = new Map<string, number[]>();
  facts.forEach((fact, index) => {
    for (const word of contentWords(fact.text)) byWord.set(word, [...(byWord.get(word) ?? []), index]);
  });
  const common = Math.min(COMMON_COUNT, Math.max(2, Math.ceil(facts.length * COMMON_SHARE)));
  for (const holders of byWord.values()) {
    if (holders.length < 2 || holders.length > common) continue;
    const root = find(holders[0]!);
    for (const other of holders.slice(1)) parent[find(other)] = root;
  }
  const groups = new Map<number, number[]>();
  facts.forEach((_, index) => {
    const root = find(index);
    groups.set(root, [...(groups.get(root) ?? []), index]);
  });
  return [...groups.values()].sort((a, b) => a[0]! - b[0]!);
}

const chunkOf = (facts: readonly FactLine[], indexes: number[]): DreamChunk => {
  const sorted = [...indexes].sort((a, b) => a - b);
  const text = `${sorted.map((index) => facts[index]!.text.trim()).join('\n')}\n`;
  return {
    indexes: sorted,
    facts: sorted.map((index) => facts[index]!),
    text,
    hash: createHash('sha256').update(text).digest('hex'),
  };
};

/**
 * The chunks of `facts`: related groups packed first-fit in file order into chunks of at most `maxTokens`
 * (a group larger than that is cut into consecutive pieces). Every fact is in exactly one chunk.
 */
export function dreamChunks(facts: readonly FactLine[], maxTokens: number): DreamChunk[] {
  const cost = (index: number) => estimateTokens(facts[index]!.text) + 1;
  const pieces: number[][] = [];
  for (const group of relatedGroups(facts)) {
    let piece: number[] = [];
    let used = 0;
    for (const index of group) {
      if (piece.length > 0 && used + cost(index) > maxTokens) {
        pieces.push(piece);
        piece = [];
        used = 0;
      }
      piece.push(index);
      used += cost(index);
    }
    if (piece.length > 0) pieces.push(piece);
  }
  const bins: Array<{ indexes: number[]; used: number }> = [];
  for (const piece of pieces) {
    const size = piece.reduce((sum, index) => sum + cost(index), 0);
    const bin = bins.find((candidate) => candidate.used + size <= maxTokens);
    if (bin) {
      bin.indexes.push(...piece);
      bin.used += size;
    } else bins.push({ indexes: [...piece], used: size });
  }
  return bins.map((bin) => chunkOf(facts, bin.indexes));
}
