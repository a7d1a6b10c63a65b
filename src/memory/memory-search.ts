import { join } from 'node:path';
import type { MessageHit } from '../store/message-search-repository.js';
import type { MessageSearchStore } from '../store/open-stores.js';
import { formatStamp } from './format-time.js';
import { type HistoryEntry, parseHistoryEntries } from './history-file.js';
import { readSnapshot } from './markdown-file.js';

export interface MemorySearchQuery {
  text: string;
  /** Per source (past messages, HISTORY.md). Default 8. */
  limit?: number;
  /** `YYYY-MM-DD` (inclusive), in the owner's time zone. */
  since?: string;
  /** `YYYY-MM-DD` (inclusive). */
  until?: string;
}

/** How a hit was found, in a search that combines keywords and meaning (absent in a keyword-only search). */
export type SearchMatch = 'words' | 'meaning' | 'both';

export interface MemorySearchResult {
  history: Array<HistoryEntry & { excerpt: string; score: number; match?: SearchMatch }>;
  messages: Array<MessageHit & { when: string; match?: SearchMatch }>;
}

/** A search of past messages and HISTORY.md; keyword-only or combined with meaning. */
export type MemorySearcher = (query: MemorySearchQuery, signal?: AbortSignal) => Promise<MemorySearchResult>;

/** Unix ms of local midnight starting `date` (YYYY-MM-DD) in `zone`. */
function startOfDay(date: string, zone: string | undefined): number {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const utc = Date.UTC(y, m - 1, d);
  // The zone's offset at that instant, found by formatting it back.
  const shown = formatStamp(utc, zone);
  const [sy, sm, sd, sh, smin] = shown.split(/[- :]/).map(Number) as number[];
  const offset = Date.UTC(sy!, sm! - 1, sd!, sh!, smin!) - utc;
  return utc - offset;
}

const nextDay = (date: string) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);

function words(text: string): string[] {
  return [...new Set(text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [])].filter((word) => word.length > 1);
}

/** Whether a HISTORY.md entry's date lies within the query's days (an undated entry never does). */
export function inDays(entry: HistoryEntry, query: MemorySearchQuery): boolean {
  if (query.since && (!entry.date || entry.date < query.since)) return false;
  if (query.until && (!entry.date || entry.date > query.until)) return false;
  return true;
}

/** HISTORY.md entries ranked by how many query words (as prefixes) they contain; newest wins ties. */
export function searchHistory(text: string, query: MemorySearchQuery): MemorySearchResult['history'] {
  const terms = words(query.text);
  if (terms.length === 0) return [];
  const entries = parseHistoryEntries(text);
  const scored = entries.map((entry, index) => {
    const haystack = `${entry.heading}\n${entry.body}`.toLowerCase();
    const tokens = new Set(haystack.match(/[\p{L}\p{N}_]+/gu) ?? []);
    const score = terms.filter((term) => [...tokens].some((token) => token.startsWith(term))).length;
    return { entry, index, score };
  });
  return scored
    .filter(({ entry, score }) => score > 0 && inDays(entry, query))
    .sort((a, b) => b.score - a.score || b.index - a.index)
    .slice(0, query.limit ?? 8)
    .map(({ entry, score }) => ({ ...entry, score, excerpt: excerpt(entry.body, terms) }));
}

/** Up to `size` characters of `body` around the first of `terms` (from the start when none occurs). */
export function excerpt(body: string, terms: string[], size = 300): string {
  const lower = body.toLowerCase();
  const at = Math.min(...terms.map((term) => lower.indexOf(term)).filter((index) => index >= 0), body.length);
  const start = Math.max(0, at - 80);
  const text = body
    .slice(start, start + size)
    .replace(/\s+/g, ' ')
    .trim();
  return `${start > 0 ? '…' : ''}${text}${start + size < body.length ? '…' : ''}`;
}

/**
 * Searches past messages of all sessions (FTS5, bm25-ranked) and HISTORY.md entries. Read-only; never
 * throws for odd query text (it is reduced to words).
 */
export function searchMemory(
  options: { messages: MessageSearchStore; workspace: string; timezone?: string },
  query: MemorySearchQuery,
): MemorySearchResult {
  const zone = options.timezone;
  const history = searchHistory(readSnapshot(join(options.workspace, 'HISTORY.md')).text, query);
  const messages = options.messages
    .search({
      text: query.text,
      limit: query.limit ?? 8,
      ...dayBounds(query, zone),
    })
    .map((hit) => ({ ...hit, when: formatStamp(hit.createdAt, zone) }));
  return { history, messages };
}

/** The query's days as Unix ms bounds (`since` inclusive, `until` exclusive) in `zone`. */
export function dayBounds(
  query: MemorySearchQuery,
  zone: string | undefined,
): { since?: number; until?: number } {
  return {
    ...(query.since ? { since: startOfDay(query.since, zone) } : {}),
    ...(query.until ? { until: startOfDay(nextDay(query.until), zone) } : {}),
  };
}

/** The result as text for the model or the terminal. */
export function formatSearchResult(query: string, result: MemorySearchResult): string {
  if (result.history.length === 0 && result.messages.length === 0) {
    return `Nothing found for "${query}" in past conversations or HISTORY.md. Try other words or a wider date range.`;
  }
  const out: string[] = [];
  if (result.history.length) {
    out.push('HISTORY.md:');
    for (const entry of result.history) out.push(`- ${entry.heading}: ${entry.excerpt}`);
  }
  if (result.messages.length) {
    out.push('Past messages (best match first):');
    for (const hit of result.messages) {
      const who = hit.role === 'user' ? 'owner' : 'wren';
      out.push(
        `- ${hit.when} · session ${hit.sessionId.slice(0, 8)} #${hit.seq} · ${who}: ${hit.snippet.replace(/\s+/g, ' ')}`,
      );
    }
  }
  return out.join('\n');
}
