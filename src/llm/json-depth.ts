/**
 * Whether JSON text nests arrays/objects deeper than `max`, by one linear scan that skips strings. JSON.parse
 * accepts 200,000 levels, but every recursive walk after it (validation, redaction, JSON.stringify) would
 * overflow the stack; checking the text first keeps that from ever being built.
 */
export function nestsDeeperThan(raw: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < raw.length; index++) {
    const char = raw.charCodeAt(index);
    if (inString) {
      if (char === 92 /* backslash */) index++;
      else if (char === 34 /* " */) inString = false;
    } else if (char === 34) inString = true;
    else if (char === 91 /* [ */ || char === 123 /* { */) {
      if (++depth > max) return true;
    } else if (char === 93 /* ] */ || char === 125 /* } */) depth--;
  }
  return false;
}
