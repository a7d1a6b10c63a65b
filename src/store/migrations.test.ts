import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StoreError } from '../util/store-error.js';
import { MIGRATIONS, migrate, migrateTo, SCHEMA_VERSION } from './migrations.js';
import { openDatabase } from './open-database.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'wren-migrate-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const tables = (db: Database.Database) =>
  (
    db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").all() as Array<{
      name: string;
    }>
  ).map((row) => row.name);

describe('migrate', () => {
  it('creates every table and is idempotent across opens', () => {
    const path = join(dir, 'wren.db');
    const first = openDatabase(path);
    expect(tables(first)).toEqual(
      expect.arrayContaining([
        'messages',
        'sessions',
        'settings',
        'usage',
        'audit_log',
        'grants',
        'mcp_tool_pins',
        'consolidation_status',
      ]),
    );
    first.prepare("INSERT INTO settings VALUES ('a', 'b')").run();
    expect(migrate(first)).toEqual({ from: SCHEMA_VERSION, to: SCHEMA_VERSION });
    first.close();
    const second = openDatabase(path);
    expect(second.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(second.prepare('SELECT value FROM settings WHERE key = ?').get('a')).toEqual({ value: 'b' });
    second.close();
  });

  it('reports the versions it moved between', () => {
    const db = openDatabase(join(dir, 'wren.db'), { migrate: false });
    expect(migrate(db)).toEqual({ from: 0, to: SCHEMA_VERSION });
    db.close();
  });

  it('refuses a database from a newer Wren', () => {
    const path = join(dir, 'wren.db');
    const raw = new Database(path);
    raw.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    raw.close();
    expect(() => openDatabase(path)).toThrowError(StoreError);
    expect(() => openDatabase(path)).toThrow(
      `has schema version ${SCHEMA_VERSION + 1}, but this Wren only knows versions up to ${SCHEMA_VERSION}; upgrade Wren`,
    );
  });

  it('rolls a failing step back entirely', () => {
    const db = openDatabase(join(dir, 'wren.db'));
    const broken = [
      ...MIGRATIONS,
      {
        version: SCHEMA_VERSION + 1,
        description: 'broken',
        up: (target: Database.Database) => {
          target.exec('CREATE TABLE half_done (x INTEGER)');
          target.exec('THIS IS NOT SQL');
        },
      },
    ];
    expect(() => migrate(db, broken)).toThrow(
      new RegExp(`migration to schema version ${SCHEMA_VERSION + 1} \\(broken\\) failed`),
    );
    expect(tables(db)).not.toContain('half_done');
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    db.close();
  });

  it('migrates to a given earlier version, and refuses one it does not know', () => {
    const db = openDatabase(':memory:', { migrate: false });
    expect(migrateTo(db, 4)).toEqual({ from: 0, to: 4 });
    expect(tables(db)).toContain('mcp_tool_pins');
    expect(tables(db)).not.toContain('reminders');
    expect(migrateTo(db, 6)).toEqual({ from: 4, to: 6 });
    for (const bad of [0, SCHEMA_VERSION + 1, 2.5, -1])
      expect(() => migrateTo(db, bad)).toThrow(`there is no schema version ${bad}`);
    expect(() => migrateTo(db, 3)).toThrow('has schema version 6, but this Wren only knows versions up to 3');
    expect(db.pragma('user_version', { simple: true })).toBe(6);
    db.close();
  });
});
