import type { Database } from 'better-sqlite3';

export type ReminderMode = 'notify' | 'agent';
export type ReminderStatus = 'active' | 'done' | 'cancelled';

export interface Reminder {
  id: number;
  text: string;
  mode: ReminderMode;
  /** One-off: when (UTC ms). */
  at?: number;
  /** Recurring: a cron expression read in `timezone`. */
  cron?: string;
  timezone: string;
  /** The next occurrence (UTC ms); undefined once done or cancelled. */
  nextAt?: number;
  status: ReminderStatus;
  /** Where it is delivered (`channel:chat`, `webhook:name`); the place it was created from by default. */
  deliverTo: string[];
  /** The conversation it came from (an agent-mode run continues there). */
  sessionId?: string;
  createdAt: number;
  updatedAt: number;
  fired: number;
  lastFiredAt?: number;
}

export interface NewReminder {
  text: string;
  mode: ReminderMode;
  at?: number;
  cron?: string;
  timezone: string;
  /** The first occurrence, computed by the caller from the schedule. */
  nextAt: number;
  deliverTo: string[];
  sessionId?: string;
}

interface Row {
  id: number;
  text: string;
  mode: ReminderMode;
  at: number | null;
  cron: string | null;
  timezone: string;
  next_at: number | null;
  status: ReminderStatus;
  deliver_to: string;
  session_id: string | null;
  created_at: number;
  updated_at: number;
  fired: number;
  last_fired_at: number | null;
}

function toReminder(row: Row): Reminder {
  return {
    id: row.id,
    text: row.text,
    mode: row.mode,
    ...(row.at !== null ? { at: row.at } : {}),
    ...(row.cron !== null ? { cron: row.cron } : {}),
    timezone: row.timezone,
    ...(row.next_at !== null ? { nextAt: row.next_at } : {}),
    status: row.status,
    deliverTo: JSON.parse(row.deliver_to) as string[],
    ...(row.session_id !== null ? { sessionId: row.session_id } : {}),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    fired: row.fired,
    ...(row.last_fired_at !== null ? { lastFiredAt: row.last_fired_at } : {}),
  };
}

/**
 * Reminders (schema v5). "What is due" is one range of the partial index on `next_at` of active rows, so a
 * tick costs the same with ten reminders or a hundred thousand. Every process of a home may write here (the
 * CLI while `wren start` runs): the running scheduler sees the change at its next tick.
 */
export class ReminderRepository {
  constructor(
    private readonly db: Database,
    private readonly now: () => number = Date.now,
  ) {}

  create(reminder: NewReminder): Reminder {
    const at = this.now();
    const info = this.db
      .prepare(
        `INSERT INTO reminders (text, mode, at, cron, timezone, next_at, status, deliver_to, session_id,
           created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 'active', ?, ?, ?, ?)`,
      )
      .run(
        reminder.text,
        reminder.mode,
        reminder.at ?? null,
        reminder.cron ?? null,
        reminder.timezone,
        reminder.nextAt,
        JSON.stringify(reminder.deliverTo),
        reminder.sessionId ?? null,
        at,
        at,
      );
    return this.get(Number(info.lastInsertRowid))!;
  }

  get(id: number): Reminder | undefined {
    const row = this.db.prepare('SELECT * FROM reminders WHERE id = ?').get(id) as Row | undefined;
    return row ? toReminder(row) : undefined;
  }

  /** Active reminders by next occurrence (or all, newest first). */
  list(which: 'active' | 'all' = 'active', limit = 100): Reminder[] {
    const sql =
      which === 'active'
        ? "SELECT * FROM reminders WHERE status = 'active' ORDER BY next_at, id LIMIT ?"
        : 'SELECT * FROM reminders ORDER BY created_at DESC, id DESC LIMIT ?';
    return (this.db.prepare(sql).all(limit) as Row[]).map(toReminder);
  }

  /** Cancels an active reminder; false when there is none with that id or it is no longer active. */
  cancel(id: number): boolean {
    const info = this.db
      .prepare(
        "UPDATE reminders SET status = 'cancelled', next_at = NULL, updated_at = ? WHERE id = ? AND status = 'active'",
      )
      .run(this.now(), id);
    return info.changes > 0;
  }

  /**
   * Changes an active reminder's text, mode or schedule (a new schedule replaces `at`/`cron`, `timezone`
   * and `nextAt` together). A run already claimed for the old time still delivers; its `advance` then finds
   * `next_at` changed and leaves the edit alone.
   * @returns the reminder, or undefined when no active reminder has `id`.
   */
  update(
    id: number,
    changes: {
      text?: string;
      mode?: ReminderMode;
      schedule?: { at?: number; cron?: string; timezone: string; nextAt: number };
    },
  ): Reminder | undefined {
    const { schedule } = changes;
    const info = this.db
      .prepare(
        `UPDATE reminders SET text = coalesce(@text, text), mode = coalesce(@mode, mode),
           at = CASE WHEN @reschedule THEN @at ELSE at END,
           cron = CASE WHEN @reschedule THEN @cron ELSE cron END,
           timezone = CASE WHEN @reschedule THEN @timezone ELSE timezone END,
           next_at = CASE WHEN @reschedule THEN @nextAt ELSE next_at END,
           updated_at = @now
         WHERE id = @id AND status = 'active'`,
      )
      .run({
        id,
        text: changes.text ?? null,
        mode: changes.mode ?? null,
        reschedule: schedule ? 1 : 0,
        at: schedule?.at ?? null,
        cron: schedule?.cron ?? null,
        timezone: schedule?.timezone ?? null,
        nextAt: schedule?.nextAt ?? null,
        now: this.now(),
      });
    return info.changes > 0 ? this.get(id) : undefined;
  }

  /** Active reminders due at `now`, earliest first (one index range). */
  due(now: number, limit = 100): Reminder[] {
    return (
      this.db
        .prepare(
          "SELECT * FROM reminders WHERE status = 'active' AND next_at <= ? ORDER BY next_at, id LIMIT ?",
        )
        .all(now, limit) as Row[]
    ).map(toReminder);
  }

  /** The earliest next occurrence of any active reminder. */
  nextDue(): number | undefined {
    const row = this.db.prepare("SELECT min(next_at) AS at FROM reminders WHERE status = 'active'").get() as {
      at: number | null;
    };
    return row.at ?? undefined;
  }

  /**
   * Moves a fired reminder on: to `next`, or done when there is no next occurrence. Only when it still waits
   * for `expectedNext` (a concurrent cancel or edit wins). Meant to run inside the outbox claim.
   */
  advance(id: number, expectedNext: number, next: number | undefined): void {
    const at = this.now();
    this.db
      .prepare(
        `UPDATE reminders SET next_at = ?, status = CASE WHEN ? IS NULL THEN 'done' ELSE status END,
           fired = fired + 1, last_fired_at = ?, updated_at = ?
         WHERE id = ? AND status = 'active' AND next_at = ?`,
      )
      .run(next ?? null, next ?? null, at, at, id, expectedNext);
  }
}
