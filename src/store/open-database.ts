import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, readSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { StoreError } from '../util/store-error.js';
import type { Migration } from './migration.js';
import { MIGRATIONS, migrate, newerSchemaError, SCHEMA_VERSION, userVersion } from './migrations.js';

export interface OpenDatabaseOptions {
  /** Run pending migrations after opening (default true). */
  migrate?: boolean;
  /** The schema steps (default MIGRATIONS); tests pass a list ending in a broken step. */
  migrations?: readonly Migration[];
  /** Where the copy taken before an upgrade goes (default `<folder of the file>/backups`). */
  backupDir?: string;
  /** The clock that names that copy (Unix ms); default Date.now. */
  now?: () => number;
  /** Told once the schema was upgraded, with where the copy went, so the caller can say so. */
  onUpgrade?: (upgrade: SchemaUpgrade) => void;
}

/** An upgrade `openDatabase` made: the file, the schema versions before and after, and the copy taken first. */
export interface SchemaUpgrade {
  path: string;
  from: number;
  to: number;
  /** The database as it was at schema `from`, copied before the first step ran. */
  backup: string;
}

/** The sentence `wren start` prints after an upgrade: where the copy went, from which schema to which. */
export function upgradeNotice(upgrade: SchemaUpgrade): string {
  return (
    `backed up your database to ${upgrade.backup} before upgrading it from schema v${upgrade.from} to ` +
    `v${upgrade.to}`
  );
}

/** How many pre-upgrade copies are kept in the backup folder (the newest). */
export const UPGRADE_BACKUPS_KEPT = 3;

const upgrades = new WeakMap<Database.Database, SchemaUpgrade>();

/** The upgrade `openDatabase` made when it opened `db`, if it made one. */
export function schemaUpgradeOf(db: Database.Database): SchemaUpgrade | undefined {
  return upgrades.get(db);
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

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');
/** A WAL file no longer than its 32-byte header holds no frames, so no change the main file lacks. */
const WAL_HEADER_BYTES = 32;

/**
 * The schema version of the file at `path` read without changing anything: from the database header
 * (`user_version` is bytes 60–63) or, when a WAL file holds changes the header may not show yet, through a
 * read-only connection (which writes nothing). undefined for an empty file or one that is not a database
 * (the open that follows says what is wrong).
 */
function versionOnDisk(path: string): number | undefined {
  const header = Buffer.alloc(100);
  let bytes: number;
  try {
    const fd = openSync(path, 'r');
    try {
      bytes = readSync(fd, header, 0, header.length, 0);
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined; // unreadable: the open that follows explains it
  }
  if (bytes < header.length || !header.subarray(0, SQLITE_MAGIC.length).equals(SQLITE_MAGIC))
    return undefined;
  const inHeader = header.readUInt32BE(60);
  let walBytes = 0;
  try {
    walBytes = statSync(`${path}-wal`).size;
  } catch {
    return inHeader;
  }
  if (walBytes <= WAL_HEADER_BYTES) return inHeader;
  try {
    const reader = new Database(path, { readonly: true, fileMustExist: true });
    try {
      return userVersion(reader);
    } finally {
      reader.close();
    }
  } catch {
    return inHeader;
  }
}

/** Backup names: `wren-v<from>-<UTC stamp to the ms>[-<n>].db`; the stamp and n order them. */
const BACKUP_NAME = /^wren-v\d+-(\d{8}T\d{9}Z)(?:-(\d+))?\.db$/;

function sortKey(name: string): string {
  const match = BACKUP_NAME.exec(name)!;
  return `${match[1]}-${(match[2] ?? '0').padStart(6, '0')}`;
}

/** Keeps the newest UPGRADE_BACKUPS_KEPT copies in `dir`; best effort, since a leftover copy harms nothing. */
function pruneUpgradeBackups(dir: string): void {
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => BACKUP_NAME.test(name));
  } catch {
    return;
  }
  names.sort((a, b) => sortKey(a).localeCompare(sortKey(b)));
  for (const name of names.slice(0, Math.max(0, names.length - UPGRADE_BACKUPS_KEPT)))
    for (const suffix of ['', '-wal', '-shm', '-journal'])
      try {
        rmSync(join(dir, name + suffix), { force: true });
      } catch {
        // One that cannot be removed (a folder under its name, no permission) stays; the others still go.
      }
}

/** Creates an empty file with mode 0600 under the first free backup name; returns its path. */
function reserveBackupFile(dir: string, from: number, at: number): string {
  const stamp = new Date(at).toISOString().replace(/[-:.]/g, '');
  for (let n = 1; ; n++) {
    const path = join(dir, `wren-v${from}-${stamp}${n === 1 ? '' : `-${n}`}.db`);
    try {
      closeSync(openSync(path, 'wx', 0o600));
      return path;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || n >= 100) throw error;
    }
  }
}

