/**
 * Turns free text into a safe FTS5 query: each word becomes a quoted prefix term (`"marat"*`), joined with
 * OR, so punctuation, quotes and FTS operators in user text can never be a syntax error. Ranking (bm25)
 * favours rows matching more and rarer words. Returns '' when the text has no searchable word.
 */
export function toFtsQuery(text: string, maxTerms = 12): string {
  const words = (text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? []).filter(
    (word, index, all) => all.indexOf(word) === index,
  );
  const useful = words.filter((word) => word.length > 1 || words.length === 1).slice(0, maxTerms);
  return useful.map((word) => `"${word}"*`).join(' OR ');
}
