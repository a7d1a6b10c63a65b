import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from './open-database.js';
import { openStores, openStoresAt } from './open-stores.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempPath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'wren-stores-'));
  dirs.push(dir);
  return join(dir, 'wren.db');
}

describe('openStores', () => {
  it('builds each store once: every use gets the same one', () => {
    const stores = openStores(openDatabase(':memory:'));
    expect(stores.memos).toBe(stores.memos);
    expect(stores.sessions).toBe(stores.sessions);
    expect(stores.usage).toBe(stores.usage);
    expect(stores.goals).toBe(stores.goals);
    stores.close();
  });

  it('builds a store only on first use, so a command prepares nothing it does not use', () => {
    // No schema at all: a store built now would fail to prepare its statements.
    const stores = openStores(openDatabase(':memory:', { migrate: false }));
    expect(() => stores.settings).toThrow(/no such table: settings/);
    stores.close();
  });

  it('stamps rows with the clock it was given and reads goals in the given zone', () => {
    const at = Date.parse('2026-06-01T08:00:00Z');
    const stores = openStores(openDatabase(':memory:'), { clock: () => at, timezone: () => 'Asia/Tokyo' });
    expect(stores.memos.add('door code 4711')).toMatchObject({ createdAt: at, updatedAt: at });
    expect(stores.goals.create({ title: 'Learn the violin' })).toMatchObject({ timezone: 'Asia/Tokyo' });
    stores.close();
  });

  it('counts sessions for wren status', async () => {
    const stores = openStores(openDatabase(':memory:'));
    expect(stores.status.sessionCount()).toBe(0);
    await stores.sessions.createSession('cli:terminal', { channel: 'cli', chatId: 'terminal' });
    await stores.sessions.createSession('cli:terminal', { channel: 'cli', chatId: 'terminal' });
    expect(stores.status.sessionCount()).toBe(2);
    stores.close();
  });

  it('searches messages without throwing on query text full of FTS syntax', async () => {
    const stores = openStores(openDatabase(':memory:'));
    const session = await stores.sessions.createSession('cli:terminal', {
      channel: 'cli',
      chatId: 'terminal',
    });
    await stores.sessions.appendMessages(session.id, [
      { message: { role: 'user', content: 'The violin teacher is Anna' }, tokens: 6 },
    ]);
    for (const text of ['"*) OR NOT (', 'NEAR(', "'; DROP TABLE messages; --", '\u0000', ''])
      expect(stores.messages.search({ text })).toEqual([]);
    expect(stores.messages.search({ text: 'violin' })).toMatchObject([{ sessionId: session.id }]);
    stores.close();
  });

  it('records usage and totals it', () => {
    const stores = openStores(openDatabase(':memory:'));
    stores.usage.record({ endpoint: 'main', usage: { inputTokens: 10, outputTokens: 4 } });
    stores.usage.record({ endpoint: 'main', usage: { inputTokens: 5, outputTokens: 1 } });
    expect(stores.usage.totals()).toMatchObject({ inputTokens: 15, outputTokens: 5 });
    stores.close();
  });
});

describe('openStoresAt', () => {
  it('opens the file migrated, keeps what was stored across openings, and closes idempotently', () => {
    const path = tempPath();
    const first = openStoresAt(path);
    first.settings.set('gateway.token_hash', 'abc');
    first.close();
    first.close();
    expect(() => first.settings.get('gateway.token_hash')).toThrow(/not open/);
    const second = openStoresAt(path);
    expect(second.settings.get('gateway.token_hash')).toBe('abc');
    second.close();
  });
});
