/** Edit distance between two strings (insertions, deletions, substitutions and adjacent swaps). */
function distance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/** `baseUrl`, `base-url` and `BASE_URL` all compare as `base_url`. */
function normalize(word: string): string {
  return word
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/-/g, '_')
    .toLowerCase();
}

/**
 * The candidate closest to `word` when it is plausibly a typo of it (case, camelCase/kebab-case spellings
 * and small edit distances), otherwise undefined. Pure.
 */
export function closestMatch(word: string, candidates: readonly string[]): string | undefined {
  const wanted = normalize(word);
  let best: { candidate: string; score: number } | undefined;
  for (const candidate of candidates) {
    const score = distance(wanted, normalize(candidate));
    if (!best || score < best.score) best = { candidate, score };
  }
  if (!best) return undefined;
  const allowed = Math.max(1, Math.floor(Math.max(wanted.length, 3) / 3));
  return best.score <= allowed ? best.candidate : undefined;
}
