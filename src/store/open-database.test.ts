import {
  closeSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StoreError } from '../util/store-error.js';
import { SCHEMA_VERSION } from './migrations.js';
import { openDatabase } from './open-database.js';

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
