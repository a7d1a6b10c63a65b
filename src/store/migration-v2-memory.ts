import type { Migration } from './migration.js';

/** The text of a stored message for search: a user/assistant string, or the text parts of user content. */
const MESSAGE_TEXT = `substr(CASE json_type(new.content, '$.content')
  WHEN 'text' THEN json_extract(new.content, '$.content')
  WHEN 'array' THEN (SELECT group_concat(json_extract(value, '$.text'), ' ') FROM json_each(new.content, '$.content')
    WHERE json_extract(value, '$.type') = 'text')
  ELSE '' END, 1, 100000)`;

/**
 * Schema v2: memory. Times are Unix milliseconds.
 * - `session_memory`: the consolidation marker and cascading summary per session (no row = nothing yet).
 * - `consolidation_pending`: finished consolidation work not yet committed (at most one per session), so a
 *   crash between saving the model's answer and moving the marker is replayed, never redone.
 * - `consolidation_status`: failures, backoff and totals per session, for `wren status`.
 * - `message_search`: FTS5 over the text of user and assistant messages (rowid = messages.rowid), kept by
 *   triggers in the same transaction as the messages; tool results are not indexed.
 * - `memos` (+ FTS5 `memo_search`) and `tasks`.
 */
const v2 = `
CREATE TABLE session_memory (
  session_id TEXT PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
  consolidated_seq INTEGER NOT NULL DEFAULT 0 CHECK (consolidated_seq >= 0),
  summary TEXT NOT NULL DEFAULT '',
  updated_at INTEGER NOT NULL
) STRICT;

CREATE TABLE consolidation_pending (
  session_id TEXT PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
  from_seq INTEGER NOT NULL CHECK (from_seq >= 1),
  through_seq INTEGER NOT NULL,
  summary TEXT NOT NULL,
  payload TEXT NOT NULL CHECK (json_valid(payload)),
  created_at INTEGER NOT NULL,
  CHECK (through_seq >= from_seq)
) STRICT;

CREATE TABLE consolidation_status (
  session_id TEXT PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
  failures INTEGER NOT NULL DEFAULT 0,
  last_error TEXT,
  last_attempt_at INTEGER,
  next_attempt_at INTEGER,
  last_success_at INTEGER,
  consolidated_messages INTEGER NOT NULL DEFAULT 0,
  input_tokens INTEGER NOT NULL DEFAULT 0,
  output_tokens INTEGER NOT NULL DEFAULT 0
) STRICT;

CREATE VIRTUAL TABLE message_search USING fts5(
  text, session_id UNINDEXED, seq UNINDEXED, role UNINDEXED, created_at UNINDEXED,
  tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TRIGGER message_search_insert AFTER INSERT ON messages WHEN new.role IN ('user', 'assistant') BEGIN
  INSERT INTO message_search (rowid, text, session_id, seq, role, created_at)
  SELECT new.rowid, t, new.session_id, new.seq, new.role, new.created_at FROM (SELECT ${MESSAGE_TEXT} AS t)
  WHERE t IS NOT NULL AND t <> '';
END;
CREATE TRIGGER message_search_delete AFTER DELETE ON messages BEGIN
  DELETE FROM message_search WHERE rowid = old.rowid;
END;

CREATE TABLE memos (
  id INTEGER PRIMARY KEY,
  text TEXT NOT NULL CHECK (length(text) > 0),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;
CREATE VIRTUAL TABLE memo_search USING fts5(text, content = 'memos', content_rowid = 'id',
  tokenize = 'unicode61 remove_diacritics 2');
CREATE TRIGGER memo_search_insert AFTER INSERT ON memos BEGIN
  INSERT INTO memo_search (rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER memo_search_delete AFTER DELETE ON memos BEGIN
  INSERT INTO memo_search (memo_search, rowid, text) VALUES ('delete', old.id, old.text);
END;
CREATE TRIGGER memo_search_update AFTER UPDATE OF text ON memos BEGIN
  INSERT INTO memo_search (memo_search, rowid, text) VALUES ('delete', old.id, old.text);
  INSERT INTO memo_search (rowid, text) VALUES (new.id, new.text);
END;

CREATE TABLE tasks (
  id INTEGER PRIMARY KEY,
  title TEXT NOT NULL CHECK (length(title) > 0),
  notes TEXT NOT NULL DEFAULT '',
  due TEXT CHECK (due IS NULL OR due GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]*'),
  priority TEXT NOT NULL DEFAULT 'normal' CHECK (priority IN ('low', 'normal', 'high')),
  status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'done')),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  completed_at INTEGER
) STRICT;
CREATE INDEX tasks_by_status ON tasks (status, due);
`;

/** Indexes messages stored before v2 (the triggers cover everything after). */
const BACKFILL = `
INSERT INTO message_search (rowid, text, session_id, seq, role, created_at)
SELECT rowid, t, session_id, seq, role, created_at FROM (
  SELECT m.rowid AS rowid, m.session_id AS session_id, m.seq AS seq, m.role AS role, m.created_at AS created_at,
    ${MESSAGE_TEXT.replaceAll('new.content', 'm.content')} AS t
  FROM messages AS m WHERE m.role IN ('user', 'assistant')
) WHERE t IS NOT NULL AND t <> '';
`;

/** Schema v2: consolidation marker and journal, message search, memos, tasks. */
export const MIGRATION_V2: Migration = {
  version: 2,
  description: 'memory: consolidation, message search, memos, tasks',
  up: (db) => {
    db.exec(v2);
    db.exec(BACKFILL);
  },
};
