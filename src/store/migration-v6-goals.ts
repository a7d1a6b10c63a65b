import type { Migration } from './migration.js';

/**
 * Schema v6: goals with steps and proposals. Times are UTC Unix milliseconds; `due_date` is a local
 * `YYYY-MM-DD` read in the goal's `timezone`.
 *
 * - `goals`: `passes` counts the goal passes claimed for it (the outbox key is `goal:<id>:<passes + 1>`),
 *   `last_pass_at` the latest; `last_touched_at` moves on every change (owner, model or pass) so the pass
 *   picks the most neglected goal. `next_checkin_at` is the next occurrence of `checkin_cron` (NULL when there
 *   is none or the goal is not active). Partial indexes keep "overdue goals", "least recently touched" and
 *   "due check-ins" one index range each; `goals_last_pass` makes "when was the last pass" one index probe.
 * - `goal_steps`: the plan, ordered by `position` (1-based).
 * - `goal_proposals`: plan changes the assistant proposed: `steps` is the complete new step list (JSON array
 *   of `{title, status?, notes?}`); only the owner accepts (the plan is replaced) or dismisses them.
 */
const v6 = `
CREATE TABLE goals (
  id INTEGER PRIMARY KEY,
  title TEXT NOT NULL CHECK (length(title) > 0),
  why TEXT,
  status TEXT NOT NULL CHECK (status IN ('active', 'paused', 'done', 'cancelled')),
  due_date TEXT CHECK (due_date IS NULL OR due_date GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
  checkin_cron TEXT,
  timezone TEXT NOT NULL,
  next_checkin_at INTEGER CHECK (next_checkin_at IS NULL OR checkin_cron IS NOT NULL),
  passes INTEGER NOT NULL DEFAULT 0 CHECK (passes >= 0),
  last_pass_at INTEGER,
  last_touched_at INTEGER NOT NULL,
  session_id TEXT,
  deliver_to TEXT NOT NULL CHECK (json_valid(deliver_to)),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;
CREATE INDEX goals_overdue ON goals (due_date) WHERE status = 'active' AND due_date IS NOT NULL;
CREATE INDEX goals_untouched ON goals (last_touched_at, id) WHERE status = 'active';
CREATE INDEX goals_checkins_due ON goals (next_checkin_at) WHERE status = 'active';
CREATE INDEX goals_last_pass ON goals (last_pass_at);

CREATE TABLE goal_steps (
  id INTEGER PRIMARY KEY,
  goal_id INTEGER NOT NULL REFERENCES goals (id) ON DELETE CASCADE,
  position INTEGER NOT NULL CHECK (position >= 1),
  title TEXT NOT NULL CHECK (length(title) > 0),
  status TEXT NOT NULL CHECK (status IN ('pending', 'in_progress', 'done', 'blocked', 'skipped')),
  notes TEXT NOT NULL DEFAULT '',
  updated_at INTEGER NOT NULL
) STRICT;
CREATE INDEX goal_steps_plan ON goal_steps (goal_id, position);

CREATE TABLE goal_proposals (
  id INTEGER PRIMARY KEY,
  goal_id INTEGER NOT NULL REFERENCES goals (id) ON DELETE CASCADE,
  reason TEXT NOT NULL CHECK (length(reason) > 0),
  steps TEXT NOT NULL CHECK (json_valid(steps) AND json_type(steps) = 'array'),
  status TEXT NOT NULL CHECK (status IN ('pending', 'accepted', 'dismissed')),
  created_at INTEGER NOT NULL,
  decided_at INTEGER
) STRICT;
CREATE INDEX goal_proposals_by_goal ON goal_proposals (goal_id, status, id);
`;

export const MIGRATION_V6: Migration = {
  version: 6,
  description: 'goals, goal steps and goal proposals',
  up: (db) => db.exec(v6),
};
