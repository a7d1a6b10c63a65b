/** MEMORY.md: durable facts as Markdown the owner edits by hand; these helpers are pure. */
import { WORKSPACE_DEFAULTS } from '../agent/workspace-files.js';

/** What a new MEMORY.md starts with (the prompt leaves the untouched template out). */
export const MEMORY_TEMPLATE = WORKSPACE_DEFAULTS['MEMORY.md']!;

/** Edits a consolidation asks for. */
export interface MemoryEdits {
  add: string[];
  remove: string[];
}

const BULLET = /^\s*(?:[-*+]|\d+[.)])\s+/;

/** A fact's identity: bullet, case, spacing and a final full stop do not matter. */
export function normalizeFact(line: string): string {
  return line
    .replace(BULLET, '')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[.!]+$/, '')
    .toLowerCase();
}

/** A fact as a single bullet line (newlines folded, bullet added, length capped). */
export function factLine(fact: string, maxChars = 400): string {
  const text = fact.replace(BULLET, '').replace(/\s+/g, ' ').trim();
  return `- ${text.length > maxChars ? `${text.slice(0, maxChars - 1)}…` : text}`;
}

/**
 * A fact's identity as MEMORY.md stores it: what `factLine` makes of it (capped), normalized. A long fact and
 * its capped line are then the same fact, so one over the cap is not added again at every consolidation.
 */
export function storedFactKey(fact: string): string {
  return normalizeFact(factLine(fact));
}

/**
 * Applies `edits` to MEMORY.md text: removes lines whose fact equals a `remove` entry (as written, or as
 * stored after the cap), appends each `add` fact not already present (in its stored form) as a bullet at the
 * end. Idempotent (applying twice changes nothing more), so a
 * consolidation replayed after a crash does not duplicate facts. Starts from the template when `text` is
 * empty. Returns `text` unchanged when nothing applies.
 */
export function applyMemoryEdits(text: string, edits: MemoryEdits): string {
  const removals = new Set(
    edits.remove.flatMap((fact) => [normalizeFact(fact), storedFactKey(fact)]).filter(Boolean),
  );
  const base = text.trim() === '' ? MEMORY_TEMPLATE : text;
  const lines = base.split('\n').filter((line) => !(line.trim() && removals.has(normalizeFact(line))));
  const present = new Set(lines.map(normalizeFact));
  const additions: string[] = [];
  for (const fact of edits.add) {
    const key = storedFactKey(fact);
    if (!key || present.has(key) || removals.has(key)) continue;
    present.add(key);
    additions.push(factLine(fact));
  }
  if (additions.length === 0 && lines.length === base.split('\n').length) return text;
  while (lines.length > 0 && lines[lines.length - 1]!.trim() === '') lines.pop();
  const body = lines.join('\n');
  const joined = additions.length ? `${body}${body ? '\n' : ''}${additions.join('\n')}` : body;
  return `${joined}\n`;
}

/** MEMORY.md lines (not headings) containing `query`, case-insensitive. */
export function matchingFacts(text: string, query: string): string[] {
  const needle = query.trim().toLowerCase();
  if (!needle) return [];
  return text
    .split('\n')
    .filter((line) => line.trim() && !line.trim().startsWith('#') && line.toLowerCase().includes(needle));
}

/** `text` without the exact lines given (each removed once per occurrence in `lines`). */
export function removeLines(text: string, lines: string[]): string {
  const doomed = new Set(lines);
  return text
    .split('\n')
    .filter((line) => !doomed.has(line))
    .join('\n');
}
