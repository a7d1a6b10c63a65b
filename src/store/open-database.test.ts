import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildFixture, T } from '../../test/support/schema-fixtures.js';
import { StoreError } from '../util/store-error.js';
import { MIGRATIONS, SCHEMA_VERSION } from './migrations.js';
import {
  checkDatabaseFile,
  openDatabase,
  type SchemaUpgrade,
  schemaUpgradeOf,
  UPGRADE_BACKUPS_KEPT,
  upgradeNotice,
} from './open-database.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'wren-db-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function openError(path: string): StoreError {
  try {
    openDatabase(path).close();
  } catch (error) {
    expect(error).toBeInstanceOf(StoreError);
    return error as StoreError;
  }
  throw new Error('expected openDatabase to throw');
}

describe('openDatabase', () => {
  it('creates the file with mode 0600 and sets the pragmas', () => {
    const path = join(dir, 'wren.db');
    const db = openDatabase(path);
    try {
      expect(statSync(path).mode & 0o777).toBe(0o600);
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
      expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
      expect(db.pragma('synchronous', { simple: true })).toBe(1); // NORMAL
      expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      db.prepare("INSERT INTO settings VALUES ('k', 'v')").run();
      expect(statSync(`${path}-wal`).mode & 0o777).toBe(0o600);
    } finally {
      db.close();
    }
  });

  it('opens an in-memory database', () => {
    const db = openDatabase(':memory:');
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    db.close();
  });

  it('refuses a file that is not a database, says what to do, and leaves it untouched', () => {
    const path = join(dir, 'wren.db');
    const garbage = Buffer.alloc(8192, 0x41);
    writeFileSync(path, garbage);
    const error = openError(path);
    expect(error.message).toContain(path);
    expect(error.message).toContain('SQLite says: file is not a database');
    expect(error.message).toContain('restore it from a backup');
    expect(error.message).toContain(`mv ${path} ${path}.broken`);
    expect(error.path).toBe(path);
    expect(readFileSync(path).equals(garbage)).toBe(true);
  });

  it('refuses a database whose pages are damaged', () => {
    const path = join(dir, 'wren.db');
    const db = openDatabase(path);
    db.prepare("INSERT INTO sessions VALUES ('s', 'k', 'cli', 'local', 1, 1)").run();
    const insert = db.prepare(
      "INSERT INTO messages (session_id, seq, role, content, tokens, created_at) VALUES ('s', ?, 'user', ?, 1, 1)",
    );
    for (let seq = 1; seq <= 2000; seq++)
      insert.run(seq, JSON.stringify({ role: 'user', content: `m${seq}`.repeat(20) }));
    db.close();
    const fd = openSync(path, 'r+');
    for (const page of [3, 10, 40]) writeSync(fd, Buffer.alloc(4096, 0x5a), 0, 4096, 4096 * (page - 1));
    closeSync(fd);
    const error = openError(path);
    expect(error.message).toMatch(/is damaged/);
    expect(error.message).toContain('restore it from a backup');
  });

  it('explains a folder that does not exist', () => {
    expect(openError(join(dir, 'missing', 'wren.db')).message).toContain('cannot create the database file');
  });
});

/** The folder's files with their bytes and mtimes: what "left untouched" compares. */
function snapshot(folder: string) {
  return readdirSync(folder)
    .sort()
    .map((name) => {
      const path = join(folder, name);
      return { name, bytes: readFileSync(path).toString('base64'), mtime: statSync(path).mtimeMs };
    });
}

function newerDatabase(path: string, wal: boolean): void {
  const raw = new Database(path);
  if (wal) raw.pragma('journal_mode = WAL');
  raw.exec("CREATE TABLE things_of_the_future (x TEXT); INSERT INTO things_of_the_future VALUES ('hi')");
  raw.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
  raw.close();
}

