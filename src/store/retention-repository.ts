import { statSync } from 'node:fs';
import type { Database } from 'better-sqlite3';
import type { DatabaseSizeReport, PruneResult, RetentionAges, RetentionStore, TableSize } from './ports.js';

export type { DatabaseSizeReport, PruneResult, RetentionAges, RetentionStore, TableSize };

/** Rows deleted per transaction: each stays short, so other writers wait milliseconds, not seconds. */
const BATCH = 500;
/** VACUUM (rewriting the whole file) only when at least this share of its pages is free. */
const VACUUM_FREE_SHARE = 0.2;
const AUDIT_GUARD = 'audit_log_no_delete';

/** The SQLite implementation of RetentionStore. Synchronous; `prune` runs in batches of short transactions. */
export class RetentionRepository implements RetentionStore {
  constructor(private readonly db: Database) {}

  prune(ages: RetentionAges, now: number): PruneResult {
    const cutoff = (ms: number) => (ms > 0 ? now - ms : undefined);
    const messages = this.#pruneSessions(cutoff(ages.messagesMs));
    const result: PruneResult = {
      ...messages,
      outbox: this.#pruneOutbox(cutoff(ages.outboxMs)),
      audit: this.#pruneAudit(cutoff(ages.auditMs)),
      feed: this.#batched(
        'SELECT id FROM feed WHERE created_at < ? LIMIT ?',
        'DELETE FROM feed WHERE id = ?',
        cutoff(ages.feedMs),
      ),
      vacuumed: false,
    };
    const deleted = result.sessions + result.outbox + result.audit + result.feed;
    if (deleted > 0) result.vacuumed = this.#compact();
    return result;
  }

  sizeReport(): DatabaseSizeReport {
    const pageSize = this.db.pragma('page_size', { simple: true }) as number;
    const pageCount = this.db.pragma('page_count', { simple: true }) as number;
    const freePages = this.db.pragma('freelist_count', { simple: true }) as number;
    const file = this.db.memory ? undefined : this.db.name;
    const sizeOf = (path: string) => {
      try {
        return statSync(path).size;
      } catch {
        return 0;
      }
    };
    const walBytes = file ? sizeOf(`${file}-wal`) : 0;
    const fileBytes = (file ? sizeOf(file) : pageSize * pageCount) + walBytes;
    return { fileBytes, walBytes, pageSize, pageCount, freePages, tables: this.#tableSizes() };
  }

  /** Whole sessions idle since before `cutoff`: messages, search rows and memory state go with them. */
  #pruneSessions(cutoff: number | undefined): { sessions: number; messages: number } {
    if (cutoff === undefined) return { sessions: 0, messages: 0 };
    const pick = this.db
      .prepare<[number, number], string>('SELECT id FROM sessions WHERE updated_at < ? LIMIT ?')
      .pluck();
    const count = this.db
      .prepare<[string], number>('SELECT count(*) FROM messages WHERE session_id = ?')
      .pluck();
    // The messages' delete triggers remove their full-text and embedding links; the foreign keys cascade
    // to the summary, the consolidation journal and status, and detach the session's usage rows (kept).
    const drop = this.db.prepare<[string]>('DELETE FROM sessions WHERE id = ?');
    const totals = { sessions: 0, messages: 0 };
    const batch = this.db.transaction(() => {
      const ids = pick.all(cutoff, BATCH / 10);
      for (const id of ids) {
        totals.messages += count.get(id) ?? 0;
        drop.run(id);
      }
      totals.sessions += ids.length;
      return ids.length;
    });
    while (batch() > 0);
    return totals;
  }

  /** Finished runs older than `cutoff` with no delivery still to send; their deliveries cascade. */
  #pruneOutbox(cutoff: number | undefined): number {
    return this.#batched(
      `SELECT id FROM outbox AS o WHERE state = 'done' AND coalesce(finished_at, claimed_at) < ?
         AND NOT EXISTS (SELECT 1 FROM deliveries AS d WHERE d.outbox_id = o.id AND d.state = 'pending') LIMIT ?`,
      'DELETE FROM outbox WHERE id = ?',
      cutoff,
    );
  }

  /**
   * The audit log is append-only: a trigger refuses DELETE. Retention is its one sanctioned deletion, so
   * each batch lifts the trigger and puts the very same statement back inside one transaction — no other
   * connection ever sees the log without its guard, and the schema is unchanged afterwards.
   */
  #pruneAudit(cutoff: number | undefined): number {
    if (cutoff === undefined) return 0;
    const guard = this.db
      .prepare<[string], string>("SELECT sql FROM sqlite_schema WHERE type = 'trigger' AND name = ?")
      .pluck()
      .get(AUDIT_GUARD);
    const pick = this.db
      .prepare<[number, number], number>('SELECT id FROM audit_log WHERE at < ? ORDER BY id LIMIT ?')
      .pluck();
    const batch = this.db.transaction(() => {
      const ids = pick.all(cutoff, BATCH);
      if (ids.length === 0) return 0;
      if (guard) this.db.exec(`DROP TRIGGER ${AUDIT_GUARD}`);
      this.db.prepare('DELETE FROM audit_log WHERE id <= ? AND at < ?').run(ids.at(-1)!, cutoff);
      if (guard) this.db.exec(guard);
      return ids.length;
    });
    let total = 0;
    for (let deleted = batch(); deleted > 0; deleted = batch()) total += deleted;
    return total;
  }

  /** Deletes, `BATCH` per transaction, the ids `select` (params: cutoff, limit) finds. */
  #batched(select: string, remove: string, cutoff: number | undefined): number {
    if (cutoff === undefined) return 0;
    const pick = this.db.prepare<[number, number], number>(select).pluck();
    const drop = this.db.prepare<[number]>(remove);
    const batch = this.db.transaction(() => {
      const ids = pick.all(cutoff, BATCH);
      for (const id of ids) drop.run(id);
      return ids.length;
    });
    let total = 0;
    for (let deleted = batch(); deleted > 0; deleted = batch()) total += deleted;
    return total;
  }

  /**
   * After deleting: VACUUM when a fifth or more of the file is free pages (auto_vacuum is off in Wren's
   * databases, so only VACUUM gives space back), then fold the write-ahead log into the file and truncate it.
   * A busy database (another process mid-read) leaves the file as it is until the next prune.
   */
  #compact(): boolean {
    let vacuumed = false;
    const pages = this.db.pragma('page_count', { simple: true }) as number;
    const free = this.db.pragma('freelist_count', { simple: true }) as number;
    if (pages > 0 && free / pages >= VACUUM_FREE_SHARE) {
      try {
        this.db.exec('VACUUM');
        vacuumed = true;
      } catch {
        // SQLITE_BUSY or no room for the copy: try again after the next prune.
      }
    }
    if (!this.db.memory) this.db.pragma('wal_checkpoint(TRUNCATE)');
    return vacuumed;
  }

  /** Bytes per table (indexes and full-text shadow tables counted with their table), from dbstat. */
  #tableSizes(): TableSize[] {
    let rows: Array<{ name: string; bytes: number }>;
    try {
      rows = this.db
        .prepare("SELECT name, pgsize AS bytes FROM dbstat WHERE aggregate = TRUE AND schema = 'main'")
        .all() as Array<{ name: string; bytes: number }>;
    } catch {
      return [];
    }
    const schema = this.db.prepare('SELECT name, tbl_name, sql FROM sqlite_schema').all() as Array<{
      name: string;
      tbl_name: string;
      sql: string | null;
    }>;
    const owner = new Map(schema.map((row) => [row.name, row.tbl_name]));
    const virtual = schema
      .filter((row) => /^CREATE VIRTUAL TABLE/i.test(row.sql ?? ''))
      .map((row) => row.name)
      .sort((a, b) => b.length - a.length);
    const tableOf = (name: string) =>
      virtual.find((table) => name.startsWith(`${table}_`)) ?? owner.get(name) ?? name;
    const totals = new Map<string, number>();
    for (const row of rows) {
      const table = tableOf(row.name);
      totals.set(table, (totals.get(table) ?? 0) + row.bytes);
    }
    return [...totals]
      .map(([name, bytes]) => ({ name, bytes }))
      .sort((a, b) => b.bytes - a.bytes || a.name.localeCompare(b.name));
  }
}
