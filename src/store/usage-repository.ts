import type { Database } from 'better-sqlite3';
import type { Usage } from '../llm/types.js';

export interface UsageRecord {
  /** The session the call served; omitted for background work without one. */
  sessionId?: string;
  /** The endpoint name that answered. */
  endpoint: string;
  usage: Usage;
  /** Unix milliseconds; now when omitted. */
  at?: number;
}

export interface UsageSums {
  calls: number;
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
}

export interface UsageTotals extends UsageSums {
  /** Per endpoint, most input tokens first. */
  byEndpoint: Array<UsageSums & { endpoint: string }>;
}

export interface UsageQuery {
  /** Inclusive lower bound, Unix milliseconds. */
  since?: number;
  /** Exclusive upper bound, Unix milliseconds. */
  until?: number;
  sessionId?: string;
}

/**
 * Records the token usage of one model call. Not idempotent: each call adds a row.
 * @throws the SQLite error when `sessionId` names no session (foreign key).
 */
export function recordUsage(db: Database, record: UsageRecord): void {
  db.prepare(
    `INSERT INTO usage (session_id, endpoint, input_tokens, output_tokens, cached_tokens, created_at)
     VALUES (?, ?, ?, ?, ?, ?)`,
  ).run(
    record.sessionId ?? null,
    record.endpoint,
    Math.round(record.usage.inputTokens),
    Math.round(record.usage.outputTokens),
    Math.round(record.usage.cachedInputTokens ?? 0),
    record.at ?? Date.now(),
  );
}

const SUMS = `count(*) AS calls, coalesce(sum(input_tokens), 0) AS inputTokens,
  coalesce(sum(output_tokens), 0) AS outputTokens, coalesce(sum(cached_tokens), 0) AS cachedTokens`;

/** Sums recorded usage (for `wren status`), optionally within a time range and/or one session. Read-only. */
export function usageTotals(db: Database, query: UsageQuery = {}): UsageTotals {
  const where = ['created_at >= @since', 'created_at < @until'];
  if (query.sessionId !== undefined) where.push('session_id = @sessionId');
  const params = {
    since: query.since ?? Number.MIN_SAFE_INTEGER,
    until: query.until ?? Number.MAX_SAFE_INTEGER,
    ...(query.sessionId !== undefined ? { sessionId: query.sessionId } : {}),
  };
  const filter = `WHERE ${where.join(' AND ')}`;
  const total = db.prepare(`SELECT ${SUMS} FROM usage ${filter}`).get(params) as UsageSums;
  const byEndpoint = db
    .prepare(
      `SELECT endpoint, ${SUMS} FROM usage ${filter} GROUP BY endpoint ORDER BY inputTokens DESC, endpoint`,
    )
    .all(params) as Array<UsageSums & { endpoint: string }>;
  return { ...total, byEndpoint };
}
