import type Database from 'better-sqlite3';
import { expect } from 'vitest';
import { MIGRATIONS, migrateTo } from '../../src/store/migrations.js';
import { openDatabase } from '../../src/store/open-database.js';
import type { Stores } from '../../src/store/open-stores.js';

/**
 * Databases as older Wrens left them, for upgrade tests. A fixture at schema version V is made the way a
 * home grows: migrate to 1, write what Wren 1 wrote, migrate to 2, write what Wren 2 added, … up to V — so
 * rows written at each version also pass through every later migration. Each seed writes the tables its
 * migration created, with values as the app writes them (JSON where the app stores JSON, Unix ms times, one
 * of each state), and checks afterwards, through the current stores, what an owner would notice missing.
 *
 * Adding migration N+1 means adding SEEDS[N+1]: the upgrade test fails for a version without a seed and for
 * any table left empty by the seeds.
 */
export interface Seed {
  /** Writes rows into the tables created by this version (the schema is exactly this version's). */
  write(db: Database.Database): void;
  /** After the upgrade to the current schema: what an owner would notice missing, through the ports. */
  check(stores: Stores): Promise<void> | void;
}

/** 2025-06-01T08:00:00Z, when the fixtures' rows were written. */
export const T = Date.UTC(2025, 5, 1, 8);
const MIN = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
export const SESSION = 'sess-2025-06-01-telegram';

const json = (value: unknown) => JSON.stringify(value);

