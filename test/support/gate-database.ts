import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { MIGRATION_V3 } from '../../src/store/migration-v3-gate.js';
import { MIGRATION_V10 } from '../../src/store/migration-v10-approvals.js';
import { MIGRATIONS, migrate } from '../../src/store/migrations.js';
import { openDatabase } from '../../src/store/open-database.js';

/**
 * A real SQLite file (default: in a fresh temp folder) with the gate's tables (schema v3, and v10's pending
 * approvals) on top of the released ones.
 */
export function gateDatabase(
  path = join(mkdtempSync(join(tmpdir(), 'wren-gate-')), 'wren.db'),
): Database.Database {
  const db = openDatabase(path, { migrate: false });
  migrate(db, [...MIGRATIONS.filter((migration) => migration.version < 3), MIGRATION_V3, MIGRATION_V10]);
  return db;
}