describe('a database from a newer Wren', () => {
  for (const wal of [false, true])
    it(`is refused and left untouched, byte for byte, without a -wal or -shm file (${wal ? 'WAL' : 'rollback journal'})`, () => {
      const path = join(dir, 'wren.db');
      newerDatabase(path, wal);
      const before = snapshot(dir);
      const error = openError(path);
      expect(error.message).toContain(
        `has schema version ${SCHEMA_VERSION + 1}, but this Wren only knows versions up to ${SCHEMA_VERSION}`,
      );
      expect(error.message).toContain('Wren left the file untouched');
      expect(() => openDatabase(path, { migrate: false })).toThrow(StoreError);
      expect(() => checkDatabaseFile(path)).toThrow(StoreError);
      expect(snapshot(dir)).toEqual(before);
    });

  it('is refused when the newer version is still only in the WAL, and the main file is not written', () => {
    const path = join(dir, 'wren.db');
    openDatabase(path).close();
    const writer = new Database(path);
    writer.pragma('wal_autocheckpoint = 0');
    writer.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    const main = readFileSync(path);
    try {
      expect(main.readUInt32BE(60)).toBe(SCHEMA_VERSION);
      expect(openError(path).message).toContain(`has schema version ${SCHEMA_VERSION + 1}`);
      expect(readFileSync(path).equals(main)).toBe(true);
    } finally {
      writer.close();
    }
  });
});

