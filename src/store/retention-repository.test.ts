import type Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDatabase } from '../../test/support/temp-database.js';
import { type RetentionAges, RetentionRepository } from './retention-repository.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

const DAY = 24 * 60 * 60 * 1000;
const NOW = Date.parse('2026-06-01T12:00:00Z');
const OLD = NOW - 400 * DAY;
const RECENT = NOW - DAY;
const AGES: RetentionAges = {
  messagesMs: 365 * DAY,
  outboxMs: 90 * DAY,
  auditMs: 90 * DAY,
  feedMs: 90 * DAY,
};

function setup() {
  const { db } = tempDatabase('wren-retention-', cleanups);
  return { db, retention: new RetentionRepository(db) };
}

function addSession(db: Database.Database, id: string, updatedAt: number, messages: number, text = 'hello') {
  db.prepare(
    'INSERT INTO sessions (id, key, channel, chat_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
  ).run(id, `cli:${id}`, 'cli', id, OLD, updatedAt);
  const insert = db.prepare(
    'INSERT INTO messages (session_id, seq, role, content, tokens, created_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  for (let seq = 1; seq <= messages; seq++) {
    const { lastInsertRowid } = insert.run(
      id,
      seq,
      'user',
      JSON.stringify({ role: 'user', content: `${text} ${seq}` }),
      3,
      OLD,
    );
    db.prepare('INSERT INTO message_embeddings (message_rowid, hash) VALUES (?, ?)').run(
      lastInsertRowid,
      `h${id}${seq}`,
    );
  }
  db.prepare(
    'INSERT INTO session_memory (session_id, consolidated_seq, summary, updated_at) VALUES (?, 1, ?, ?)',
  ).run(id, 'summary', updatedAt);
  db.prepare('INSERT INTO consolidation_status (session_id) VALUES (?)').run(id);
  db.prepare(
    'INSERT INTO usage (session_id, endpoint, input_tokens, output_tokens, created_at) VALUES (?, ?, 1, 1, ?)',
  ).run(id, 'e', OLD);
}

function addRun(
  db: Database.Database,
  key: string,
  state: string,
  finishedAt: number | null,
  delivery?: string,
) {
  const { lastInsertRowid } = db
    .prepare(
      `INSERT INTO outbox (source_key, kind, ref, due_at, payload, state, claimed_at, finished_at, outcome)
       VALUES (?, 'reminder', '1', ?, '{}', ?, ?, ?, ?)`,
    )
    .run(key, OLD, state, OLD, finishedAt, state === 'done' ? 'delivered' : null);
  if (delivery)
    db.prepare('INSERT INTO deliveries (outbox_id, target, state, next_attempt_at) VALUES (?, ?, ?, ?)').run(
      lastInsertRowid,
      'cli:owner',
      delivery,
      OLD,
    );
  return Number(lastInsertRowid);
}

function addAudit(db: Database.Database, at: number) {
  db.prepare(
    `INSERT INTO audit_log (at, session_id, channel, sender_id, tool, args, rule, decision, outcome, reason)
     VALUES (?, 's', 'cli', 'owner', 'exec', '{}', 'risk', 'allow', 'allowed', 'r')`,
  ).run(at);
}

function addFeed(db: Database.Database, createdAt: number, outboxId: number | null = null) {
  db.prepare('INSERT INTO feed (outbox_id, kind, title, text, created_at) VALUES (?, ?, ?, ?, ?)').run(
    outboxId,
    'reminder',
    't',
    'x',
    createdAt,
  );
}

/** Old rows of every kind retention must never touch. */
function addKeepers(db: Database.Database) {
  db.prepare(
    'INSERT INTO tasks (title, status, created_at, updated_at, completed_at) VALUES (?, ?, ?, ?, ?)',
  ).run('old done task', 'done', OLD, OLD, OLD);
  db.prepare('INSERT INTO tasks (title, created_at, updated_at) VALUES (?, ?, ?)').run(
    'old open task',
    OLD,
    OLD,
  );
  db.prepare('INSERT INTO memos (text, created_at, updated_at) VALUES (?, ?, ?)').run('old memo', OLD, OLD);
  db.prepare(
    `INSERT INTO goals (title, status, timezone, last_touched_at, deliver_to, created_at, updated_at)
     VALUES ('old goal', 'done', 'UTC', ?, '[]', ?, ?)`,
  ).run(OLD, OLD, OLD);
  const reminder = db.prepare(
    `INSERT INTO reminders (text, mode, at, timezone, next_at, status, deliver_to, created_at, updated_at)
     VALUES (?, 'notify', ?, 'UTC', ?, ?, '[]', ?, ?)`,
  );
  reminder.run('pending reminder', NOW + DAY, NOW + DAY, 'active', OLD, OLD);
  reminder.run('fired long ago', OLD, null, 'done', OLD, OLD);
  db.prepare(
    `INSERT INTO grants (id, tool, scope, created_at, created_by) VALUES ('g1', 'exec', 'always', ?, 'owner')`,
  ).run(OLD);
  db.prepare("INSERT INTO settings (key, value) VALUES ('k', 'v')").run();
}

const count = (db: Database.Database, table: string) =>
  db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;
const KEPT_TABLES = ['tasks', 'memos', 'memo_search', 'goals', 'reminders', 'grants', 'settings', 'usage'];