const message = (db: Database.Database, seq: number, content: object, tokens: number, details?: object) =>
  db
    .prepare(
      'INSERT INTO messages (session_id, seq, role, content, tokens, details, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    )
    .run(
      SESSION,
      seq,
      (content as { role: string }).role,
      json(content),
      tokens,
      details ? json(details) : null,
      T + seq * MIN,
    );

export const SEEDS: Record<number, Seed> = {
  1: {
    write(db) {
      const session = db.prepare('INSERT INTO sessions VALUES (?, ?, ?, ?, ?, ?)');
      session.run(SESSION, 'telegram:4242', 'telegram', '4242', T, T + 5 * MIN);
      session.run('sess-cli-old', 'cli:terminal', 'cli', 'terminal', T - DAY, T - DAY);
      message(db, 1, { role: 'user', content: 'Remind me which zebra crossing the school uses' }, 12);
      message(
        db,
        2,
        {
          role: 'assistant',
          content: '',
          toolCalls: [{ id: 'call_1', name: 'memory_search', arguments: '{"query":"zebra crossing"}' }],
        },
        9,
      );
      message(
        db,
        3,
        {
          role: 'tool',
          toolCallId: 'call_1',
          toolName: 'memory_search',
          content: 'Elm Street, by the bakery',
        },
        8,
        { durationMs: 41 },
      );
      message(
        db,
        4,
        {
          role: 'user',
          content: [
            { type: 'text', text: 'and this photo of the café menu' },
            { type: 'image', data: 'aGVsbG8=', mediaType: 'image/png' },
          ],
        },
        30,
      );
      message(db, 5, { role: 'assistant', content: 'The zebra crossing on Elm Street, by the bakery.' }, 14);
      db.prepare(
        'INSERT INTO usage (session_id, endpoint, input_tokens, output_tokens, cached_tokens, created_at) VALUES (?, ?, ?, ?, ?, ?)',
      ).run(SESSION, 'openai:gpt-4o-mini', 1830, 42, 1024, T + 5 * MIN);
      db.prepare(
        'INSERT INTO usage (endpoint, input_tokens, output_tokens, created_at) VALUES (?, ?, ?, ?)',
      ).run('anthropic:claude-haiku', 500, 20, T);
      db.prepare('INSERT INTO settings VALUES (?, ?)').run('gateway.token_hash', 'sha256:9f86d081884c7d65');
      db.prepare('INSERT INTO settings VALUES (?, ?)').run('onboarding.done', '1');
    },
    async check(stores) {
      const session = await stores.sessions.getSession(SESSION);
      expect(session).toMatchObject({ key: 'telegram:4242', channel: 'telegram', chatId: '4242' });
      const messages = await stores.sessions.messagesAfter(SESSION, 0, 100);
      expect(messages.map((m) => m.message.role)).toEqual(['user', 'assistant', 'tool', 'user', 'assistant']);
      expect(messages[3]!.message).toEqual({
        role: 'user',
        content: [
          { type: 'text', text: 'and this photo of the café menu' },
          { type: 'image', data: 'aGVsbG8=', mediaType: 'image/png' },
        ],
      });
      expect(stores.settings.get('gateway.token_hash')).toBe('sha256:9f86d081884c7d65');
      expect(stores.usage.totals()).toMatchObject({ inputTokens: 2330, outputTokens: 62 });
      // Messages written before v2 existed were indexed by its backfill; the tool result is not searchable.
      const hits = stores.messages.search({ text: 'zebra' });
      expect(hits.map((hit) => hit.seq).sort()).toEqual([1, 5]);
      expect(stores.messages.search({ text: 'bakery', sessionId: SESSION }).map((hit) => hit.seq)).toEqual([
        5,
      ]);
    },
  },
  2: {
    write(db) {
      db.prepare('INSERT INTO session_memory VALUES (?, ?, ?, ?)').run(
        SESSION,
        2,
        'The owner asked about the school crossing.',
        T + 3 * MIN,
      );
      db.prepare('INSERT INTO consolidation_pending VALUES (?, ?, ?, ?, ?, ?)').run(
        SESSION,
        3,
        4,
        'Also a café menu photo.',
        json({ history: '- [2025-06-01] menu photo', memory: null }),
        T + 6 * MIN,
      );
      db.prepare(
        'INSERT INTO consolidation_status (session_id, failures, last_error, last_attempt_at, next_attempt_at, last_success_at, consolidated_messages, input_tokens, output_tokens) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
      ).run(SESSION, 1, 'model timed out', T + 6 * MIN, T + 36 * MIN, T + 3 * MIN, 2, 900, 120);
      const memo = db.prepare('INSERT INTO memos (text, created_at, updated_at) VALUES (?, ?, ?)');
      memo.run('Dentist is Dr. Okafor, +44 20 7946 0000', T, T);
      memo.run('Wi-Fi at the cabin: "birch-lake-22"', T + MIN, T + 2 * MIN);
      const task = db.prepare(
        'INSERT INTO tasks (title, notes, due, priority, status, created_at, updated_at, completed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      );
      task.run('Renew passport', 'form at the post office', '2025-07-15', 'high', 'open', T, T, null);
      task.run('Buy birthday card', '', '2025-06-03 18:00', 'normal', 'done', T, T + DAY, T + DAY);
      task.run('Sort photos', '', null, 'low', 'open', T, T, null);
    },
    async check(stores) {
      expect(await stores.sessions.memoryState(SESSION)).toMatchObject({
        consolidatedSeq: 2,
        summary: 'The owner asked about the school crossing.',
      });
      expect(await stores.sessions.pendingConsolidations(SESSION)).toHaveLength(1);
      expect(stores.memos.search('Okafor').map((memo) => memo.text)).toEqual([
        'Dentist is Dr. Okafor, +44 20 7946 0000',
      ]);
      expect(stores.memos.count()).toBe(2);
      expect(stores.tasks.list('open').map((task) => task.title)).toEqual(
        expect.arrayContaining(['Renew passport', 'Sort photos']),
      );
      expect(stores.tasks.list('all')).toHaveLength(3);
      expect(stores.tasks.countOpen()).toBe(2);
    },
  },
  3: {
    write(db) {
      const audit = db.prepare(
        'INSERT INTO audit_log (at, session_id, channel, sender_id, tool, args, rule, decision, outcome, answer, answered_by, reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      );
      audit.run(
        T,
        SESSION,
        'telegram',
        '4242',
        'exec',
        '{"command":"ls ~/notes"}',
        'mode:ask',
        'ask',
        'allowed',
        'once',
        'owner',
        'runs: ls',
      );
      audit.run(
        T + MIN,
        SESSION,
        'telegram',
        '4242',
        'write_file',
        '{"path":"/etc/hosts"}',
        'deny:outside-workspace',
        'deny',
        'denied',
        null,
        null,
        'outside the workspace',
      );
      const grant = db.prepare(
        'INSERT INTO grants (id, tool, target, scope, session_id, created_at, created_by, consumed_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
      );
      grant.run('g-always-git', 'exec', 'git', 'always', null, T, 'owner', null, null);
      grant.run('g-session-web', 'web_fetch', 'example.org', 'session', SESSION, T, 'owner', null, null);
      grant.run('g-once-used', 'exec', 'rm', 'once', null, T, 'owner', T + MIN, null);
      grant.run('g-revoked', 'exec', 'curl', 'always', null, T, 'owner', null, T + DAY);
      db.prepare('INSERT INTO session_taint VALUES (?, ?, ?, ?)').run(
        SESSION,
        'untrusted',
        'web_fetch:example.org',
        T,
      );
    },
    check(stores) {
      expect(stores.audit.list().map((entry) => entry.tool)).toEqual(
        expect.arrayContaining(['exec', 'write_file']),
      );
      expect(
        stores.grants
          .active(SESSION)
          .map((grant) => grant.id)
          .sort(),
      ).toEqual(['g-always-git', 'g-session-web']);
      expect(stores.taint.untrustedSessions()).toEqual(new Set([SESSION]));
    },
  },
  4: {
    write(db) {
      const pin = db.prepare('INSERT INTO mcp_tool_pins VALUES (?, ?, ?, ?, ?)');
      const tools = [{ name: 'read', description: 'Read a file', inputSchema: { type: 'object' } }];
      pin.run('files', 'sha256:aaa', json(tools), T, T);
      pin.run(
        'files',
        'sha256:bbb',
        json([...tools, { name: 'delete', description: 'Delete', inputSchema: {} }]),
        T + DAY,
        null,
      );
    },
    check(stores) {
      expect(stores.mcpPins.approvedHash('files')).toBe('sha256:aaa');
      expect(stores.mcpPins.heldServers()).toEqual(['files']);
    },
  },
  5: {
    write(db) {
      const reminder = db.prepare(
        'INSERT INTO reminders (text, mode, at, cron, timezone, next_at, status, deliver_to, session_id, created_at, updated_at, fired, last_fired_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      );
      reminder.run(
        'Call mum',
        'notify',
        T + DAY,
        null,
        'Europe/London',
        T + DAY,
        'active',
        json(['telegram:4242']),
        SESSION,
        T,
        T,
        0,
        null,
      );
      reminder.run(
        'Take the bins out',
        'notify',
        null,
        '0 19 * * 2',
        'Europe/London',
        T + 2 * DAY,
        'active',
        json(['cli:terminal']),
        null,
        T,
        T,
        3,
        T - DAY,
      );
      reminder.run(
        'Water the plants',
        'agent',
        T - DAY,
        null,
        'Europe/London',
        null,
        'done',
        json(['telegram:4242']),
        SESSION,
        T - 2 * DAY,
        T - DAY,
        1,
        T - DAY,
      );
      reminder.run(
        'Old idea',
        'notify',
        T + 9 * DAY,
        null,
        'UTC',
        null,
        'cancelled',
        json([]),
        null,
        T,
        T,
        0,
        null,
      );
      const outbox = db.prepare(
        'INSERT INTO outbox (source_key, kind, ref, due_at, late, payload, state, claimed_at, started_at, finished_at, attempts, outcome, result, error) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      );
      const done = outbox.run(
        'reminder:3:2025-05-31T08:00:00.000Z',
        'reminder',
        '3',
        T - DAY,
        0,
        json({ text: 'Water the plants', mode: 'agent' }),
        'done',
        T - DAY,
        T - DAY,
        T - DAY + MIN,
        1,
        'delivered',
        'Done: watered reminder sent',
        null,
      );
      const pending = outbox.run(
        'heartbeat:2025-06-01T08:00:00.000Z',
        'heartbeat',
        'heartbeat',
        T,
        1,
        json({ prompt: 'Check in' }),
        'running',
        T,
        T,
        null,
        1,
        null,
        null,
        null,
      );
      const delivery = db.prepare(
        'INSERT INTO deliveries (outbox_id, target, state, attempts, next_attempt_at, last_error, sent_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      );
      delivery.run(done.lastInsertRowid, 'telegram:4242', 'sent', 1, T - DAY, null, T - DAY + MIN);
      delivery.run(done.lastInsertRowid, 'webhook:home', 'pending', 2, T + 5 * MIN, 'HTTP 503', null);
      db.prepare(
        'INSERT INTO feed (outbox_id, kind, title, text, quiet, late, failed, created_at, read_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
      ).run(
        done.lastInsertRowid,
        'reminder',
        'Water the plants',
        'Reminder sent',
        0,
        0,
        0,
        T - DAY + MIN,
        null,
      );
      db.prepare('INSERT INTO triggers (trigger_id, key, seen_at, payload) VALUES (?, ?, ?, ?)').run(
        'mail-invoices',
        'mail-invoices:INBOX:1042',
        T,
        json({ subject: 'Invoice June', from: 'billing@example.com' }),
      );
      expect(pending.changes).toBe(1);
    },
    check(stores) {
      expect(
        stores.reminders
          .list('active')
          .map((r) => r.text)
          .sort(),
      ).toEqual(['Call mum', 'Take the bins out']);
      const all = stores.reminders.list('all');
      expect(all.find((r) => r.text === 'Water the plants')).toMatchObject({ status: 'done', fired: 1 });
      expect(stores.reminders.nextDue()).toBe(T + DAY);
      const run = stores.outbox.bySourceKey('reminder:3:2025-05-31T08:00:00.000Z')!;
      expect(run).toMatchObject({ state: 'done', outcome: 'delivered' });
      expect(stores.outbox.deliveriesOf(run.id).map((d) => [d.target, d.state])).toEqual([
        ['telegram:4242', 'sent'],
        ['webhook:home', 'pending'],
      ]);
      expect(stores.outbox.unfinished().map((r) => r.kind)).toEqual(['heartbeat']);
      expect(stores.outbox.feed().map((item) => item.title)).toEqual(['Water the plants']);
    },
  },
  6: {
    write(db) {
      const goal = db
        .prepare(
          'INSERT INTO goals (title, why, status, due_date, checkin_cron, timezone, next_checkin_at, passes, last_pass_at, last_touched_at, session_id, deliver_to, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
        )
        .run(
          'Run a half marathon',
          'health',
          'active',
          '2025-10-12',
          '0 9 * * 1',
          'Europe/London',
          T + 3 * DAY,
          2,
          T - DAY,
          T,
          SESSION,
          json(['telegram:4242']),
          T - 30 * DAY,
          T,
        );
      db.prepare(
        'INSERT INTO goals (title, status, timezone, last_touched_at, deliver_to, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ).run('Learn Portuguese', 'paused', 'Europe/Lisbon', T - 5 * DAY, json([]), T - 60 * DAY, T - 5 * DAY);
      const step = db.prepare(
        'INSERT INTO goal_steps (goal_id, position, title, status, notes, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
      );
      step.run(goal.lastInsertRowid, 1, 'Run 5 km', 'done', 'June 1', T);
      step.run(goal.lastInsertRowid, 2, 'Run 10 km', 'in_progress', '', T);
      step.run(goal.lastInsertRowid, 3, 'Run 21 km', 'pending', '', T);
      db.prepare(
        'INSERT INTO goal_proposals (goal_id, reason, steps, status, created_at, decided_at) VALUES (?, ?, ?, ?, ?, ?)',
      ).run(
        goal.lastInsertRowid,
        'Add a rest week',
        json([{ title: 'Rest week' }, { title: 'Run 21 km' }]),
        'pending',
        T,
        null,
      );
    },
    check(stores) {
      const goal = stores.goals.list('all').find((g) => g.title === 'Run a half marathon')!;
      const detail = stores.goals.get(goal.id)!;
      expect(detail.steps.map((s) => [s.title, s.status])).toEqual([
        ['Run 5 km', 'done'],
        ['Run 10 km', 'in_progress'],
        ['Run 21 km', 'pending'],
      ]);
      expect(stores.goals.pendingProposals(goal.id)).toBe(1);
      expect(stores.goals.list('all')).toHaveLength(2);
      expect(stores.goals.nextCheckinAt()).toBe(T + 3 * DAY);
    },
  },
  7: {
    write(db) {
      db.prepare('INSERT INTO cron_jobs VALUES (?, ?, ?, ?, ?, ?, ?)').run(
        'morning-brief',
        '0 7 * * *',
        'Europe/London',
        T + DAY - HOUR,
        'sha256:c0ffee',
        T,
        T + MIN,
      );
    },
    check(stores) {
      expect(stores.cronJobs.get('morning-brief')).toMatchObject({
        cron: '0 7 * * *',
        nextAt: T + DAY - HOUR,
      });
    },
  },
  8: {
    write(db) {
      db.prepare(
        'INSERT INTO push_subscriptions (endpoint, keys, created_at, last_ok_at, failures) VALUES (?, ?, ?, ?, ?)',
      ).run(
        'https://fcm.googleapis.com/fcm/send/abc123',
        json({
          p256dh: 'BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM',
          auth: 'tBHItJI5svbpez7KI4CCXg',
        }),
        T,
        T + HOUR,
        0,
      );
    },
    check(stores) {
      expect(stores.pushSubscriptions.list().map((s) => s.endpoint)).toEqual([
        'https://fcm.googleapis.com/fcm/send/abc123',
      ]);
    },
  },
  9: {
    write(db) {
      db.prepare('INSERT INTO channel_inbound VALUES (?, ?, ?, ?)').run('telegram', '4242', '88123', T);
      db.prepare('INSERT INTO channel_cursors VALUES (?, ?, ?)').run(
        'telegram',
        'update_offset',
        '551870034',
      );
      db.prepare('INSERT INTO channel_cursors VALUES (?, ?, ?)').run('mail', 'INBOX:uid', '1042');
      const pairing = db.prepare(
        'INSERT INTO channel_pairings (code, channel, sender_id, chat_id, sender_name, created_at, expires_at, approved_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      );
      pairing.run('K7QX2MPA', 'telegram', '4242', '4242', 'Sam', T - DAY, T - DAY + HOUR, T - DAY + MIN);
      pairing.run('ZZ3N8WQE', 'discord', '9001', 'dm-9001', 'Unknown', T, T + HOUR, null);
    },
    check(stores) {
      expect(stores.channels.cursor('telegram', 'update_offset')).toBe('551870034');
      expect(stores.channels.isPaired('telegram', '4242')).toBe(true);
      expect(stores.channels.isPaired('discord', '9001')).toBe(false);
      // Already taken in before the upgrade: a redelivery is still recognised.
      expect(stores.channels.firstSeen('telegram', '4242', '88123', T + MIN)).toBe(false);
    },
  },
  10: {
    write(db) {
      const request = {
        id: 'appr-7f3a',
        sessionId: SESSION,
        channel: 'telegram',
        chatId: '4242',
        senderId: '4242',
        tool: 'exec',
        args: '{"command":"rm -rf ~/Downloads/old"}',
        reason: 'deletes files',
        target: 'rm',
        facts: ['runs: rm'],
        choices: ['once', 'deny'],
        createdAt: T,
      };
      db.prepare('INSERT INTO pending_approvals VALUES (?, ?, ?)').run(request.id, json(request), T);
    },
    check(stores) {
      expect(stores.approvals.all().map((request) => [request.id, request.tool])).toEqual([
        ['appr-7f3a', 'exec'],
      ]);
    },
  },
  11: {
    write(db) {
      const vector = Buffer.from(new Float32Array([0.25, -0.5, 0.125, 1]).buffer);
      db.prepare(
        'INSERT INTO embeddings (model, hash, dimensions, vector, created_at) VALUES (?, ?, ?, ?, ?)',
      ).run('nomic-embed-text', 'sha256:5e1f', 4, vector, T);
      const rowid = db
        .prepare('SELECT rowid FROM messages WHERE session_id = ? AND seq = 5')
        .pluck()
        .get(SESSION);
      db.prepare('INSERT INTO message_embeddings VALUES (?, ?)').run(rowid, 'sha256:5e1f');
    },
    check(stores) {
      expect(stores.embeddings.counts('nomic-embed-text')).toMatchObject({ embedded: 1 });
    },
  },
  12: {
    write(db) {
      const href = '/sam/work/standup.ics';
      const raw =
        'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:standup-1\r\nSUMMARY:Standup\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n';
      const event = db.prepare('INSERT INTO calendar_events VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
      for (const day of [1, 2])
        event.run(
          'work',
          'standup-1',
          new Date(T + day * DAY).toISOString(),
          href,
          '"e1"',
          T + day * DAY,
          T + day * DAY + 15 * MIN,
          0,
          'Standup',
          'Room 4',
          'Europe/Berlin',
          raw,
        );
      db.prepare('INSERT INTO calendar_state VALUES (?, ?, ?, ?, ?, ?, ?, ?)').run(
        'work',
        'http://127.0.0.1:5232/sam/work/',
        'ctag-17',
        'http://radicale.org/ns/sync/17',
        null,
        T,
        T,
        null,
      );
    },
    check(stores) {
      expect(stores.calendars.between(T, T + 3 * DAY).map((o) => [o.summary, o.start])).toEqual([
        ['Standup', T + DAY],
        ['Standup', T + 2 * DAY],
      ]);
      expect(stores.calendars.state('work')).toMatchObject({ ctag: 'ctag-17' });
    },
  },
  13: {
    write(db) {
      const version = db.prepare(
        'INSERT INTO file_versions (path, content, sha256, author, note, created_at) VALUES (?, ?, ?, ?, ?, ?)',
      );
      version.run('MEMORY.md', '# Memory\n', 'a'.repeat(64), 'consolidation', '', T);
      version.run('MEMORY.md', '# Memory\n- The owner runs.\n', 'b'.repeat(64), 'web', 'owner edit', T + MIN);
    },
    check(stores) {
      expect(stores.fileVersions.list({ path: 'MEMORY.md' }).map((v) => [v.author, v.note])).toEqual([
        ['web', 'owner edit'],
        ['consolidation', ''],
      ]);
      expect(stores.fileVersions.latest('MEMORY.md')?.content).toBe('# Memory\n- The owner runs.\n');
    },
  },
  14: {
    write(db) {
      db.prepare(
        'INSERT INTO vault_secrets (name, sealed, bindings, created_at, updated_at, used_at) VALUES (?, ?, ?, ?, ?, ?)',
      ).run('GITHUB_TOKEN', 'v1:c2VhbGVk', json({ hosts: ['api.github.com'] }), T, T, T + HOUR);
    },
    check(stores) {
      expect(stores.vault.get('GITHUB_TOKEN')).toMatchObject({
        sealed: 'v1:c2VhbGVk',
        bindings: { hosts: ['api.github.com'] },
        usedAt: T + HOUR,
      });
    },
  },
  15: {
    write(db) {
      const add = db.prepare(
        'INSERT INTO memory_proposals (file, text, key, reason, dream_key, status, created_at, decided_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      );
      add.run(
        'USER.md',
        '- The owner lives in Lisbon.',
        'the owner lives in lisbon.',
        'about the owner',
        'tidy:x',
        'pending',
        T,
        null,
      );
      add.run('AGENTS.md', '- Answer in German.', 'answer in german.', '', 'tidy:x', 'dismissed', T, T + MIN);
    },
    check(stores) {
      expect(stores.memoryProposals.list('pending').map((p) => [p.file, p.text, p.reason])).toEqual([
        ['USER.md', '- The owner lives in Lisbon.', 'about the owner'],
      ]);
      expect(stores.memoryProposals.list().find((p) => p.file === 'AGENTS.md')).toMatchObject({
        status: 'dismissed',
        decidedAt: T + MIN,
      });
    },
  },
};

/**
 * Creates `path` at schema `version`, as a home that went through every earlier version has it: each
 * version's seed written right after its migration. The file is closed again.
 */
export function buildFixture(path: string, version: number): void {
  const db = openDatabase(path, { migrate: false });
  try {
    for (const migration of MIGRATIONS.filter((m) => m.version <= version)) {
      migrateTo(db, migration.version);
      const seed = SEEDS[migration.version];
      if (!seed)
        throw new Error(`schema version ${migration.version} has no seed in test/support/schema-fixtures.ts`);
      seed.write(db);
    }
  } finally {
    db.close();
  }
}
