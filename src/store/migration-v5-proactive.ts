import type { Migration } from './migration.js';

/**
 * Schema v5: the proactive core. Times are UTC Unix milliseconds.
 *
 * - `reminders`: one-off (`at`) or recurring (`cron` read in `timezone`); `next_at` is the next occurrence,
 *   NULL once done or cancelled. The partial index keeps "what is due" one index range, whatever the total.
 * - `outbox`: every run of anything due is claimed here first. `source_key` is UNIQUE (`reminder:<id>:<iso>`,
 *   `cron:<name>:<iso>` …), so an occurrence can be claimed once only; the claim and the item's advance to its
 *   next occurrence are one transaction. `payload` freezes what to run. States: pending → running → done;
 *   rows not done at start are the runs a crash interrupted, and are run again.
 * - `deliveries`: one row per (run, target), written with the run's result; `sent` once the target took it,
 *   so a crash re-sends only what was not confirmed (with the same idempotency key).
 * - `feed`: what proactive runs produced, newest first; quiet results are marked.
 * - `triggers`: event triggers seen (a mail UID …): `key` UNIQUE makes each event run once.
 */
const v5 = `
CREATE TABLE reminders (
  id INTEGER PRIMARY KEY,
  text TEXT NOT NULL CHECK (length(text) > 0),
  mode TEXT NOT NULL CHECK (mode IN ('notify', 'agent')),
  at INTEGER,
  cron TEXT,
  timezone TEXT NOT NULL,
  next_at INTEGER,
  status TEXT NOT NULL CHECK (status IN ('active', 'done', 'cancelled')),
  deliver_to TEXT NOT NULL CHECK (json_valid(deliver_to)),
  session_id TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  fired INTEGER NOT NULL DEFAULT 0,
  last_fired_at INTEGER,
  CHECK ((at IS NULL) != (cron IS NULL))
) STRICT;
CREATE INDEX reminders_due ON reminders (next_at) WHERE status = 'active';

CREATE TABLE outbox (
  id INTEGER PRIMARY KEY,
  source_key TEXT NOT NULL UNIQUE,
  kind TEXT NOT NULL,
  ref TEXT NOT NULL,
  due_at INTEGER NOT NULL,
  late INTEGER NOT NULL DEFAULT 0 CHECK (late IN (0, 1)),
  payload TEXT NOT NULL CHECK (json_valid(payload)),
  state TEXT NOT NULL CHECK (state IN ('pending', 'running', 'done')),
  claimed_at INTEGER NOT NULL,
  started_at INTEGER,
  finished_at INTEGER,
  attempts INTEGER NOT NULL DEFAULT 0,
  outcome TEXT CHECK (outcome IS NULL OR outcome IN ('delivered', 'quiet', 'failed')),
  result TEXT,
  error TEXT
) STRICT;
CREATE INDEX outbox_unfinished ON outbox (claimed_at) WHERE state != 'done';
CREATE INDEX outbox_by_ref ON outbox (kind, ref, due_at);

CREATE TABLE deliveries (
  id INTEGER PRIMARY KEY,
  outbox_id INTEGER NOT NULL REFERENCES outbox (id) ON DELETE CASCADE,
  target TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('pending', 'sent', 'failed')),
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL,
  last_error TEXT,
  sent_at INTEGER,
  UNIQUE (outbox_id, target)
) STRICT;
CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE state = 'pending';

CREATE TABLE feed (
  id INTEGER PRIMARY KEY,
  outbox_id INTEGER UNIQUE REFERENCES outbox (id) ON DELETE SET NULL,
  kind TEXT NOT NULL,
  title TEXT NOT NULL,
  text TEXT NOT NULL,
  quiet INTEGER NOT NULL DEFAULT 0 CHECK (quiet IN (0, 1)),
  late INTEGER NOT NULL DEFAULT 0 CHECK (late IN (0, 1)),
  failed INTEGER NOT NULL DEFAULT 0 CHECK (failed IN (0, 1)),
  created_at INTEGER NOT NULL,
  read_at INTEGER
) STRICT;
CREATE INDEX feed_newest ON feed (created_at);

CREATE TABLE triggers (
  id INTEGER PRIMARY KEY,
  trigger_id TEXT NOT NULL,
  key TEXT NOT NULL UNIQUE,
  seen_at INTEGER NOT NULL,
  payload TEXT CHECK (payload IS NULL OR json_valid(payload))
) STRICT;
`;

export const MIGRATION_V5: Migration = {
  version: 5,
  description: 'reminders, outbox, deliveries, feed and event triggers',
  up: (db) => db.exec(v5),
};
