/** A line-based unified diff (the `diff` package is not a dependency; this is all file history needs). */

type Op = { kind: ' ' | '-' | '+'; line: string };

/** Above this many cells (changed lines before × after) the middle is shown as replaced whole. */
const MAX_CELLS = 4_000_000;

const splitLines = (text: string): string[] => {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
};

/** The edit script from `a` to `b`: common prefix and suffix kept, a longest common subsequence between. */
function editScript(a: string[], b: string[]): Op[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const head: Op[] = a.slice(0, start).map((line) => ({ kind: ' ', line }));
  const tail: Op[] = a.slice(endA).map((line) => ({ kind: ' ', line }));
  const x = a.slice(start, endA);
  const y = b.slice(start, endB);
  const middle: Op[] = [];
  if ((x.length + 1) * (y.length + 1) > MAX_CELLS) {
    for (const line of x) middle.push({ kind: '-', line });
    for (const line of y) middle.push({ kind: '+', line });
    return [...head, ...middle, ...tail];
  }
  // lengths[i][j]: LCS length of x[i..] and y[j..], row-major in one array.
  const width = y.length + 1;
  const lengths = new Uint32Array((x.length + 1) * width);
  for (let i = x.length - 1; i >= 0; i--)
    for (let j = y.length - 1; j >= 0; j--)
      lengths[i * width + j] =
        x[i] === y[j]
          ? lengths[(i + 1) * width + j + 1]! + 1
          : Math.max(lengths[(i + 1) * width + j]!, lengths[i * width + j + 1]!);
  let i = 0;
  let j = 0;
  while (i < x.length || j < y.length) {
    if (i < x.length && j < y.length && x[i] === y[j]) {
      middle.push({ kind: ' ', line: x[i++]! });
      j++;
    } else if (
      i < x.length &&
      (j === y.length || lengths[(i + 1) * width + j]! >= lengths[i * width + j + 1]!)
    )
      middle.push({ kind: '-', line: x[i++]! });
    else middle.push({ kind: '+', line: y[j++]! });
  }
  return [...head, ...middle, ...tail];
}

/**
 * `before` → `after` as a unified diff (`--- from`, `+++ to`, `@@ -a,b +c,d @@` hunks with `context` lines
 * around each change). '' when the texts have the same lines. Pure.
 */
export function unifiedDiff(
  before: string,
  after: string,
  labels: { from: string; to: string },
  context = 3,
): string {
  const ops = editScript(splitLines(before), splitLines(after));
  const changed = ops.map((op, index) => (op.kind === ' ' ? -1 : index)).filter((index) => index >= 0);
  if (changed.length === 0) return '';
  const out = [`--- ${labels.from}`, `+++ ${labels.to}`];
  let cursor = 0;
  while (cursor < changed.length) {
    // A hunk runs from context before its first change to context after the last change near enough.
    let last = cursor;
    while (last + 1 < changed.length && changed[last + 1]! - changed[last]! <= 2 * context + 1) last++;
    const from = Math.max(0, changed[cursor]! - context);
    const to = Math.min(ops.length, changed[last]! + context + 1);
    let lineA = 1;
    let lineB = 1;
    for (const op of ops.slice(0, from)) {
      if (op.kind !== '+') lineA++;
      if (op.kind !== '-') lineB++;
    }
    const hunk = ops.slice(from, to);
    const countA = hunk.filter((op) => op.kind !== '+').length;
    const countB = hunk.filter((op) => op.kind !== '-').length;
    out.push(`@@ -${countA ? lineA : lineA - 1},${countA} +${countB ? lineB : lineB - 1},${countB} @@`);
    for (const op of hunk) out.push(`${op.kind}${op.line}`);
    cursor = last + 1;
  }
  return `${out.join('\n')}\n`;
}
