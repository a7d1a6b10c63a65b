import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openHome } from '../../src/app/open-home.js';
import { MIGRATIONS, SCHEMA_VERSION } from '../../src/store/migrations.js';
import { openDatabase, schemaUpgradeOf } from '../../src/store/open-database.js';
import { openStores } from '../../src/store/open-stores.js';
import { buildFixture, SEEDS } from '../support/schema-fixtures.js';
import { makeHome } from '../support/wren-home.js';

/**
 * Upgrades from every earlier schema version, with data: a fixture of each version 1…current−1 (built by the
 * old migrations, rows in every table) opened by the current code must end in the same schema as a fresh
 * database, keep every row, and pass SQLite's checks.
 */
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'wren-upgrade-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const VERSIONS = MIGRATIONS.map((migration) => migration.version);

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** Every object of the schema with its SQL, whitespace normalised, and every table's columns and keys. */
function schemaOf(db: Database.Database) {
  const objects = (
    db
      .prepare(
        "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name",
      )
      .all() as Array<{ type: string; name: string; tbl_name: string; sql: string | null }>
  ).map((row) => ({ ...row, sql: row.sql?.replace(/\s+/g, ' ').trim() ?? null }));
  const tables = objects.filter((row) => row.type === 'table').map((row) => row.name);
  const columns = Object.fromEntries(
    tables.map((table) => [
      table,
      {
        columns: db.pragma(`table_xinfo(${quote(table)})`),
        foreignKeys: db.pragma(`foreign_key_list(${quote(table)})`),
        indexes: db.pragma(`index_list(${quote(table)})`),
      },
    ]),
  );
  return { objects, columns, version: db.pragma('user_version', { simple: true }) };
}

function tableNames(db: Database.Database): string[] {
  return db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .pluck()
    .all() as string[];
}

function columnNames(db: Database.Database, table: string): string[] {
  return (db.pragma(`table_xinfo(${quote(table)})`) as Array<{ name: string }>).map((column) => column.name);
}

/** Every row of every table (virtual and FTS shadow tables too), as sorted JSON lines per table. */
function contentsOf(db: Database.Database): Record<string, { columns: string[]; rows: string[] }> {
  const contents: Record<string, { columns: string[]; rows: string[] }> = {};
  for (const table of tableNames(db)) {
    const columns = columnNames(db, table);
    contents[table] = { columns, rows: rowsOf(db, table, columns) };
  }
  return contents;
}

function rowsOf(db: Database.Database, table: string, columns: string[]): string[] {
  const list = columns.map(quote).join(', ');
  const rows = db
    .prepare(`SELECT ${list} FROM ${quote(table)}`)
    .raw()
    .all() as unknown[][];
  return rows.map((row) => JSON.stringify(row)).sort();
}

function freshSchema() {
  const db = openDatabase(join(dir, 'fresh.db'));
  try {
    return schemaOf(db);
  } finally {
    db.close();
  }
}

function checksPass(db: Database.Database): void {
  expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
  expect(db.pragma('foreign_key_check')).toEqual([]);
}

describe('the fixtures', () => {
  it('have a seed for every schema version, and nothing else', () => {
    expect(Object.keys(SEEDS).map(Number)).toEqual(VERSIONS);
  });

  it('leave no table empty, at any version', () => {
    for (const version of VERSIONS) {
      const path = join(dir, `v${version}.db`);
      buildFixture(path, version);
      const db = openDatabase(path, { migrate: false });
      try {
        expect(db.pragma('user_version', { simple: true })).toBe(version);
        const empty = tableNames(db).filter(
          (table) =>
            db
              .prepare(`SELECT count(*) FROM ${quote(table)}`)
              .pluck()
              .get() === 0,
        );
        // A table listed here needs rows in its version's seed (test/support/schema-fixtures.ts).
        expect({ version, empty }).toEqual({ version, empty: [] });
        checksPass(db);
      } finally {
        db.close();
      }
    }
  });
});

describe('upgrading', () => {
  it('has earlier versions to upgrade from', () => {
    expect(SCHEMA_VERSION).toBe(VERSIONS.at(-1));
    expect(VERSIONS).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, index) => index + 1));
  });

  it.each(VERSIONS.filter((version) => version < SCHEMA_VERSION))(
    'from schema v%i with data ends in the fresh schema and keeps every row',
    async (version) => {
      const fresh = freshSchema();
      const path = join(dir, 'wren.db');
      buildFixture(path, version);
      const before = (() => {
        const db = openDatabase(path, { migrate: false });
        try {
          return contentsOf(db);
        } finally {
          db.close();
        }
      })();

      const db = openDatabase(path);
      const stores = openStores(db);
      try {
        expect(schemaOf(db)).toEqual(fresh);
        for (const [table, { columns, rows }] of Object.entries(before))
          expect({ table, rows: rowsOf(db, table, columns) }).toEqual({ table, rows });
        checksPass(db);
        for (const seeded of VERSIONS.filter((v) => v <= version)) await SEEDS[seeded]!.check(stores);
        expect(schemaUpgradeOf(db)).toMatchObject({ from: version, to: SCHEMA_VERSION });
        expect(readdirSync(join(dir, 'backups'))).toHaveLength(1);
      } finally {
        stores.close();
      }
    },
  );

  it('from the current version changes nothing and takes no backup', async () => {
    const path = join(dir, 'wren.db');
    buildFixture(path, SCHEMA_VERSION);
    const db = openDatabase(path);
    const stores = openStores(db);
    try {
      expect(schemaOf(db)).toEqual(freshSchema());
      for (const version of VERSIONS) await SEEDS[version]!.check(stores);
      expect(schemaUpgradeOf(db)).toBeUndefined();
      expect(readdirSync(dir)).not.toContain('backups');
    } finally {
      stores.close();
    }
  });
});

describe('a home opened by a newer Wren', () => {
  it('is upgraded with a private copy of the old database in <home>/backups first (nothing left to tighten)', async () => {
    const home = makeHome('');
    buildFixture(join(home, 'wren.db'), 7);
    const opened = openHome(home);
    try {
      expect(opened.madePrivate).toEqual([]);
      for (const version of VERSIONS.filter((v) => v <= 7)) await SEEDS[version]!.check(opened.stores());
    } finally {
      opened.close();
    }
    const copies = readdirSync(join(home, 'backups'));
    expect(copies).toEqual([expect.stringMatching(/^wren-v7-\d{8}T\d{9}Z\.db$/)]);
    expect(openHome(home).madePrivate).toEqual([]);
  });
});
