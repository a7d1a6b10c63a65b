import type { Migration } from './migration.js';

/**
 * Schema v13: the history of the workspace's instruction files (MEMORY.md, USER.md, SOUL.md, AGENTS.md,
 * HEARTBEAT.md, skills). One row per version: `path` relative to the workspace (`MEMORY.md`,
 * `skills/<name>/SKILL.md`), the whole `content`, its `sha256` (hex, what an `If-Match` names), who made it
 * (`author`: consolidation, tidy, dream, tool:<name>, web, cli, disk — an edit found on disk —, revert) and a
 * short `note`. Versions in the database rather than a git repository: the database is already backed up,
 * copied and migrated as one file, and a version is one INSERT inside the writer's own transaction.
 */
const v13 = `
CREATE TABLE file_versions (
  id INTEGER PRIMARY KEY,
  path TEXT NOT NULL CHECK (length(path) BETWEEN 1 AND 300),
  content TEXT NOT NULL,
  sha256 TEXT NOT NULL CHECK (length(sha256) = 64),
  author TEXT NOT NULL CHECK (length(author) BETWEEN 1 AND 80),
  note TEXT NOT NULL DEFAULT '',
  created_at INTEGER NOT NULL
) STRICT;
CREATE INDEX file_versions_by_path ON file_versions (path, id);
`;

export const MIGRATION_V13: Migration = {
  version: 13,
  description: 'versions of the instruction files',
  up: (db) => db.exec(v13),
};
