import type { Migration } from './migration.js';

/**
 * Schema v3, the gate. `audit_log` is append-only (triggers refuse UPDATE and DELETE); `grants` rows are
 * never deleted, only marked revoked or (scope `once`) consumed; `session_taint` holds one row per session
 * and kind, the first source that tainted it. Session ids are not foreign keys: subagent and proactive runs
 * may gate calls for sessions another store owns. Times are Unix milliseconds.
 */
const v3 = `
CREATE TABLE audit_log (
  id INTEGER PRIMARY KEY,
  at INTEGER NOT NULL,
  session_id TEXT NOT NULL,
  channel TEXT NOT NULL,
  sender_id TEXT NOT NULL,
  tool TEXT NOT NULL,
  args TEXT NOT NULL,
  rule TEXT NOT NULL,
  decision TEXT NOT NULL CHECK (decision IN ('allow', 'ask', 'deny')),
  outcome TEXT NOT NULL CHECK (outcome IN ('allowed', 'denied')),
  answer TEXT,
  answered_by TEXT,
  reason TEXT NOT NULL
) STRICT;
CREATE INDEX audit_by_session ON audit_log (session_id, id);
CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;
CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;

CREATE TABLE grants (
  id TEXT PRIMARY KEY,
  tool TEXT NOT NULL,
  target TEXT,
  scope TEXT NOT NULL CHECK (scope IN ('once', 'session', 'always')),
  session_id TEXT,
  created_at INTEGER NOT NULL,
  created_by TEXT NOT NULL,
  consumed_at INTEGER,
  revoked_at INTEGER,
  CHECK ((scope = 'session') = (session_id IS NOT NULL))
) STRICT;
CREATE INDEX grants_by_tool ON grants (tool) WHERE revoked_at IS NULL AND consumed_at IS NULL;

CREATE TABLE session_taint (
  session_id TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('untrusted', 'private')),
  source TEXT NOT NULL,
  at INTEGER NOT NULL,
  PRIMARY KEY (session_id, kind)
) STRICT;
`;

export const MIGRATION_V3: Migration = {
  version: 3,
  description: 'gate: audit log, grants, session taint',
  up: (db) => db.exec(v3),
};
