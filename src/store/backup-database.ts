import { statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { StoreError } from '../util/store-error.js';
import { SCHEMA_VERSION } from './migrations.js';
import type { DatabaseSnapshot } from './ports.js';

export type { DatabaseSnapshot };

/** Rows of every ordinary table (virtual tables need their extension and hold derived data; skipped). */
function tableCounts(db: Database.Database): Record<string, number> {
  const tables = db
    .prepare(
      `SELECT name FROM sqlite_master
        WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND sql NOT LIKE 'CREATE VIRTUAL TABLE%'
        ORDER BY name`,
    )
    .pluck()
    .all() as string[];
  const counts: Record<string, number> = {};
  for (const table of tables) {
    const quoted = `"${table.replace(/"/g, '""')}"`;
    counts[table] = db.prepare(`SELECT count(*) FROM ${quoted}`).pluck().get() as number;
  }
  return counts;
}

function integrityProblems(db: Database.Database): string[] {
  const rows = db.pragma('integrity_check') as Array<{ integrity_check: string }>;
  return rows.map((row) => row.integrity_check).filter((line) => line !== 'ok');
}

/**
 * Reads a database file that is not in use (a fresh backup copy, or one unpacked from an archive): runs the
 * full `PRAGMA integrity_check`, reads its schema version and counts the rows of every table. Turns the file
 * into a single self-contained file (rollback journal, no `-wal` beside it). Never migrates.
 * @throws StoreError when the file is not a SQLite database, is damaged, or has a schema newer than this
 * Wren knows (`SCHEMA_VERSION`).
 */
export function inspectDatabaseFile(path: string): DatabaseSnapshot {
  let db: Database.Database;
  try {
    db = new Database(path, { fileMustExist: true });
  } catch (error) {
    throw new StoreError(`${path}: cannot open the database (SQLite says: ${(error as Error).message})`, {
      path,
      cause: error,
    });
  }
  let snapshot: Omit<DatabaseSnapshot, 'bytes'>;
  try {
    const problems = integrityProblems(db);
    if (problems.length)
      throw new StoreError(
        `${path} is damaged (SQLite integrity_check: ${problems.slice(0, 3).join('; ')})`,
        { path },
      );
    const schemaVersion = db.pragma('user_version', { simple: true }) as number;
    if (schemaVersion > SCHEMA_VERSION)
      throw new StoreError(
        `${path} has schema version ${schemaVersion}, but this Wren only knows versions up to ` +
          `${SCHEMA_VERSION}; upgrade Wren first`,
        { path },
      );
    db.pragma('journal_mode = DELETE');
    snapshot = { schemaVersion, counts: tableCounts(db) };
  } catch (error) {
    if (error instanceof StoreError) throw error;
    throw new StoreError(`${path}: cannot read the database (SQLite says: ${(error as Error).message})`, {
      path,
      cause: error,
    });
  } finally {
    db.close();
  }
  return { ...snapshot, bytes: statSync(path).size };
}

/**
 * Copies the database of connection `db` to `dest` (a path that must not exist yet) with SQLite's online
 * backup API: the copy is one consistent state of the database even while other connections and processes
 * write (a write by another connection during the copy restarts it; the remaining pages are copied in one
 * step, so it restarts at most once per interrupting write), and the source stays usable throughout. The copy
 * is then checked and described by `inspectDatabaseFile`; what it reports is the state the copy holds.
 * @throws StoreError when the copy cannot be written or does not pass the check.
 */
export async function backupDatabase(db: Database.Database, dest: string): Promise<DatabaseSnapshot> {
  try {
    // After the first step, copy everything left in one step: no window for another writer to restart it.
    await db.backup(dest, { progress: ({ remainingPages }) => Math.max(100, remainingPages) });
  } catch (error) {
    throw new StoreError(
      `${dest}: the database backup failed (SQLite says: ${(error as Error).message}); check the folder is ` +
        'writable and has space',
      { path: dest, cause: error },
    );
  }
  return inspectDatabaseFile(dest);
}
