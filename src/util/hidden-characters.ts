/**
 * Invisible characters that can carry text past a reader: what the policy below does with each class.
 *
 * - Tag characters (U+E0000–U+E007F) map one-to-one onto ASCII and render as nothing, so they can spell a whole
 *   instruction invisibly. A run is decoded into a visible `[hidden text: …]` marker, so the model and the
 *   owner both see that something was hidden and what it said. The only run kept is the tail of the three
 *   recommended subdivision flags (🏴 + "gbeng" / "gbsct" / "gbwls" + CANCEL TAG).
 * - Variation selectors: one after a character picks its glyph (❤️, CJK variants) and is kept. A run of two or
 *   more carries data (one byte per selector, the "emoji smuggling" scheme): it is decoded into a
 *   `[hidden text: …]` marker when the bytes are printable UTF-8, else the extra selectors are escaped.
 * - Zero-width characters (U+200B–U+200D, U+2060, U+FEFF) become visible escapes such as `<U+200B>`, with two
 *   exceptions where they are part of ordinary writing: a ZWJ between two emoji (👩‍💻, 🏳️‍🌈) and a ZWJ or
 *   ZWNJ between letters of a script that uses them for shaping (Arabic, Persian, Indic scripts, …). A BOM at
 *   the very start is dropped (it is an encoding signature, not content).
 * - Bidi controls (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F, U+061C) become escapes: they reorder what is
 *   displayed (a name "x\u202Etxt.exe" shows as "xexe.txt"), so they are shown, never obeyed.
 * - Other invisible format characters (general category Cf: invisible operators, interlinear annotation,
 *   deprecated format controls…), Hangul fillers and control characters other than tab and line breaks become
 *   escapes. The soft hyphen is dropped: it is only a hyphenation hint, and dropping it rejoins the word.
 * - Visible format characters (the Arabic and Syriac number signs) and everything else — CJK, emoji, accents and
 *   combining marks — are left as they are.
 */

/** Options for revealHiddenCharacters. */
export interface RevealOptions {
  /**
   * Also escape tab, CR, LF and the Unicode line and paragraph separators: for one-line fields (file names,
   * titles, URLs), where a line break could fake another entry of a listing.
   */
  singleLine?: boolean;
}

const TAG_RUN = '[\\u{E0000}-\\u{E007F}]+';
const SELECTOR_RUN = '\\p{Variation_Selector}+';
const OTHER = '[\\p{Cc}\\p{Cf}\\u115F\\u1160\\u3164\\uFFA0]';
const MULTI_LINE = new RegExp(`(${TAG_RUN})|(${SELECTOR_RUN})|(?![\\t\\n\\r])${OTHER}`, 'gu');
const SINGLE_LINE = new RegExp(`(${TAG_RUN})|(${SELECTOR_RUN})|${OTHER}|[\\u2028\\u2029]`, 'gu');
const ANY_MULTI_LINE = /(?![\t\n\r])[\p{Cc}\p{Cf}\p{Variation_Selector}\u115F\u1160\u3164\uFFA0]/u;
const ANY_SINGLE_LINE = /[\p{Cc}\p{Cf}\p{Variation_Selector}\u115F\u1160\u3164\uFFA0\u2028\u2029]/u;

/** Format characters that are drawn (prepended concatenation marks): nothing hides in them. */
const VISIBLE_FORMAT = /[\u0600-\u0605\u06DD\u070F\u0890\u0891\u08E2\u{110BD}\u{110CD}]/u;
const EMOJI_BEFORE_JOINER = /\p{Extended_Pictographic}|\p{Emoji_Modifier}|\uFE0F/u;
const EMOJI = /\p{Extended_Pictographic}/u;
/** Scripts in which ZWJ and ZWNJ choose letter shapes or conjuncts. */
const JOINING_SCRIPT =
  /[\p{Script=Arabic}\p{Script=Syriac}\p{Script=Nko}\p{Script=Mongolian}\p{Script=Devanagari}\p{Script=Bengali}\p{Script=Gurmukhi}\p{Script=Gujarati}\p{Script=Oriya}\p{Script=Tamil}\p{Script=Telugu}\p{Script=Kannada}\p{Script=Malayalam}\p{Script=Sinhala}\p{Script=Myanmar}\p{Script=Khmer}\p{Script=Tibetan}\p{Script=Thaana}]/u;
const MARK = /\p{M}/u;
/** Tag sequences of the recommended subdivision flags (England, Scotland, Wales), after U+1F3F4. */
const FLAG_TAGS = new Set(['gbeng', 'gbsct', 'gbwls']);

/** `<U+202E>`: how an invisible character is shown. */
function escaped(codePoint: number): string {
  return `<U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}>`;
}

