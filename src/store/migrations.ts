import type { Database } from 'better-sqlite3';
import { StoreError } from '../util/store-error.js';
import type { Migration } from './migration.js';
import { MIGRATION_V2 } from './migration-v2-memory.js';
import { MIGRATION_V3 } from './migration-v3-gate.js';
import { MIGRATION_V4 } from './migration-v4-mcp.js';
import { MIGRATION_V5 } from './migration-v5-proactive.js';
import { MIGRATION_V6 } from './migration-v6-goals.js';
import { MIGRATION_V7 } from './migration-v7-cron.js';
import { MIGRATION_V8 } from './migration-v8-push.js';
import { MIGRATION_V9 } from './migration-v9-channels.js';
import { MIGRATION_V10 } from './migration-v10-approvals.js';
import { MIGRATION_V11 } from './migration-v11-embeddings.js';
import { MIGRATION_V12 } from './migration-v12-calendars.js';
import { MIGRATION_V13 } from './migration-v13-file-versions.js';
import { MIGRATION_V14 } from './migration-v14-vault.js';
import { MIGRATION_V15 } from './migration-v15-memory-proposals.js';

export type { Migration } from './migration.js';

/**
 * Schema v1. `messages.content` holds the whole ChatMessage as JSON (role included; the `role` column
 * duplicates it for queries); `details` holds UI-only data as JSON or NULL. Times are Unix milliseconds.
 */
const v1 = `
CREATE TABLE sessions (
  id TEXT PRIMARY KEY,
  key TEXT NOT NULL,
  channel TEXT NOT NULL,
  chat_id TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;
CREATE INDEX sessions_by_key ON sessions (key, created_at);
CREATE INDEX sessions_by_updated ON sessions (updated_at);

CREATE TABLE messages (
  session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  seq INTEGER NOT NULL CHECK (seq >= 1),
  role TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'tool')),
  content TEXT NOT NULL CHECK (json_valid(content)),
  tokens INTEGER NOT NULL CHECK (tokens >= 0),
  details TEXT CHECK (details IS NULL OR json_valid(details)),
  created_at INTEGER NOT NULL,
  PRIMARY KEY (session_id, seq)
) STRICT;
-- Covers the backwards walk of recentMessages without touching message bodies.
CREATE INDEX messages_budget ON messages (session_id, seq, tokens);

CREATE TABLE usage (
  id INTEGER PRIMARY KEY,
  session_id TEXT REFERENCES sessions (id) ON DELETE SET NULL,
  endpoint TEXT NOT NULL,
  input_tokens INTEGER NOT NULL,
  output_tokens INTEGER NOT NULL,
  cached_tokens INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL
) STRICT;
CREATE INDEX usage_by_time ON usage (created_at);
CREATE INDEX usage_by_session ON usage (session_id);

CREATE TABLE settings (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
) STRICT;
`;

/** Every migration, in order. Append only: never edit a released step. */
export const MIGRATIONS: readonly Migration[] = [
  { version: 1, description: 'sessions, messages, usage, settings', up: (db) => db.exec(v1) },
  MIGRATION_V2,
  MIGRATION_V3,
  MIGRATION_V4,
  MIGRATION_V5,
  MIGRATION_V6,
  MIGRATION_V7,
  MIGRATION_V8,
  MIGRATION_V9,
  MIGRATION_V10,
  MIGRATION_V11,
  MIGRATION_V12,
  MIGRATION_V13,
  MIGRATION_V14,
  MIGRATION_V15,
];

/** The schema version this code writes. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

/** The schema version `db` is at (`PRAGMA user_version`; 0 for a new, empty database). */
export function userVersion(db: Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/** The refusal of a database written by a newer Wren (schema `found`, this code knows up to `latest`). */
export function newerSchemaError(path: string, found: number, latest: number): StoreError {
  return new StoreError(
    `${path}: the database has schema version ${found}, but this Wren only knows versions up to ${latest}; ` +
      'upgrade Wren, or restore a backup made with this version. Wren left the file untouched',
    { path },
  );
}

/**
 * Brings the schema up to date, one migration per IMMEDIATE transaction (so two processes never run the
 * same step twice). Idempotent: a current database is left alone.
 * @returns the versions before and after.
 * @throws StoreError when the database was written by a newer Wren (its version is unknown here) or a step
 * fails (that step is rolled back; earlier steps stay).
 */
export function migrate(
  db: Database,
  migrations: readonly Migration[] = MIGRATIONS,
): { from: number; to: number } {
  const latest = migrations.length ? migrations[migrations.length - 1]!.version : 0;
  const from = userVersion(db);
  if (from > latest) throw newerSchemaError(db.name, from, latest);
  for (const migration of migrations) {
    const step = db.transaction(() => {
      if (userVersion(db) >= migration.version) return;
      migration.up(db);
      db.pragma(`user_version = ${migration.version}`);
    });
    try {
      step.immediate();
    } catch (error) {
      throw new StoreError(
        `${db.name}: migration to schema version ${migration.version} (${migration.description}) failed: ` +
          `${(error as Error).message}; the database is unchanged by this step; report this as a bug`,
        { path: db.name, cause: error },
      );
    }
  }
  return { from, to: userVersion(db) };
}

/**
 * Brings the schema up to `version` exactly (an earlier one than this code writes): what an older Wren left
 * behind, for upgrade tests. @throws StoreError as migrate does, or when `version` is not one of
 * `migrations`' versions.
 */
export function migrateTo(
  db: Database,
  version: number,
  migrations: readonly Migration[] = MIGRATIONS,
): { from: number; to: number } {
  if (!migrations.some((migration) => migration.version === version))
    throw new StoreError(
      `${db.name}: there is no schema version ${version} (known: ${migrations.map((m) => m.version).join(', ')})`,
      { path: db.name },
    );
  return migrate(
    db,
    migrations.filter((migration) => migration.version <= version),
  );
}
