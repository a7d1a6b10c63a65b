import { describe, expect, it } from 'vitest';
import { searchMessages } from './message-search-repository.js';
import { MIGRATION_V2 } from './migration-v2-memory.js';
import { MIGRATIONS, migrate } from './migrations.js';
import { openDatabase } from './open-database.js';
import { SqliteSessionStore } from './sqlite-session-store.js';

const V1 = MIGRATIONS.filter((step) => step.version < 2);

describe('migration v2 (memory)', () => {
  it('indexes messages stored before it, and keeps the index in step with later writes and deletes', async () => {
    const db = openDatabase(':memory:', { migrate: false });
    migrate(db, V1);
    const store = new SqliteSessionStore(db);
    const session = await store.activeSession('k', { channel: 'c', chatId: 'x' });
    await store.appendMessages(session.id, [
      {
        message: {
          role: 'user',
          content: [
            { type: 'text', text: 'an old zebra question' },
            { type: 'image', data: 'aGk=', mediaType: 'image/png' },
          ],
        },
        tokens: 3,
      },
      {
        message: { role: 'assistant', content: '', toolCalls: [{ id: 'c', name: 'x', arguments: '{}' }] },
        tokens: 2,
      },
      {
        message: { role: 'tool', toolCallId: 'c', toolName: 'x', content: 'zebra in a tool result' },
        tokens: 2,
      },
    ]);
    expect(migrate(db, [...V1, MIGRATION_V2])).toEqual({ from: 1, to: 2 });
    const reopened = new SqliteSessionStore(db);
    await reopened.appendMessages(session.id, [
      { message: { role: 'assistant', content: 'zebra answer' }, tokens: 2 },
    ]);
    const hits = searchMessages(db, { text: 'zebra' });
    expect(hits.map((hit) => [hit.seq, hit.role]).sort()).toEqual([
      [1, 'user'],
      [4, 'assistant'],
    ]);
    expect(hits.find((hit) => hit.seq === 1)!.snippet).toBe('an old [zebra] question');
    expect(searchMessages(db, { text: 'zebra', sessionId: 'other' })).toEqual([]);
    expect(searchMessages(db, { text: '" OR NEAR(' })).toEqual([]);
    db.prepare('DELETE FROM sessions WHERE id = ?').run(session.id);
    expect(searchMessages(db, { text: 'zebra' })).toEqual([]);
    db.close();
  });

  it('refuses invalid rows: empty memos, bad task dates and priorities', () => {
    const db = openDatabase(':memory:', { migrate: false });
    migrate(db, [...V1, MIGRATION_V2]);
    expect(() =>
      db.prepare("INSERT INTO memos (text, created_at, updated_at) VALUES ('', 1, 1)").run(),
    ).toThrow();
    const task = db.prepare(
      'INSERT INTO tasks (title, due, priority, created_at, updated_at) VALUES (?, ?, ?, 1, 1)',
    );
    expect(() => task.run('x', 'tomorrow', 'normal')).toThrow();
    expect(() => task.run('x', null, 'urgent')).toThrow();
    expect(() => task.run('x', '2026-01-02 10:00', 'high')).not.toThrow();
    db.close();
  });
});
