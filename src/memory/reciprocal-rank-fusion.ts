/** The `k` of reciprocal rank fusion: how much the first ranks count more than later ones (60 is usual). */
export const RRF_K = 60;

/** One item of the fused list: its RRF score and its 1-based rank in each input list (absent: not in it). */
export interface Fused<T> {
  item: T;
  score: number;
  ranks: Array<number | undefined>;
}

/**
 * Reciprocal rank fusion: an item's score is the sum over the lists it appears in of 1 / (k + rank), so
 * items ranked well by several retrievers rise, and no list's raw scores need to be comparable. Items are
 * matched by `key`; the kept item is the one from the earliest list. Best first; ties keep the order of
 * first appearance. Pure.
 */
export function fuseRanks<T>(
  lists: ReadonlyArray<readonly T[]>,
  options: { key: (item: T) => string; k?: number },
): Array<Fused<T>> {
  const { key, k = RRF_K } = options;
  const fused = new Map<string, Fused<T>>();
  lists.forEach((list, which) => {
    list.forEach((item, index) => {
      const id = key(item);
      let entry = fused.get(id);
      if (!entry) {
        entry = { item, score: 0, ranks: lists.map(() => undefined) };
        fused.set(id, entry);
      }
      // A repeated key within one list counts at its best rank only.
      if (entry.ranks[which] !== undefined) return;
      entry.ranks[which] = index + 1;
      entry.score += 1 / (k + index + 1);
    });
  });
  return [...fused.values()].sort((a, b) => b.score - a.score);
}
