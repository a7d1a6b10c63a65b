import { describe, expect, it } from 'vitest';
import { fuseRanks, RRF_K } from './reciprocal-rank-fusion.js';

const id = { key: (item: string) => item };

describe('fuseRanks', () => {
  it('scores 1/(k + rank) per list and ranks items found by several lists first', () => {
    const fused = fuseRanks(
      [
        ['a', 'b', 'c'],
        ['c', 'd'],
      ],
      id,
    );
    // b and d tie (both second in one list): the first list's comes first.
    expect(fused.map((entry) => entry.item)).toEqual(['c', 'a', 'b', 'd']);
    expect(fused[0]).toEqual({ item: 'c', score: 1 / (RRF_K + 3) + 1 / (RRF_K + 1), ranks: [3, 1] });
    expect(fused.find((entry) => entry.item === 'd')).toEqual({
      item: 'd',
      score: 1 / 62,
      ranks: [undefined, 2],
    });
    expect(RRF_K).toBe(60);
  });

  it('keeps the first list on ties, the earliest copy of an item, and counts a repeat once', () => {
    const fused = fuseRanks(
      [
        [{ key: 'x', from: 'words' }],
        [
          { key: 'y', from: 'meaning' },
          { key: 'x', from: 'meaning' },
          { key: 'y', from: 'again' },
        ],
      ],
      { key: (item) => item.key },
    );
    expect(fused.map((entry) => [entry.item.key, entry.item.from, entry.ranks])).toEqual([
      ['x', 'words', [1, 2]],
      ['y', 'meaning', [undefined, 1]],
    ]);
    expect(fuseRanks([[], []], id)).toEqual([]);
    expect(fuseRanks([['a'], ['b']], { ...id, k: 0 }).map((entry) => entry.score)).toEqual([1, 1]);
  });
});
