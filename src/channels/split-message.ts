/**
 * Splits `text` into pieces of at most `limit` characters, preferring (in order) a paragraph break, a line
 * break, a sentence end, a space; never inside a fenced code block unless a single block is longer than the
 * limit, in which case the block is closed at the cut and reopened (with its language) in the next piece.
 * Pieces are trimmed of the break they were cut at; none is empty.
 */
export function splitMessage(text: string, limit: number): string[] {
  if (limit < 16) throw new RangeError('limit must be at least 16 characters');
  const pieces: string[] = [];
  let rest = text;
  let reopen = '';
  while (rest.length > 0) {
    const room = limit - reopen.length;
    if (rest.length <= room) {
      pieces.push(reopen + rest);
      break;
    }
    const window = rest.slice(0, room);
    let cut = bestBreak(window);
    let fence = openFenceAt(reopen + window.slice(0, cut));
    if (fence !== undefined && !reopen) {
      // A block opens in this piece and does not close in it: end the piece before the block instead.
      const start = lastFenceStart(window.slice(0, cut));
      if (start >= room / 4) {
        cut = start;
        fence = undefined;
      }
    }
    let piece = window.slice(0, cut);
    let nextReopen = '';
    if (fence !== undefined) {
      const closing = '\n```';
      // Cut where the closing fence still fits; the next piece reopens the block.
      if (piece.length + closing.length > room) {
        const fits = room - closing.length;
        const line = window.lastIndexOf('\n', fits - 1);
        cut = line > fits / 2 ? line + 1 : Math.max(1, fits);
        piece = window.slice(0, cut);
      }
      piece = `${piece.replace(/\n$/, '')}${closing}`;
      nextReopen = `\`\`\`${fence}\n`;
    }
    const out = (reopen + piece).trimEnd();
    if (out.trim().length > 0) pieces.push(out);
    rest = rest.slice(cut);
    if (fence === undefined) rest = rest.replace(/^\s+/, '');
    reopen = nextReopen;
  }
  return pieces;
}

/** The position to cut `window` at: the last good break in its second half, else the window's end. */
function bestBreak(window: string): number {
  const floor = Math.floor(window.length / 2);
  for (const pattern of [/\n\s*\n/g, /\n/g, /[.!?。！？]\s/g, /\s/g]) {
    let best = -1;
    for (const match of window.matchAll(pattern)) {
      const end = match.index + match[0].length;
      if (match.index >= floor && end <= window.length) best = end;
    }
    if (best > 0) return best;
  }
  return window.length;
}

/** Where the last fence line of `text` starts. */
function lastFenceStart(text: string): number {
  let at = -1;
  for (const match of text.matchAll(/(^|\n)[ \t]*```/g)) at = match.index + match[1]!.length;
  return at;
}

/** The language of a code fence left open at the end of `text` ('' for none given); undefined if closed. */
function openFenceAt(text: string): string | undefined {
  let open: string | undefined;
  for (const line of text.split('\n')) {
    const match = /^\s*```(\S*)/.exec(line);
    if (!match) continue;
    open = open === undefined ? (match[1] ?? '') : undefined;
  }
  return open;
}