describe('upgrading an older database', () => {
  const now = () => T;
  const backups = () => join(dir, 'backups');

  it('copies it first to backups/, private, at the old version with its rows, and says where', () => {
    const path = join(dir, 'wren.db');
    buildFixture(path, 5);
    const told: SchemaUpgrade[] = [];
    const db = openDatabase(path, { now, onUpgrade: (upgrade) => told.push(upgrade) });
    const backup = join(backups(), 'wren-v5-20250601T080000000Z.db');
    try {
      expect(told).toEqual([{ path, from: 5, to: SCHEMA_VERSION, backup }]);
      expect(schemaUpgradeOf(db)).toEqual(told[0]);
      expect(upgradeNotice(told[0]!)).toBe(
        `backed up your database to ${backup} before upgrading it from schema v5 to v${SCHEMA_VERSION}`,
      );
      expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    } finally {
      db.close();
    }
    expect(statSync(backup).mode & 0o777).toBe(0o600);
    expect(statSync(backups()).mode & 0o777).toBe(0o700);
    expect(readdirSync(backups())).toEqual(['wren-v5-20250601T080000000Z.db']);
    const copy = new Database(backup, { readonly: true });
    try {
      expect(copy.pragma('user_version', { simple: true })).toBe(5);
      expect(copy.pragma('journal_mode', { simple: true })).toBe('delete');
      expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(copy.prepare('SELECT count(*) FROM messages').pluck().get()).toBe(5);
      expect(copy.prepare('SELECT text FROM reminders ORDER BY id').pluck().all()).toEqual([
        'Call mum',
        'Take the bins out',
        'Water the plants',
        'Old idea',
      ]);
      expect(copy.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'goals'").pluck().get()).toBe(0);
    } finally {
      copy.close();
    }
  });

  it('takes no copy of a new, empty database or of a current one', () => {
    const path = join(dir, 'wren.db');
    openDatabase(path).close();
    const db = openDatabase(path);
    expect(schemaUpgradeOf(db)).toBeUndefined();
    db.close();
    expect(readdirSync(dir)).not.toContain('backups');
  });

  it(`keeps the newest ${UPGRADE_BACKUPS_KEPT} copies and leaves other files in the folder alone`, () => {
    mkdirSync(backups());
    const old = [
      'wren-v3-20240101T000000000Z.db',
      'wren-v10-20240301T000000000Z.db',
      'wren-v4-20240201T000000000Z.db',
      'wren-v9-20250101T000000000Z.db',
    ];
    for (const name of [...old, 'before-moving.db', 'wren-v4-notes.txt'])
      writeFileSync(join(backups(), name), 'x');
    writeFileSync(join(backups(), 'wren-v3-20240101T000000000Z.db-wal'), 'x');
    const path = join(dir, 'wren.db');
    buildFixture(path, 9);
    openDatabase(path, { now }).close();
    expect(readdirSync(backups()).sort()).toEqual(
      [
        'before-moving.db',
        'wren-v10-20240301T000000000Z.db',
        'wren-v4-notes.txt',
        'wren-v9-20250101T000000000Z.db',
        'wren-v9-20250601T080000000Z.db',
      ].sort(),
    );
  });

  it('still upgrades when an old copy cannot be pruned', () => {
    const stuck = join(backups(), 'wren-v1-20200101T000000000Z.db');
    mkdirSync(join(stuck, 'inside'), { recursive: true });
    for (const name of [
      'wren-v2-20210101T000000000Z.db',
      'wren-v3-20220101T000000000Z.db',
      'wren-v4-20230101T000000000Z.db',
    ])
      writeFileSync(join(backups(), name), 'x');
    const path = join(dir, 'wren.db');
    buildFixture(path, 8);
    const db = openDatabase(path, { now });
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    db.close();
    expect(readdirSync(backups()).sort()).toEqual([
      'wren-v1-20200101T000000000Z.db',
      'wren-v3-20220101T000000000Z.db',
      'wren-v4-20230101T000000000Z.db',
      'wren-v8-20250601T080000000Z.db',
    ]);
  });

  it('names a second copy in the same millisecond apart instead of overwriting the first', () => {
    mkdirSync(backups());
    writeFileSync(join(backups(), 'wren-v7-20250601T080000000Z.db'), 'earlier copy');
    const path = join(dir, 'wren.db');
    buildFixture(path, 7);
    openDatabase(path, { now }).close();
    expect(readFileSync(join(backups(), 'wren-v7-20250601T080000000Z.db'), 'utf8')).toBe('earlier copy');
    expect(readdirSync(backups())).toContain('wren-v7-20250601T080000000Z-2.db');
  });

  it('migrates nothing when the copy cannot be made, and says why', () => {
    const path = join(dir, 'wren.db');
    buildFixture(path, 6);
    const notAFolder = join(dir, 'backups-file');
    writeFileSync(notAFolder, 'in the way');
    let error: unknown;
    try {
      openDatabase(path, { backupDir: notAFolder }).close();
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(StoreError);
    expect((error as StoreError).message).toContain('cannot back up the database');
    expect((error as StoreError).message).toContain('before upgrading it from schema version 6');
    expect((error as StoreError).message).toContain('nothing was changed');
    const db = openDatabase(path, { migrate: false });
    expect(db.pragma('user_version', { simple: true })).toBe(6);
    db.close();
  });

  it('leaves the data and the copy when a migration step fails, and names the copy', () => {
    const path = join(dir, 'wren.db');
    buildFixture(path, SCHEMA_VERSION);
    const broken = [
      ...MIGRATIONS,
      {
        version: SCHEMA_VERSION + 1,
        description: 'broken',
        up: (db: Database.Database) => {
          db.exec('DELETE FROM memos; DROP TABLE tasks');
          db.exec('THIS IS NOT SQL');
        },
      },
    ];
    let error: unknown;
    try {
      openDatabase(path, { migrations: broken, now }).close();
    } catch (caught) {
      error = caught;
    }
    const backup = join(backups(), `wren-v${SCHEMA_VERSION}-20250601T080000000Z.db`);
    expect(error).toBeInstanceOf(StoreError);
    expect((error as StoreError).message).toContain(
      `migration to schema version ${SCHEMA_VERSION + 1} (broken) failed`,
    );
    expect((error as StoreError).message).toContain(
      `before the upgrade (schema version ${SCHEMA_VERSION}) is in ${backup}`,
    );
    for (const file of [path, backup]) {
      const db = new Database(file, { readonly: true });
      try {
        expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
        expect(db.prepare('SELECT count(*) FROM memos').pluck().get()).toBe(2);
        expect(db.prepare('SELECT count(*) FROM tasks').pluck().get()).toBe(3);
      } finally {
        db.close();
      }
    }
  });
});

describe('checkDatabaseFile', () => {
  it('reports the schema version without migrating', () => {
    const path = join(dir, 'wren.db');
    buildFixture(path, 4);
    expect(checkDatabaseFile(path)).toEqual({ version: 4, known: SCHEMA_VERSION });
    expect(checkDatabaseFile(path)).toEqual({ version: 4, known: SCHEMA_VERSION });
    expect(readdirSync(dir)).not.toContain('backups');
    expect(checkDatabaseFile(join(dir, 'new.db'))).toEqual({ version: 0, known: SCHEMA_VERSION });
  });
});