/**
 * Copies the database of `db` (at schema `from`) into the backup folder with `VACUUM INTO` — one consistent
 * snapshot even while other connections write, a single rollback-journal file, mode 0600, flushed to disk —
 * and prunes older copies. @throws StoreError when the copy cannot be made (nothing has been migrated then).
 */
function backupBeforeUpgrade(
  db: Database.Database,
  path: string,
  from: number,
  options: OpenDatabaseOptions,
) {
  const dir = options.backupDir ?? join(dirname(path), 'backups');
  let target: string | undefined;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    target = reserveBackupFile(dir, from, (options.now ?? Date.now)());
    db.prepare('VACUUM INTO ?').run(target);
    const fd = openSync(target, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    if (target) rmSync(target, { force: true });
    throw new StoreError(
      `${path}: cannot back up the database to ${target ?? dir} before upgrading it from schema version ` +
        `${from} (${(error as Error).message}); nothing was changed. Free some space or make ${dir} writable, ` +
        'then start Wren again',
      { path, cause: error },
    );
  }
  pruneUpgradeBackups(dir);
  return target;
}

/**
 * Migrates `db`; when it holds an older schema (not a new, empty database), takes the copy first and
 * reports the upgrade. A failing step leaves the file at the last step that succeeded, and the copy.
 */
function upgrade(db: Database.Database, path: string, memory: boolean, options: OpenDatabaseOptions): void {
  const migrations = options.migrations ?? MIGRATIONS;
  const latest = migrations.length ? migrations[migrations.length - 1]!.version : 0;
  const from = userVersion(db);
  if (memory || from === 0 || from >= latest) {
    migrate(db, migrations);
    return;
  }
  const backup = backupBeforeUpgrade(db, path, from, options);
  let to: number;
  try {
    to = migrate(db, migrations).to;
  } catch (error) {
    throw new StoreError(
      `${(error as Error).message}. The database as it was before the upgrade (schema version ${from}) is ` +
        `in ${backup}`,
      { path, cause: error },
    );
  }
  const done: SchemaUpgrade = { path, from, to, backup };
  upgrades.set(db, done);
  options.onUpgrade?.(done);
}

/**
 * Opens (creating with mode 0600 when absent) the SQLite database at `path` with WAL, busy_timeout=5000,
 * foreign_keys=ON and synchronous=NORMAL, verifies it with `PRAGMA quick_check` and, unless told otherwise,
 * migrates it. Before migrating a file at an older schema (not a new, empty one) it copies it to
 * `<backupDir>/wren-v<from>-<stamp>.db`, keeps the newest UPGRADE_BACKUPS_KEPT copies and reports the upgrade
 * (`onUpgrade`, schemaUpgradeOf). `:memory:` opens a private in-memory database (no WAL). The caller owns
 * the returned handle and must `close()` it. Never modifies a damaged file, nor one from a newer Wren (not
 * even its header or a -wal/-shm file beside it).
 * @throws StoreError naming the file, what SQLite said and what to do, when the file is damaged, is not a
 * database, is locked, comes from a newer Wren, cannot be created, cannot be backed up before an upgrade
 * (nothing migrated), or a migration step fails (the message names the backup).
 */
export function openDatabase(path: string, options: OpenDatabaseOptions = {}): Database.Database {
  const memory = path === ':memory:';
  if (!memory) {
    createPrivately(path);
    // Before anything writes (the switch to WAL rewrites the header and creates -wal and -shm files).
    const found = versionOnDisk(path);
    const latest = (options.migrations ?? MIGRATIONS).at(-1)?.version ?? 0;
    if (found !== undefined && found > latest) throw newerSchemaError(path, found, latest);
  }
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
    if (options.migrate !== false) upgrade(db, path, memory, options);
  } catch (error) {
    db.close();
    throw error instanceof StoreError ? error : explain(path, error);
  }
  return db;
}

/** A database file's schema version, and the newest this Wren knows. */
export interface DatabaseSchema {
  version: number;
  known: number;
}

/**
 * Opens (creating it when absent), checks and closes the database at `path` without migrating it: what
 * `wren doctor` asks of it. A file at an older schema is upgraded at the next start, not here.
 * @returns its schema version (0: new, empty) and the newest this Wren knows.
 * @throws StoreError as openDatabase does (a newer schema is refused untouched).
 */
export function checkDatabaseFile(path: string): DatabaseSchema {
  const db = openDatabase(path, { migrate: false });
  try {
    return { version: userVersion(db), known: SCHEMA_VERSION };
  } finally {
    db.close();
  }
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
