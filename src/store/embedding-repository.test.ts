import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EmbeddingRepository } from './embedding-repository.js';
import { loadVectorExtension, openDatabase } from './open-database.js';
import { SqliteSessionStore } from './sqlite-session-store.js';

let dir: string;
let db: Database.Database;
let store: SqliteSessionStore;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'wren-embeddings-'));
  db = openDatabase(join(dir, 'wren.db'));
  store = new SqliteSessionStore(db);
});
afterEach(() => {
  if (db.open) db.close();
  rmSync(dir, { recursive: true, force: true });
});

async function say(...texts: string[]): Promise<string> {
  const session = await store.activeSession('cli:local', { channel: 'cli', chatId: 'local' });
  await store.appendMessages(
    session.id,
    texts.map((content) => ({ message: { role: 'user' as const, content }, tokens: 5 })),
  );
  return session.id;
}

describe('EmbeddingRepository', () => {
  it('hands out new messages once for hashing, and counts what waits (plain SQLite, no extension)', async () => {
    const repository = new EmbeddingRepository(db);
    await say('first', 'second');
    const rows = repository.unlinkedMessages(10);
    expect(rows.map((row) => row.text)).toEqual(['first', 'second']);
    expect(repository.counts('m')).toEqual({ embedded: 0, waiting: 2 });
    repository.link(rows.map((row) => ({ rowid: row.rowid, hash: `h-${row.text}` })));
    expect(repository.unlinkedMessages(10)).toEqual([]);
    expect(repository.counts('m')).toEqual({ embedded: 0, waiting: 2 });
    expect(repository.messagesWithoutVector('m', 10)).toEqual([
      { hash: 'h-first', text: 'first' },
      { hash: 'h-second', text: 'second' },
    ]);
    await say('third');
    expect(repository.unlinkedMessages(10).map((row) => row.text)).toEqual(['third']);
  });

  it('stores vectors by hash once, finds the nearest messages and keeps to the date range', async () => {
    expect(loadVectorExtension(db).ok).toBe(true);
    const repository = new EmbeddingRepository(db);
    await say('violin', 'pizza', 'violin');
    const rows = repository.unlinkedMessages(10);
    repository.link(rows.map((row) => ({ rowid: row.rowid, hash: row.text })));
    expect(
      repository.save('m', [
        { hash: 'violin', vector: [1, 0, 0] },
        { hash: 'pizza', vector: [0, 1, 0] },
      ]),
    ).toBe(2);
    expect(repository.save('m', [{ hash: 'violin', vector: [1, 0, 0] }])).toBe(0);
    expect(repository.counts('m')).toEqual({ embedded: 2, waiting: 0 });

    const near = repository.nearestMessages({
      model: 'm',
      vector: [0.9, 0.1, 0],
      limit: 10,
      maxDistance: 0.5,
    });
    // Both "violin" messages share one vector; "pizza" is too far.
    expect(near.map((hit) => hit.text)).toEqual(['violin', 'violin']);
    expect(near[0]!.distance).toBeLessThan(0.05);
    expect(
      repository
        .nearestMessages({ model: 'm', vector: [0.9, 0.1, 0], limit: 10, maxDistance: 2 })
        .map((h) => h.text),
    ).toEqual(['violin', 'violin', 'pizza']);
    const stamp = near[0]!.createdAt;
    expect(
      repository.nearestMessages({ model: 'm', vector: [1, 0, 0], limit: 10, maxDistance: 2, until: stamp }),
    ).toEqual([]);
    expect(
      repository.nearestMessages({ model: 'other', vector: [1, 0, 0], limit: 10, maxDistance: 2 }),
    ).toEqual([]);
    expect(repository.nearestMessages({ model: 'm', vector: [1, 0], limit: 10, maxDistance: 2 })).toEqual([]);
    expect(
      [
        ...repository.distances({ model: 'm', vector: [1, 0, 0], hashes: ['pizza', 'violin', 'unknown'] }),
      ].sort(),
    ).toEqual([
      ['pizza', 1],
      ['violin', 0],
    ]);
    expect(repository.missing('m', ['pizza', 'new'])).toEqual(['new']);
  });

  it('drops the vectors of another model (and another length) and rebuilds the index', async () => {
    loadVectorExtension(db);
    const repository = new EmbeddingRepository(db);
    await say('violin');
    const [row] = repository.unlinkedMessages(10);
    repository.link([{ rowid: row!.rowid, hash: 'violin' }]);
    repository.save('old', [{ hash: 'violin', vector: [1, 0, 0] }]);
    repository.useModel('new');
    expect(repository.counts('old').embedded).toBe(0);
    expect(repository.messagesWithoutVector('new', 10)).toHaveLength(1);
    expect(repository.nearestMessages({ model: 'old', vector: [1, 0, 0], limit: 5, maxDistance: 2 })).toEqual(
      [],
    );
    repository.save('new', [{ hash: 'violin', vector: [0, 1, 0, 0, 0] }]);
    expect(
      repository.nearestMessages({ model: 'new', vector: [0, 1, 0, 0, 0], limit: 5, maxDistance: 0.1 }),
    ).toHaveLength(1);
    // Same name, other length: the model changed under its name.
    repository.save('new', [{ hash: 'violin-2', vector: [1, 1] }]);
    expect(db.prepare('SELECT hash, dimensions FROM embeddings').all()).toEqual([
      { hash: 'violin-2', dimensions: 2 },
    ]);
    expect(() =>
      repository.save('new', [
        { hash: 'x', vector: [1, 1] },
        { hash: 'y', vector: [1] },
      ]),
    ).toThrow(/one length/);
    // An index rebuilt from the table after a restart serves the same answers.
    db.prepare("DELETE FROM settings WHERE key = 'memory.vector_index'").run();
    repository.useModel('new');
    expect(
      repository.distances({ model: 'new', vector: [1, 1], hashes: ['violin-2'] }).get('violin-2'),
    ).toBeCloseTo(0);
  });

  it('collects vectors nothing refers to, and a deleted session takes its links along', async () => {
    loadVectorExtension(db);
    const repository = new EmbeddingRepository(db);
    const sessionId = await say('kept for history', 'gone');
    const rows = repository.unlinkedMessages(10);
    repository.link(rows.map((row) => ({ rowid: row.rowid, hash: row.text })));
    repository.save('m', [
      { hash: 'kept for history', vector: [1, 0] },
      { hash: 'gone', vector: [0, 1] },
      { hash: 'history entry', vector: [1, 1] },
    ]);
    db.prepare('DELETE FROM sessions WHERE id = ?').run(sessionId);
    expect(db.prepare('SELECT count(*) FROM message_embeddings').pluck().get()).toBe(0);
    expect(repository.collect('m', ['history entry'])).toBe(2);
    expect(db.prepare('SELECT hash FROM embeddings').pluck().all()).toEqual(['history entry']);
    expect(repository.nearestMessages({ model: 'm', vector: [0, 1], limit: 5, maxDistance: 2 })).toEqual([]);
  });

  it('leaves a database that opens, checks and takes messages without the extension', async () => {
    loadVectorExtension(db);
    const repository = new EmbeddingRepository(db);
    await say('violin');
    const [row] = repository.unlinkedMessages(10);
    repository.link([{ rowid: row!.rowid, hash: 'violin' }]);
    repository.save('m', [{ hash: 'violin', vector: [1, 0] }]);
    db.close();
    db = openDatabase(join(dir, 'wren.db'));
    store = new SqliteSessionStore(db);
    const sessionId = await say('more');
    db.prepare('DELETE FROM sessions WHERE id = ?').run(sessionId);
    expect(new EmbeddingRepository(db).counts('m')).toEqual({ embedded: 1, waiting: 0 });
  });

  it('reports a failed extension load instead of throwing, once per connection', () => {
    const fresh = openDatabase(':memory:');
    const failed = loadVectorExtension(fresh, join(dir, 'no-such-extension.so'));
    expect(failed).toMatchObject({ ok: false });
    expect((failed as { reason: string }).reason).toMatch(/no-such-extension/);
    expect(loadVectorExtension(fresh)).toBe(failed);
    fresh.close();
    expect(loadVectorExtension(db)).toMatchObject({ ok: true, version: expect.stringMatching(/^v0\.1\./) });
  });
});
