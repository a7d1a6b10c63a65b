import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MemorySessionStore } from '../../src/agent/memory-session-store.js';
import {
  ConsolidationConflictError,
  type NewMessage,
  type SessionStore,
} from '../../src/agent/session-store.js';
import type { ChatMessage } from '../../src/llm/types.js';
import { MIGRATION_V2 } from '../../src/store/migration-v2-memory.js';
import { MIGRATIONS, migrate } from '../../src/store/migrations.js';
import { openDatabase } from '../../src/store/open-database.js';
import { SqliteSessionStore } from '../../src/store/sqlite-session-store.js';

/** Builds a store whose clock is `clock`; returns it with a cleanup function. */
type StoreFactory = (clock: () => number) => { store: SessionStore; close(): void };

const implementations: Array<[string, StoreFactory]> = [
  [
    'SqliteSessionStore',
    (clock) => {
      const dir = mkdtempSync(join(tmpdir(), 'wren-contract-'));
      const db = openDatabase(join(dir, 'wren.db'), { migrate: false });
      migrate(db, [...MIGRATIONS.filter((step) => step.version < 2), MIGRATION_V2]);
      return {
        store: new SqliteSessionStore(db, clock),
        close: () => {
          db.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  ],
  ['MemorySessionStore', (clock) => ({ store: new MemorySessionStore(clock), close: () => {} })],
];

const user = (text: string, tokens = 10): NewMessage => ({
  message: { role: 'user', content: text },
  tokens,
});
const assistant = (text: string, tokens = 10, calls: string[] = []): NewMessage => ({
  message: {
    role: 'assistant',
    content: text,
    ...(calls.length ? { toolCalls: calls.map((id) => ({ id, name: 'read_file', arguments: '{}' })) } : {}),
  },
  tokens,
});
const tool = (id: string, tokens = 10): NewMessage => ({
  message: { role: 'tool', toolCallId: id, toolName: 'read_file', content: `result ${id}` },
  tokens,
  details: { full: `full output ${id}` },
});
const init = { channel: 'cli', chatId: 'local' };

describe.each(implementations)('SessionStore contract: %s', (_name, factory) => {
  let time = 1_000;
  const clock = () => ++time;
  let opened: ReturnType<StoreFactory> | undefined;
  const open = () => {
    opened = factory(clock);
    return opened.store;
  };
  afterEach(() => opened?.close());

  it('creates the active session on first use and returns the same one afterwards', async () => {
    const store = open();
    const first = await store.activeSession('cli:local', init);
    expect(first).toMatchObject({ key: 'cli:local', channel: 'cli', chatId: 'local' });
    expect(first.createdAt).toBe(first.updatedAt);
    expect(await store.activeSession('cli:local', init)).toEqual(first);
    expect(await store.getSession(first.id)).toEqual(first);
  });

  it('makes a new session the active one for its key, with the id given', async () => {
    const store = open();
    const old = await store.activeSession('tg:1', { channel: 'tg', chatId: '1' });
    const fresh = await store.createSession('tg:1', { channel: 'tg', chatId: '1', id: 'chosen-id' });
    expect(fresh.id).toBe('chosen-id');
    expect((await store.activeSession('tg:1', { channel: 'tg', chatId: '1' })).id).toBe('chosen-id');
    expect((await store.getSession(old.id))?.id).toBe(old.id);
    await expect(
      store.createSession('tg:1', { channel: 'tg', chatId: '1', id: 'chosen-id' }),
    ).rejects.toThrow();
  });

  it('returns undefined for an unknown session id', async () => {
    expect(await open().getSession('nope')).toBeUndefined();
  });

  it('lists sessions by last activity, newest first, up to the limit', async () => {
    const store = open();
    const a = await store.createSession('k:a', init);
    const b = await store.createSession('k:b', init);
    const c = await store.createSession('k:c', init);
    await store.appendMessages(a.id, [user('hi')]);
    expect((await store.listSessions(10)).map((s) => s.id)).toEqual([a.id, c.id, b.id]);
    expect((await store.listSessions(2)).map((s) => s.id)).toEqual([a.id, c.id]);
    const touched = await store.getSession(a.id);
    expect(touched!.updatedAt).toBeGreaterThan(a.updatedAt);
  });

  it('numbers messages from 1 without gaps and returns them in order with their content intact', async () => {
    const store = open();
    const session = await store.activeSession('k', init);
    const image: ChatMessage = {
      role: 'user',
      content: [
        { type: 'text', text: 'look' },
        { type: 'image', data: 'aGk=', mediaType: 'image/png' },
      ],
    };
    await store.appendMessages(session.id, [
      { message: image, tokens: 50 },
      assistant('ok', 5, ['c1']),
      tool('c1', 7),
    ]);
    await store.appendMessages(session.id, [user('again', 3), assistant('done', 4)]);
    const all = await store.recentMessages(session.id, 1_000_000);
    expect(all.map((m) => m.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(all.map((m) => m.tokens)).toEqual([50, 5, 7, 3, 4]);
    expect(all[0]!.message).toEqual(image);
    expect(all[1]!.message).toEqual(assistant('ok', 5, ['c1']).message);
    expect(all[2]!.message).toEqual(tool('c1').message);
    expect(all.every((m) => typeof m.createdAt === 'number')).toBe(true);
  });

  it('returns the newest messages whose token sum fits the budget', async () => {
    const store = open();
    const session = await store.activeSession('k', init);
    await store.appendMessages(session.id, [
      user('1', 10),
      assistant('2', 20),
      user('3', 30),
      assistant('4', 40),
    ]);
    expect((await store.recentMessages(session.id, 70)).map((m) => m.seq)).toEqual([3, 4]);
    expect((await store.recentMessages(session.id, 89)).map((m) => m.seq)).toEqual([3, 4]);
    expect((await store.recentMessages(session.id, 90)).map((m) => m.seq)).toEqual([2, 3, 4]);
    expect(await store.recentMessages(session.id, 39)).toEqual([]);
    expect(await store.recentMessages(session.id, 0)).toEqual([]);
    expect(await store.recentMessages('no-such-session', 100)).toEqual([]);
  });

  it('never starts with an orphaned tool result', async () => {
    const store = open();
    const session = await store.activeSession('k', init);
    await store.appendMessages(session.id, [
      user('read two files', 10),
      assistant('', 10, ['a', 'b']),
      tool('a', 10),
      tool('b', 10),
      assistant('both read', 10),
    ]);
    // 30 tokens reach back to seq 3: the tool results 3 and 4 have lost their call (seq 2) and are dropped.
    expect((await store.recentMessages(session.id, 30)).map((m) => m.seq)).toEqual([5]);
    expect((await store.recentMessages(session.id, 20)).map((m) => m.seq)).toEqual([5]);
    expect((await store.recentMessages(session.id, 40)).map((m) => m.seq)).toEqual([2, 3, 4, 5]);
    await store.appendMessages(session.id, [tool('late', 10)]);
    expect(await store.recentMessages(session.id, 10)).toEqual([]);
  });

  it('rejects appending to an unknown session and stores nothing', async () => {
    const store = open();
    await expect(store.appendMessages('missing', [user('x')])).rejects.toThrow(/missing/);
    expect(await store.listSessions(10)).toEqual([]);
  });

  it('hands out copies that do not alias the stored history', async () => {
    const store = open();
    const session = await store.activeSession('k', { channel: 'test', chatId: 'c' });
    await store.appendMessages(session.id, [user('original')]);
    const [first] = await store.recentMessages(session.id, 100);
    (first!.message as { content: string }).content = 'changed';
    expect((await store.recentMessages(session.id, 100))[0]!.message).toMatchObject({ content: 'original' });
  });

  describe('consolidation marker', () => {
    const turn = (n: number): NewMessage[] => [user(`q${n}`, 10), assistant(`a${n}`, 10)];
    async function sessionWithTurns(store: SessionStore, turns: number) {
      const session = await store.activeSession('k', init);
      for (let n = 1; n <= turns; n++) await store.appendMessages(session.id, turn(n));
      return session;
    }

    it('reports an empty state before anything is consolidated', async () => {
      const store = open();
      const session = await sessionWithTurns(store, 3);
      expect(await store.memoryState(session.id)).toEqual({
        consolidatedSeq: 0,
        summary: '',
        lastSeq: 6,
        unconsolidatedTokens: 60,
      });
      expect(await store.memoryState('unknown')).toEqual({
        consolidatedSeq: 0,
        summary: '',
        lastSeq: 0,
        unconsolidatedTokens: 0,
      });
      expect(await store.pendingConsolidations()).toEqual([]);
    });

    it('reads messages after a seq, oldest first, up to a limit', async () => {
      const store = open();
      const session = await sessionWithTurns(store, 3);
      expect((await store.messagesAfter(session.id, 2, 3)).map((m) => m.seq)).toEqual([3, 4, 5]);
      expect((await store.messagesAfter(session.id, 5, 10)).map((m) => m.seq)).toEqual([6]);
      expect(await store.messagesAfter(session.id, 6, 10)).toEqual([]);
      expect(await store.messagesAfter('unknown', 0, 10)).toEqual([]);
    });

    it('keeps turns in the live history until the consolidation is committed, then drops them', async () => {
      const store = open();
      const session = await sessionWithTurns(store, 3);
      await store.beginConsolidation({
        sessionId: session.id,
        fromSeq: 1,
        throughSeq: 4,
        summary: 'asked q1 and q2',
        payload: { edits: ['x'] },
      });
      expect((await store.recentMessages(session.id, 1000)).map((m) => m.seq)).toEqual([1, 2, 3, 4, 5, 6]);
      const [pending] = await store.pendingConsolidations(session.id);
      expect(pending).toMatchObject({ fromSeq: 1, throughSeq: 4, summary: 'asked q1 and q2' });
      expect(pending!.payload).toEqual({ edits: ['x'] });
      await store.commitConsolidation(session.id);
      expect((await store.recentMessages(session.id, 1000)).map((m) => m.seq)).toEqual([5, 6]);
      expect(await store.memoryState(session.id)).toEqual({
        consolidatedSeq: 4,
        summary: 'asked q1 and q2',
        lastSeq: 6,
        unconsolidatedTokens: 20,
      });
      expect(await store.pendingConsolidations()).toEqual([]);
      await store.commitConsolidation(session.id); // idempotent
      expect((await store.memoryState(session.id)).consolidatedSeq).toBe(4);
      // The whole history stays stored (for search and the owner), only the live window moved.
      expect((await store.messagesAfter(session.id, 0, 100)).map((m) => m.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    });

    it('refuses a second consolidation of the same range, a stale marker and ranges past the end', async () => {
      const store = open();
      const session = await sessionWithTurns(store, 3);
      const begin = (fromSeq: number, throughSeq: number) =>
        store.beginConsolidation({ sessionId: session.id, fromSeq, throughSeq, summary: 's', payload: null });
      await expect(begin(2, 4)).rejects.toBeInstanceOf(ConsolidationConflictError);
      await expect(begin(1, 7)).rejects.toBeInstanceOf(ConsolidationConflictError);
      await expect(begin(1, 0)).rejects.toBeInstanceOf(ConsolidationConflictError);
      await begin(1, 2);
      await expect(begin(1, 2)).rejects.toBeInstanceOf(ConsolidationConflictError);
      await store.commitConsolidation(session.id);
      await expect(begin(1, 4)).rejects.toBeInstanceOf(ConsolidationConflictError);
      await begin(3, 6);
      await store.commitConsolidation(session.id);
      expect(await store.recentMessages(session.id, 1000)).toEqual([]);
      expect((await store.memoryState(session.id)).unconsolidatedTokens).toBe(0);
    });

    it('budgets only the live history after the marker', async () => {
      const store = open();
      const session = await sessionWithTurns(store, 5);
      await store.beginConsolidation({
        sessionId: session.id,
        fromSeq: 1,
        throughSeq: 6,
        summary: 's',
        payload: null,
      });
      await store.commitConsolidation(session.id);
      expect((await store.recentMessages(session.id, 30)).map((m) => m.seq)).toEqual([8, 9, 10]);
      expect((await store.recentMessages(session.id, 1e9)).map((m) => m.seq)).toEqual([7, 8, 9, 10]);
    });
  });
});