describe('RetentionRepository.prune', () => {
  it('prunes what is too old and keeps everything else', () => {
    const { db, retention } = setup();
    addSession(db, 'stale', OLD, 3, 'forgotten words');
    addSession(db, 'active', RECENT, 2, 'remembered words'); // old messages, but the session is in use
    const gone = addRun(db, 'gone', 'done', OLD, 'sent');
    addRun(db, 'failed-delivery', 'done', OLD, 'failed');
    addRun(db, 'still-sending', 'done', OLD, 'pending');
    addRun(db, 'unfinished', 'running', null);
    addRun(db, 'recent', 'done', RECENT, 'sent');
    addAudit(db, OLD);
    addAudit(db, OLD + 1);
    addAudit(db, RECENT);
    addFeed(db, OLD);
    addFeed(db, RECENT, gone);
    addKeepers(db);
    const schema = () =>
      db.prepare('SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY name').all();
    const schemaBefore = schema();
    const before = Object.fromEntries(KEPT_TABLES.map((table) => [table, count(db, table)]));

    const result = retention.prune(AGES, NOW);

    expect(result).toMatchObject({ sessions: 1, messages: 3, outbox: 2, audit: 2, feed: 1 });
    expect(db.prepare('SELECT id FROM sessions').pluck().all()).toEqual(['active']);
    expect(count(db, 'messages')).toBe(2);
    // The search indexes forget the pruned text; the active session's stays findable.
    const search = (word: string) =>
      db.prepare('SELECT count(*) FROM message_search WHERE message_search MATCH ?').pluck().get(word);
    expect(search('forgotten')).toBe(0);
    expect(search('remembered')).toBe(2);
    expect(count(db, 'message_embeddings')).toBe(2);
    for (const table of ['session_memory', 'consolidation_status']) expect(count(db, table)).toBe(1);
    expect(db.prepare('SELECT source_key FROM outbox ORDER BY id').pluck().all()).toEqual([
      'still-sending',
      'unfinished',
      'recent',
    ]);
    expect(count(db, 'deliveries')).toBe(2);
    expect(db.prepare('SELECT outbox_id FROM feed').pluck().all()).toEqual([null]);
    expect(db.prepare('SELECT at FROM audit_log').pluck().all()).toEqual([RECENT]);
    expect(Object.fromEntries(KEPT_TABLES.map((table) => [table, count(db, table)]))).toEqual(before);
    // The usage of the pruned session is kept, detached from it.
    expect(db.prepare('SELECT count(*) FROM usage WHERE session_id IS NULL').pluck().get()).toBe(1);
    // The audit log is append-only again afterwards, and the schema holds no trace of the prune.
    expect(() => db.prepare('DELETE FROM audit_log').run()).toThrow('append-only');
    expect(schema()).toEqual(schemaBefore);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(db.pragma('foreign_key_check')).toEqual([]);

    expect(retention.prune(AGES, NOW)).toEqual({
      sessions: 0,
      messages: 0,
      outbox: 0,
      audit: 0,
      feed: 0,
      vacuumed: false,
    });
  });

  it('keeps everything of a kind whose age is 0, and everything younger than its age', () => {
    const { db, retention } = setup();
    addSession(db, 'stale', OLD, 2);
    addRun(db, 'old', 'done', OLD, 'sent');
    addAudit(db, OLD);
    addFeed(db, OLD);
    const forever = { messagesMs: 0, outboxMs: 0, auditMs: 0, feedMs: 0 };
    expect(retention.prune(forever, NOW)).toMatchObject({ sessions: 0, outbox: 0, audit: 0, feed: 0 });
    const long = { messagesMs: 500 * DAY, outboxMs: 500 * DAY, auditMs: 500 * DAY, feedMs: 500 * DAY };
    expect(retention.prune(long, NOW)).toMatchObject({ sessions: 0, outbox: 0, audit: 0, feed: 0 });
    expect([count(db, 'messages'), count(db, 'outbox'), count(db, 'audit_log'), count(db, 'feed')]).toEqual([
      2, 1, 1, 1,
    ]);
  });

  it('shrinks the file after pruning a large volume', () => {
    const { db, retention } = setup();
    const filler = 'lorem ipsum dolor '.repeat(60);
    db.transaction(() => {
      for (let i = 0; i < 200; i++) addSession(db, `old${i}`, OLD, 25, filler);
      addSession(db, 'active', RECENT, 5, filler);
      for (let i = 0; i < 3000; i++) addAudit(db, OLD);
    })();
    db.pragma('wal_checkpoint(TRUNCATE)');
    const before = retention.sizeReport();
    expect(
      before.tables
        .slice(0, 2)
        .map((table) => table.name)
        .sort(),
    ).toEqual(['message_search', 'messages']);
    expect(before.tables.map((table) => table.name)).toContain('message_search');
    expect(before.tables.some((table) => table.name.startsWith('message_search_'))).toBe(false);

    const result = retention.prune(AGES, NOW);
    expect(result).toMatchObject({ sessions: 200, messages: 5000, audit: 3000, vacuumed: true });

    const after = retention.sizeReport();
    expect(before.fileBytes).toBeGreaterThan(5 * 1024 * 1024);
    expect(after.fileBytes).toBeLessThan(before.fileBytes / 10);
    expect(after.walBytes).toBe(0);
    expect(after.freePages).toBe(0);
    expect(count(db, 'messages')).toBe(5);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
  });
});

describe('RetentionRepository.sizeReport', () => {
  it('adds up to the pages of the file, largest table first', () => {
    const { db, retention } = setup();
    addSession(db, 's', RECENT, 50, 'x'.repeat(2000));
    const report = retention.sizeReport();
    const counted = report.tables.reduce((sum, table) => sum + table.bytes, 0);
    expect(counted).toBe((report.pageCount - report.freePages) * report.pageSize);
    expect(report.fileBytes).toBeGreaterThan(0);
    const sizes = report.tables.map((table) => table.bytes);
    expect(sizes).toEqual([...sizes].sort((a, b) => b - a));
    expect(report.tables.map((table) => table.name)).not.toContain('messages_budget');
  });
});
