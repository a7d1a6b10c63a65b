import { HELD_FACTS } from '../consolidator.js';
import { parseHistoryEntries } from '../history-file.js';
import { contentWords, type FactLine, words } from './fact-lines.js';

/** How new a fact is: the last day trusted HISTORY.md entries mention it, and its place in MEMORY.md. */
export interface FactAge {
  /** `YYYY-MM-DD`, when a trusted HISTORY.md entry mentions the fact. */
  date?: string;
  /** 0-based line number (a later line is newer when dates do not tell). */
  position: number;
}

/** Marks the HISTORY.md entries the memory tidy writes (they are not evidence of when a fact was said). */
export const TIDY_MARKER_PREFIX = '<!-- wren:tidy';

/** A light stem for matching a fact against history prose ("lives" ~ "live"); never used for validation. */
const stem = (word: string) => (word.length > 3 && word.endsWith('s') ? word.slice(0, -1) : word);

/**
 * The age of each fact: the newest date of a HISTORY.md entry that mentions it (all of its words when it has
 * one or two, else two thirds of them), and its position. Only trusted entries count: an entry of a session
 * that read untrusted content, one listing facts held back for that reason, and the tidy's own entries are
 * skipped, so nothing an outsider wrote can make a fact look newer. Entries are read for dates only: their
 * text never reaches the tidy model. Pure.
 */
export function factAges(options: {
  facts: readonly FactLine[];
  history: string;
  untrustedSessions: ReadonlySet<string>;
}): FactAge[] {
  const entries = parseHistoryEntries(options.history)
    .filter(
      (entry) =>
        entry.date !== undefined &&
        !entry.body.includes(HELD_FACTS) &&
        !entry.body.includes(TIDY_MARKER_PREFIX) &&
        !options.untrustedSessions.has(entry.sessionId ?? ''),
    )
    .map((entry) => ({
      date: entry.date!,
      words: new Set(words(`${entry.heading}\n${entry.body}`).map(stem)),
    }));
  return options.facts.map((fact) => {
    const wanted = [...contentWords(fact.text)].map(stem);
    const needed = wanted.length <= 2 ? wanted.length : Math.ceil((wanted.length * 2) / 3);
    let date: string | undefined;
    if (needed > 0) {
      for (const entry of entries) {
        const hits = wanted.filter((word) => entry.words.has(word)).length;
        if (hits >= needed && (date === undefined || entry.date > date)) date = entry.date;
      }
    }
    return { position: fact.position, ...(date ? { date } : {}) };
  });
}

/** Whether `a` is newer than `b`: by date when both have different ones, else by position. */
export function isNewer(a: FactAge, b: FactAge): boolean {
  if (a.date !== undefined && b.date !== undefined && a.date !== b.date) return a.date > b.date;
  return a.position > b.position;
}

/** The newest of several ages (a merged line is as new as its newest source). */
export function newestAge(ages: readonly FactAge[]): FactAge {
  let date: string | undefined;
  let position = -1;
  for (const age of ages) {
    if (age.date !== undefined && (date === undefined || age.date > date)) date = age.date;
    position = Math.max(position, age.position);
  }
  return { position, ...(date ? { date } : {}) };
}
