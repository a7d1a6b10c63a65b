import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NewMessage } from '../agent/session-store.js';
import { openDatabase } from './open-database.js';
import { SqliteSessionStore } from './sqlite-session-store.js';

let dir: string;
let db: Database.Database;
let store: SqliteSessionStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'wren-sessions-'));
  db = openDatabase(join(dir, 'wren.db'));
  let time = 0;
  store = new SqliteSessionStore(db, () => ++time);
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const init = { channel: 'cli', chatId: 'local' };
const text = (content: string, tokens: number): NewMessage => ({
  message: { role: 'user', content },
  tokens,
});

describe('SqliteSessionStore', () => {
  it('titles sessions by their first user message, on one line and cut to 80 characters', async () => {
    const short = await store.activeSession('a', init);
    await store.appendMessages(short.id, [
      { message: { role: 'assistant', content: 'hello first' }, tokens: 1 },
      text('  plan the\n\ntrip  ', 1),
      text('second', 1),
    ]);
    const long = await store.activeSession('b', init);
    await store.appendMessages(long.id, [text('x'.repeat(200), 1)]);
    const pictured = await store.activeSession('c', init);
    await store.appendMessages(pictured.id, [
      {
        message: {
          role: 'user',
          content: [
            { type: 'text', text: 'what is this' },
            { type: 'image', data: 'AAAA', mediaType: 'image/png' },
          ],
        },
        tokens: 1,
      },
    ]);
    const empty = await store.activeSession('d', init);
    const titles = store.sessionTitles([short.id, long.id, pictured.id, empty.id, 'missing']);
    expect(titles.get(short.id)).toBe('plan the trip');
    expect(titles.get(long.id)).toBe(`${'x'.repeat(79)}…`);
    expect(titles.get(pictured.id)).toBe('what is this');
    expect(titles.has(empty.id)).toBe(false);
    expect(titles.has('missing')).toBe(false);
  });

  it('finds the right window in a session of 10,000 messages', async () => {
    const session = await store.activeSession('k', init);
    for (let turn = 0; turn < 100; turn++) {
      const batch = Array.from({ length: 100 }, (_, i) =>
        text(`m${turn * 100 + i + 1}`, ((turn * 100 + i) % 7) + 1),
      );
      await store.appendMessages(session.id, batch);
    }
    const tokensOf = (seq: number) => ((seq - 1) % 7) + 1;
    let expectedFirst = 10_000;
    let sum = tokensOf(10_000);
    while (sum + tokensOf(expectedFirst - 1) <= 2_000) sum += tokensOf(--expectedFirst);
    const recent = await store.recentMessages(session.id, 2_000);
    expect(recent[0]!.seq).toBe(expectedFirst);
    expect(recent.at(-1)!.seq).toBe(10_000);
    expect(recent.reduce((total, m) => total + m.tokens, 0)).toBe(sum);
    expect(recent.at(-1)!.message).toEqual({ role: 'user', content: 'm10000' });
    const everything = await store.recentMessages(session.id, Number.MAX_SAFE_INTEGER);
    expect(everything).toHaveLength(10_000);
  });

  it('stores a turn atomically: a failure mid-turn stores none of it', async () => {
    const session = await store.activeSession('k', init);
    await store.appendMessages(session.id, [text('before', 1)]);
    const unserializable = {
      message: { role: 'assistant', content: 'x' },
      tokens: 1,
      details: { n: 1n },
    } as NewMessage;
    await expect(store.appendMessages(session.id, [text('a', 1), unserializable])).rejects.toThrow(/BigInt/);
    expect((await store.recentMessages(session.id, 100)).map((m) => m.seq)).toEqual([1]);
    await store.appendMessages(session.id, [text('after', 1)]);
    expect((await store.recentMessages(session.id, 100)).map((m) => m.seq)).toEqual([1, 2]);
  });

  it('keeps details out of recentMessages but in the database as JSON', async () => {
    const session = await store.activeSession('k', init);
    await store.appendMessages(session.id, [{ ...text('x', 1), details: { full: 'long output' } }]);
    const [stored] = await store.recentMessages(session.id, 100);
    expect(stored).not.toHaveProperty('details');
    const row = db.prepare('SELECT role, details FROM messages WHERE session_id = ?').get(session.id);
    expect(row).toEqual({ role: 'user', details: '{"full":"long output"}' });
  });

  it('rounds fractional token estimates up', async () => {
    const session = await store.activeSession('k', init);
    await store.appendMessages(session.id, [text('x', 2.2)]);
    expect((await store.recentMessages(session.id, 3))[0]!.tokens).toBe(3);
  });

  it('hands out copies', async () => {
    const session = await store.activeSession('k', init);
    await store.appendMessages(session.id, [text('original', 1)]);
    const [first] = await store.recentMessages(session.id, 100);
    (first!.message as { content: string }).content = 'changed';
    expect((await store.recentMessages(session.id, 100))[0]!.message).toEqual({
      role: 'user',
      content: 'original',
    });
  });

  it('keeps sessions across reopening the database', async () => {
    const session = await store.activeSession('k', init);
    await store.appendMessages(session.id, [text('kept', 1)]);
    db.close();
    db = openDatabase(join(dir, 'wren.db'));
    const reopened = new SqliteSessionStore(db);
    expect((await reopened.activeSession('k', init)).id).toBe(session.id);
    expect((await reopened.recentMessages(session.id, 10))[0]!.message).toEqual({
      role: 'user',
      content: 'kept',
    });
  });
});
