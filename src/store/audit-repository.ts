import type { Database, Statement } from 'better-sqlite3';

/** One gate decision as recorded. `args` is JSON with secrets already redacted by the caller. */
export interface AuditEntry {
  id: number;
  /** Unix milliseconds. */
  at: number;
  sessionId: string;
  channel: string;
  senderId: string;
  tool: string;
  args: string;
  /** The pipeline step that decided (`deny[0]`, `rules[1]`, `risk`, `taint`, `grant:<id>`…). */
  rule: string;
  decision: 'allow' | 'ask' | 'deny';
  outcome: 'allowed' | 'denied';
  /** For asks: once | session | always | deny | timeout | cancelled | unattended. */
  answer?: string;
  answeredBy?: string;
  reason: string;
}

export type NewAuditEntry = Omit<AuditEntry, 'id' | 'at'> & { at?: number };

export interface AuditQuery {
  sessionId?: string;
  /** Entries with an id below this (paging backwards). */
  beforeId?: number;
  /** Default 50, at most 1000. */
  limit?: number;
}

interface AuditRow {
  id: number;
  at: number;
  session_id: string;
  channel: string;
  sender_id: string;
  tool: string;
  args: string;
  rule: string;
  decision: AuditEntry['decision'];
  outcome: AuditEntry['outcome'];
  answer: string | null;
  answered_by: string | null;
  reason: string;
}

/**
 * The append-only audit log of gate decisions. Rows are never changed or removed (the schema's triggers
 * refuse it). Every method is synchronous.
 */
export class AuditRepository {
  private readonly insert: Statement;

  constructor(private readonly db: Database) {
    this.insert = db.prepare(
      `INSERT INTO audit_log (at, session_id, channel, sender_id, tool, args, rule, decision, outcome, answer,
         answered_by, reason)
       VALUES (@at, @sessionId, @channel, @senderId, @tool, @args, @rule, @decision, @outcome, @answer,
         @answeredBy, @reason)`,
    );
  }

  /** Appends one entry and returns its id. Not idempotent. */
  append(entry: NewAuditEntry): number {
    const result = this.insert.run({
      ...entry,
      at: entry.at ?? Date.now(),
      answer: entry.answer ?? null,
      answeredBy: entry.answeredBy ?? null,
    });
    return Number(result.lastInsertRowid);
  }

  /** Newest first. */
  list(query: AuditQuery = {}): AuditEntry[] {
    const limit = Math.min(Math.max(1, Math.trunc(query.limit ?? 50)), 1000);
    const where = ['id < @beforeId'];
    if (query.sessionId !== undefined) where.push('session_id = @sessionId');
    const rows = this.db
      .prepare(`SELECT * FROM audit_log WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT @limit`)
      .all({
        beforeId: query.beforeId ?? Number.MAX_SAFE_INTEGER,
        limit,
        ...(query.sessionId !== undefined ? { sessionId: query.sessionId } : {}),
      }) as AuditRow[];
    return rows.map((row) => ({
      id: row.id,
      at: row.at,
      sessionId: row.session_id,
      channel: row.channel,
      senderId: row.sender_id,
      tool: row.tool,
      args: row.args,
      rule: row.rule,
      decision: row.decision,
      outcome: row.outcome,
      ...(row.answer !== null ? { answer: row.answer } : {}),
      ...(row.answered_by !== null ? { answeredBy: row.answered_by } : {}),
      reason: row.reason,
    }));
  }
}
