import type { Migration } from './migration.js';

/**
 * Schema v7: the scheduler's state of the cron jobs defined in `jobs.yaml` (the file is the definition; this
 * table only remembers where each job stands). Times are UTC Unix milliseconds.
 *
 * - `name`: the job's key in jobs.yaml; `cron` and `timezone` are the schedule the row's `next_at` was
 *   computed from (a reload that finds them changed recomputes `next_at` from now).
 * - `next_at`: the next occurrence to run; NULL while the job is disabled or its cron has no future
 *   occurrence. The partial index keeps "what is due" one index range.
 * - `definition_hash`: SHA-256 of the job as last synced (schedule, prompt, targets, enabled), to tell a
 *   changed definition apart without comparing fields.
 * - `run_requested_at`: set by `wren jobs run NAME` (any process); the scheduler claims one manual run
 *   (`cron:<name>:manual-<iso>`) and clears it in the same transaction.
 *
 * Run history is not kept here: it is the outbox rows of kind `cron` whose `ref` is the job name.
 */
const v7 = `
CREATE TABLE cron_jobs (
  name TEXT PRIMARY KEY,
  cron TEXT NOT NULL,
  timezone TEXT NOT NULL,
  next_at INTEGER,
  definition_hash TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  run_requested_at INTEGER
) STRICT;
CREATE INDEX cron_jobs_due ON cron_jobs (next_at) WHERE next_at IS NOT NULL;
CREATE INDEX cron_jobs_requested ON cron_jobs (run_requested_at) WHERE run_requested_at IS NOT NULL;
`;

export const MIGRATION_V7: Migration = {
  version: 7,
  description: 'cron job state (next run, definition hash, manual run requests)',
  up: (db) => db.exec(v7),
};
