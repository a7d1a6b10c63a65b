import type { Database } from 'better-sqlite3';
import { toFtsQuery } from './fts-query.js';

/** One past message that matched a search. */
export interface MessageHit {
  sessionId: string;
  seq: number;
  role: 'user' | 'assistant';
  createdAt: number;
  /** The matching part, matches in [brackets], cut with `…`. */
  snippet: string;
}

export interface MessageSearchQuery {
  text: string;
  limit?: number;
  /** Inclusive lower bound, Unix ms. */
  since?: number;
  /** Exclusive upper bound, Unix ms. */
  until?: number;
  sessionId?: string;
}

/**
 * Full-text search over the user and assistant messages of all sessions (schema v2 `message_search`),
 * best match first (bm25). Read-only; an empty or unsearchable query returns [].
 */
export function searchMessages(db: Database, query: MessageSearchQuery): MessageHit[] {
  const match = toFtsQuery(query.text);
  if (!match) return [];
  const rows = db
    .prepare(
      `SELECT session_id AS sessionId, seq, role, created_at AS createdAt,
         snippet(message_search, 0, '[', ']', '…', 16) AS snippet
       FROM message_search
       WHERE message_search MATCH @match AND created_at >= @since AND created_at < @until
         AND (@sessionId IS NULL OR session_id = @sessionId)
       ORDER BY bm25(message_search), created_at DESC
       LIMIT @limit`,
    )
    .all({
      match,
      since: query.since ?? Number.MIN_SAFE_INTEGER,
      until: query.until ?? Number.MAX_SAFE_INTEGER,
      sessionId: query.sessionId ?? null,
      limit: Math.max(1, Math.min(100, Math.floor(query.limit ?? 10))),
    }) as MessageHit[];
  return rows.map((row) => ({ ...row, seq: Number(row.seq), createdAt: Number(row.createdAt) }));
}
