import { closeSync, openSync } from 'node:fs';
import { createRequire } from 'node:module';
import Database from 'better-sqlite3';
import { StoreError } from '../util/store-error.js';
import { migrate } from './migrations.js';

export interface OpenDatabaseOptions {
  /** Run pending migrations after opening (default true). */
  migrate?: boolean;
}

/** Whether sqlite-vec is loaded into a connection, and why not. */
export type VectorSupport = { ok: true; version: string } | { ok: false; reason: string };

const vectorSupport = new WeakMap<Database.Database, VectorSupport>();

/**
 * Loads the sqlite-vec extension (`vec0` tables, `vec_distance_cosine`) into a connection `openDatabase`
 * opened, once; later calls return the first outcome. Only semantic memory search needs it, so it is loaded
 * on first need rather than with every connection. Never throws: a missing platform package or a refused
 * load comes back as `{ ok: false, reason }`, and the caller carries on without vector search. `path`
 * overrides the extension file (tests).
 */
export function loadVectorExtension(db: Database.Database, path?: string): VectorSupport {
  const known = vectorSupport.get(db);
  if (known) return known;
  let support: VectorSupport;
  try {
    const file =
      path ??
      (createRequire(import.meta.url)('sqlite-vec') as { getLoadablePath(): string }).getLoadablePath();
    db.loadExtension(file);
    support = { ok: true, version: String(db.prepare('SELECT vec_version() AS v').pluck().get()) };
  } catch (error) {
    support = { ok: false, reason: (error as Error).message.split('\n')[0] ?? String(error) };
  }
  vectorSupport.set(db, support);
  return support;
}

function createPrivately(path: string): void {
  try {
    closeSync(openSync(path, 'wx', 0o600));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return;
    throw new StoreError(
      `${path}: cannot create the database file (${(error as Error).message}); check the folder exists and is writable`,
      {
        path,
        cause: error,
      },
    );
  }
}

function explain(path: string, error: unknown): StoreError {
  const code = (error as { code?: string }).code ?? '';
  const said = (error as Error).message;
  if (code.startsWith('SQLITE_NOTADB') || code.startsWith('SQLITE_CORRUPT')) {
    return new StoreError(
      `${path} is damaged or is not a SQLite database (SQLite says: ${said}). Wren leaves it untouched: stop ` +
        `Wren, then restore it from a backup, or move it aside (mv ${path} ${path}.broken) to start with an ` +
        'empty database',
      { path, cause: error },
    );
  }
  if (code.startsWith('SQLITE_BUSY')) {
    return new StoreError(
      `${path} is locked by another process (SQLite says: ${said}); stop the other Wren first`,
      {
        path,
        cause: error,
      },
    );
  }
  return new StoreError(`${path}: cannot open the database (SQLite says: ${said})`, { path, cause: error });
}

function quickCheck(db: Database.Database, path: string): void {
  const rows = db.pragma('quick_check') as Array<{ quick_check: string }>;
  const problems = rows.map((row) => row.quick_check).filter((line) => line !== 'ok');
  if (problems.length === 0) return;
  throw new StoreError(
    `${path} is damaged (SQLite quick_check: ${problems.slice(0, 3).join('; ')}${problems.length > 3 ? '; …' : ''}). ` +
      `Wren leaves it untouched: stop Wren, then restore it from a backup, or move it aside (mv ${path} ` +
      `${path}.broken) to start with an empty database`,
    { path },
  );
}

/**
 * Opens (creating with mode 0600 when absent) the SQLite database at `path` with WAL, busy_timeout=5000,
 * foreign_keys=ON and synchronous=NORMAL, verifies it with `PRAGMA quick_check` and, unless told otherwise,
 * migrates it. `:memory:` opens a private in-memory database (no WAL). The caller owns the returned handle
 * and must `close()` it. Never modifies a damaged file.
 * @throws StoreError naming the file, what SQLite said and what to do, when the file is damaged, is not a
 * database, is locked, comes from a newer Wren, or cannot be created.
 */
export function openDatabase(path: string, options: OpenDatabaseOptions = {}): Database.Database {
  const memory = path === ':memory:';
  if (!memory) createPrivately(path);
  let db: Database.Database;
  try {
    db = new Database(path);
  } catch (error) {
    throw explain(path, error);
  }
  try {
    db.pragma('busy_timeout = 5000');
    if (!memory) {
      const mode = db.pragma('journal_mode = WAL', { simple: true });
      if (mode !== 'wal')
        throw new StoreError(`${path}: cannot switch to WAL mode (got ${String(mode)})`, { path });
    }
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    quickCheck(db, path);
    if (options.migrate !== false) migrate(db);
  } catch (error) {
    db.close();
    throw error instanceof StoreError ? error : explain(path, error);
  }
  return db;
}

/**
 * Opens (creating and migrating when needed), checks and closes the database at `path`: what `wren doctor`
 * asks of it. @throws StoreError as openDatabase does.
 */
export function checkDatabaseFile(path: string): void {
  openDatabase(path).close();
}

/**
 * Whether sqlite-vec loads in this process, tried on a throwaway in-memory connection (nothing on disk is
 * touched); `path` overrides where the extension is found. Never throws.
 */
export function probeVectorSupport(path?: string): VectorSupport {
  const db = openDatabase(':memory:', { migrate: false });
  try {
    return loadVectorExtension(db, path);
  } finally {
    db.close();
  }
}
