import type { Database } from 'better-sqlite3';

export interface TaintRecord {
  kind: 'untrusted' | 'private';
  source: string;
  at: number;
}

/** Which sessions read untrusted or private data (one row per session and kind: the first source). */
export class TaintRepository {
  constructor(private readonly db: Database) {}

  /** Records that `sessionId` is tainted; a second mark of the same kind keeps the first. Idempotent. */
  mark(sessionId: string, kind: TaintRecord['kind'], source: string, at = Date.now()): void {
    this.db
      .prepare(
        'INSERT INTO session_taint (session_id, kind, source, at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING',
      )
      .run(sessionId, kind, source, at);
  }

  /** Every session that has read untrusted content. */
  untrustedSessions(): Set<string> {
    const rows = this.db
      .prepare("SELECT DISTINCT session_id AS id FROM session_taint WHERE kind = 'untrusted'")
      .all() as Array<{ id: string }>;
    return new Set(rows.map((row) => row.id));
  }

  of(sessionId: string): TaintRecord[] {
    return this.db
      .prepare('SELECT kind, source, at FROM session_taint WHERE session_id = ? ORDER BY at')
      .all(sessionId) as TaintRecord[];
  }
}
