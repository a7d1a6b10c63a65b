import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import type { Migration } from '../../src/store/migration.js';
import { migrate } from '../../src/store/migrations.js';
import { openDatabase } from '../../src/store/open-database.js';

/**
 * A real SQLite file `wren.db` in a fresh folder, at the current schema or, with `migrations`, at just those;
 * `cleanups` gets what closes it and removes the folder.
 */
export function tempDatabase(
  prefix: string,
  cleanups: Array<() => void>,
  migrations?: readonly Migration[],
): { db: Database.Database; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const path = join(dir, 'wren.db');
  const db = migrations ? openDatabase(path, { migrate: false }) : openDatabase(path);
  if (migrations) migrate(db, migrations);
  cleanups.push(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { db, dir };
}
