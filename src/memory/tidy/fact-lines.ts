/**
 * MEMORY.md read as the memory tidy sees it: list items are facts; everything else (headings, prose, HTML
 * comments, code blocks, blank lines) is structure the tidy leaves alone. Pure helpers.
 */
import { normalizeFact } from '../memory-file.js';

/** One fact (a list item) of MEMORY.md. */
export interface FactLine {
  /** The line exactly as written. */
  text: string;
  /** Its identity (see normalizeFact). */
  key: string;
  /** 0-based line number in the file (a later line was, as a rule, added later: consolidation appends). */
  position: number;
}

/** MEMORY.md split into facts and the other lines. */
export interface ParsedMemory {
  facts: FactLine[];
  /** The non-blank lines that are not facts, trimmed, in file order. */
  structure: string[];
  /** Every line in file order, tagged (blank lines included). */
  lines: Array<{ text: string; fact: boolean }>;
}

const ITEM = /^\s*(?:[-*+]|\d+[.)])\s+\S/;

/** Splits MEMORY.md text into facts (list items outside comments and code blocks) and structure. */
export function parseMemory(text: string): ParsedMemory {
  const facts: FactLine[] = [];
  const structure: string[] = [];
  const lines: ParsedMemory['lines'] = [];
  let inFence = false;
  let inComment = false;
  text.split('\n').forEach((line, position) => {
    const trimmed = line.trim();
    const opensFence = /^(```|~~~)/.test(trimmed);
    let fact = false;
    if (!inFence && !inComment && !opensFence && !trimmed.startsWith('<!--') && ITEM.test(line)) {
      fact = true;
      facts.push({ text: line.replace(/\s+$/, ''), key: normalizeFact(line), position });
    } else if (trimmed) {
      structure.push(trimmed);
    }
    lines.push({ text: line, fact });
    if (opensFence) inFence = !inFence;
    else if (!inFence) {
      const open = line.lastIndexOf('<!--');
      const close = line.lastIndexOf('-->');
      if (open >= 0 && open > close) inComment = true;
      else if (close >= 0) inComment = false;
    }
  });
  return { facts, structure, lines };
}

/**
 * Words a merge may use without a source line: they join facts but state none. Negations and words that
 * instruct ("always", "send") are deliberately not here.
 */
const CONNECTORS = new Set(
  (
    'a an the and or also both as of in on at to for with by from is are was were be been has have had ' +
    'who which that whose their his her its they he she it them this these those'
  ).split(' '),
);

/** Words that turn a fact around: a merge keeps every one its sources have. */
const NEGATIONS = new Set([
  'not',
  'no',
  'never',
  'none',
  'nobody',
  'nothing',
  'nowhere',
  'neither',
  'nor',
  'cannot',
  'without',
]);

const WORD = /[\p{L}\p{N}](?:[\p{L}\p{N}'._@/:+#%&=?~-]*[\p{L}\p{N}/])?/gu;

/**
 * The words of a line, lowercased: a link, an e-mail address, a number or a date is one word (so a merge
 * cannot piece a new one together); a possessive `'s` is dropped.
 */
export function words(text: string): string[] {
  const found = text.replace(/[’‘]/g, "'").toLowerCase().match(WORD) ?? [];
  return found.map((word) => (word.endsWith("'s") ? word.slice(0, -2) : word)).filter(Boolean);
}

/** The words of a line that carry meaning (every word but the connectors). */
export function contentWords(text: string): Set<string> {
  return new Set(words(text.replace(/^\s*(?:[-*+]|\d+[.)])\s+/, '')).filter((word) => !CONNECTORS.has(word)));
}

/** The negations in a line (`not`, `never`, `don't` …). */
export function negations(text: string): Set<string> {
  return new Set(words(text).filter((word) => NEGATIONS.has(word) || word.endsWith("n't")));
}
