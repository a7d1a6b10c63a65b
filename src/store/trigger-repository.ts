import type Database from 'better-sqlite3';
import type { OutboxPayload } from './outbox-repository.js';

export interface TriggerEvent {
  id: number;
  /** What raised it (`mail:bank`): the outbox run's `ref`. */
  triggerId: string;
  /** The event's own key (`mail:<address>:<uidvalidity>:<uid>`): the outbox run's UNIQUE source key. */
  key: string;
  seenAt: number;
  payload: OutboxPayload;
}

interface Row {
  id: number;
  trigger_id: string;
  key: string;
  seen_at: number;
  payload: string;
}

/**
 * Event triggers (schema v5 `triggers`): an event is stored once (its key is UNIQUE) when it is seen, before
 * whatever saw it moves on (a mailbox cursor), and is later claimed into the outbox under the same key — so
 * each event runs once, across crashes on either side.
 */
export class TriggerRepository {
  constructor(private readonly db: Database.Database) {}

  /** Stores an event; false when its key was seen before. */
  record(event: Omit<TriggerEvent, 'id'>): boolean {
    const result = this.db
      .prepare('INSERT OR IGNORE INTO triggers (trigger_id, key, seen_at, payload) VALUES (?, ?, ?, ?)')
      .run(event.triggerId, event.key, event.seenAt, JSON.stringify(event.payload));
    return result.changes === 1;
  }

  /** Events after id `after` not yet claimed in the outbox, oldest first. */
  unclaimed(after: number, limit: number): TriggerEvent[] {
    const rows = this.db
      .prepare(
        `SELECT t.* FROM triggers t LEFT JOIN outbox o ON o.source_key = t.key
         WHERE t.id > ? AND o.id IS NULL AND t.payload IS NOT NULL ORDER BY t.id LIMIT ?`,
      )
      .all(after, limit) as Row[];
    return rows.map((row) => ({
      id: row.id,
      triggerId: row.trigger_id,
      key: row.key,
      seenAt: row.seen_at,
      payload: JSON.parse(row.payload) as OutboxPayload,
    }));
  }
}
