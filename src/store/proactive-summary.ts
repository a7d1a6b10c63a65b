import type { Database } from 'better-sqlite3';
import { ReminderRepository } from './reminder-repository.js';

export interface ProactiveSummary {
  /** Active reminders. */
  reminders: number;
  /** The earliest next occurrence of an active reminder (UTC ms), or null. */
  nextReminderAt: number | null;
  /** Active goals. */
  goals: number;
  /** Deliveries not yet confirmed by their target (retried by the scheduler). */
  deliveriesWaiting: number;
}

/** What `wren status` shows of the proactive side, read from the home's database (a gateway running or not). */
export function proactiveSummary(db: Database): ProactiveSummary {
  const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
  return {
    reminders: count("SELECT count(*) AS n FROM reminders WHERE status = 'active'"),
    nextReminderAt: new ReminderRepository(db).nextDue() ?? null,
    goals: count("SELECT count(*) AS n FROM goals WHERE status = 'active'"),
    deliveriesWaiting: count("SELECT count(*) AS n FROM deliveries WHERE state = 'pending'"),
  };
}
