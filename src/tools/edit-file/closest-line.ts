function bigrams(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (let index = 0; index < text.length - 1; index++) {
    const pair = text.slice(index, index + 2);
    counts.set(pair, (counts.get(pair) ?? 0) + 1);
  }
  return counts;
}

/** Dice similarity of two strings over character pairs, 0..1. */
function similarity(a: string, b: string): number {
  if (a === b) return 1;
  if (a.length < 2 || b.length < 2) return 0;
  const left = bigrams(a);
  let shared = 0;
  for (const [pair, count] of bigrams(b)) shared += Math.min(count, left.get(pair) ?? 0);
  return (2 * shared) / (a.length + b.length - 2);
}

const MAX_LINES_COMPARED = 50_000;

/**
 * Why `wanted` was not found in `content`, as a hint the model can act on: the text exists with other
 * whitespace, or the line most like its first line (number and text), or nothing. Pure.
 */
export function missingMatchHint(content: string, wanted: string): string {
  const squash = (text: string) => text.replace(/\s+/g, ' ').trim();
  if (squash(wanted) !== '' && squash(content).includes(squash(wanted)))
    return 'The text is there with different whitespace or line breaks; copy it exactly as read_file shows it.';
  const first =
    wanted
      .split('\n')
      .find((line) => line.trim() !== '')
      ?.trim() ?? '';
  if (first === '') return 'old_text is only whitespace; include the text around the change.';
  const lines = content.split('\n').slice(0, MAX_LINES_COMPARED);
  let best = { line: 0, score: 0 };
  lines.forEach((line, index) => {
    const score = similarity(line.trim(), first);
    if (score > best.score) best = { line: index + 1, score };
  });
  if (best.score < 0.5) return 'No line is close to its first line; read the file again before editing.';
  const text = lines[best.line - 1]!.trim();
  return `The closest line is ${best.line}: "${text.length > 200 ? `${text.slice(0, 200)}…` : text}".`;
}