function codePointBefore(text: string, index: number): number | undefined {
  if (index <= 0) return undefined;
  const low = text.charCodeAt(index - 1);
  if (low >= 0xdc00 && low <= 0xdfff && index >= 2) {
    const high = text.charCodeAt(index - 2);
    if (high >= 0xd800 && high <= 0xdbff) return text.codePointAt(index - 2);
  }
  return low;
}

function is(pattern: RegExp, codePoint: number | undefined): boolean {
  return codePoint !== undefined && pattern.test(String.fromCodePoint(codePoint));
}

/** Whether a ZWJ/ZWNJ at `index` sits between letters of a joining script (marks after the first are skipped). */
function inJoiningScript(text: string, index: number): boolean {
  let at = index;
  let before = codePointBefore(text, at);
  for (let hops = 0; before !== undefined && is(MARK, before) && hops < 8; hops++) {
    at -= before > 0xffff ? 2 : 1;
    before = codePointBefore(text, at);
  }
  return is(JOINING_SCRIPT, before) && is(JOINING_SCRIPT, text.codePointAt(index + 1));
}

function revealJoiner(text: string, index: number, codePoint: number): string {
  const after = text.codePointAt(index + 1);
  if (codePoint === 0x200d && is(EMOJI_BEFORE_JOINER, codePointBefore(text, index)) && is(EMOJI, after))
    return String.fromCodePoint(codePoint);
  return inJoiningScript(text, index) ? String.fromCodePoint(codePoint) : escaped(codePoint);
}

function revealTags(run: string, text: string, index: number): string {
  const codePoints = [...run].map((char) => char.codePointAt(0)!);
  const spelled = String.fromCharCode(...codePoints.slice(0, -1).map((codePoint) => codePoint - 0xe0000));
  if (codePointBefore(text, index) === 0x1f3f4 && codePoints.at(-1) === 0xe007f && FLAG_TAGS.has(spelled))
    return run;
  const decoded = codePoints
    .map((codePoint) =>
      codePoint >= 0xe0020 && codePoint <= 0xe007e
        ? String.fromCharCode(codePoint - 0xe0000)
        : escaped(codePoint),
    )
    .join('');
  return `[hidden text: ${decoded}]`;
}

/** The byte a variation selector carries: FE00–FE0F → 0–15, E0100–E01EF → 16–255 (Mongolian ones: none). */
function selectorByte(codePoint: number): number | undefined {
  if (codePoint >= 0xfe00 && codePoint <= 0xfe0f) return codePoint - 0xfe00;
  if (codePoint >= 0xe0100 && codePoint <= 0xe01ef) return codePoint - 0xe0100 + 16;
  return undefined;
}

/** The printable UTF-8 text that selectors carry, or undefined when they carry none. */
function decodeSelectors(codePoints: number[]): string | undefined {
  const bytes = codePoints.map(selectorByte);
  if (bytes.length < 2 || bytes.some((byte) => byte === undefined)) return undefined;
  try {
    const decoded = new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(bytes as number[]));
    return ANY_SINGLE_LINE.test(decoded) ? undefined : decoded;
  } catch {
    return undefined;
  }
}

function revealSelectors(run: string): string {
  const codePoints = [...run].map((char) => char.codePointAt(0)!);
  if (codePoints.length === 1) return run;
  const whole = decodeSelectors(codePoints);
  if (whole !== undefined) return `[hidden text: ${whole}]`;
  // The first selector may be a real one (❤️) with the data after it.
  const first = String.fromCodePoint(codePoints[0]!);
  const rest = decodeSelectors(codePoints.slice(1));
  if (rest !== undefined) return `${first}[hidden text: ${rest}]`;
  return first + codePoints.slice(1).map(escaped).join('');
}

/**
 * `text` with hidden characters made visible or removed, by the policy at the top of this file. Pure; returns
 * `text` itself when it holds nothing to reveal (the common case costs one regular-expression test).
 */
export function revealHiddenCharacters(text: string, options: RevealOptions = {}): string {
  const single = options.singleLine === true;
  if (!(single ? ANY_SINGLE_LINE : ANY_MULTI_LINE).test(text)) return text;
  return text.replace(
    single ? SINGLE_LINE : MULTI_LINE,
    (match: string, tags: string | undefined, selectors: string | undefined, index: number) => {
      if (tags) return revealTags(tags, text, index);
      if (selectors) return revealSelectors(selectors);
      const codePoint = match.codePointAt(0)!;
      if (codePoint === 0xfeff && index === 0) return '';
      if (codePoint === 0xad) return '';
      if (codePoint === 0x200c || codePoint === 0x200d) return revealJoiner(text, index, codePoint);
      if (VISIBLE_FORMAT.test(match)) return match;
      return escaped(codePoint);
    },
  );
}
