/** Text released by a stream redactor: `push` returns what is safe to write now, `end` the rest. */
export interface StreamRedactor {
  push(text: string): string;
  end(): string;
}

/** Longest run of text without a newline held back before it is released anyway. */
const MAX_HELD_CHARS = 64 * 1024;
/** When a long line is released, this much of its end stays held (a secret shorter than this is whole). */
const OVERLAP_CHARS = 4096;

/**
 * Redacts a stream of text whose chunks may split a secret anywhere (a pipe delivers what the program
 * wrote, in pieces). Text is released line by line, so a secret without a newline is always whole when
 * redacted; a line longer than 64 KiB is released up to a cut no secret crosses (checked by redacting
 * both sides apart and together), keeping its last 4 KiB. Not covered: a secret containing a newline.
 */
export function createStreamRedactor(redact: (text: string) => string): StreamRedactor {
  let held = '';
  const release = (cut: number) => {
    const text = held.slice(0, cut);
    held = held.slice(cut);
    return text === '' ? '' : redact(text);
  };
  return {
    push(text) {
      held += text;
      let cut = held.lastIndexOf('\n') + 1;
      if (held.length - cut > MAX_HELD_CHARS) cut = safeCut(held, held.length - OVERLAP_CHARS, redact);
      return release(cut);
    },
    end: () => release(held.length),
  };
}

/** A position at or before `from` where no redacted value crosses (at most 64 tries, then `from`). */
function safeCut(text: string, from: number, redact: (text: string) => string): number {
  const whole = redact(text);
  for (let cut = from, tries = 0; cut > 0 && tries < 64; cut -= 64, tries++) {
    if (redact(text.slice(0, cut)) + redact(text.slice(cut)) === whole) return cut;
  }
  return from;
}
