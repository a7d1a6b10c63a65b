import { mkdirSync, readdirSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../test/support/fake-clock.js';
import { tempDatabase } from '../../test/support/temp-database.js';
import type { RetentionConfig } from '../config/operations-config.js';
import { OutboxRepository } from '../store/outbox-repository.js';
import { RetentionRepository } from '../store/retention-repository.js';
import {
  EXEC_LOG_DIR,
  pruneExecLogs,
  RETENTION_KIND,
  retentionSource,
  retentionTask,
} from './retention-source.js';
import { createRunExecutor } from './run-executor.js';
import { Scheduler } from './scheduler.js';

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;
const START = Date.parse('2026-06-01T09:00:00Z');

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

const AGES: RetentionConfig = {
  messagesMs: 365 * DAY,
  outboxMs: 90 * DAY,
  auditMs: 90 * DAY,
  feedMs: 90 * DAY,
  execLogMs: 30 * DAY,
};

function setup(ages: RetentionConfig = AGES) {
  const clock = new FakeClock(START);
  const { db, dir } = tempDatabase('wren-retention-source-', cleanups);
  const workspace = join(dir, 'workspace');
  const state = { ages };
  const outbox = new OutboxRepository(db, clock.now);
  const store = new RetentionRepository(db);
  const errors: unknown[] = [];
  const executor = createRunExecutor({
    outbox,
    clock: clock.now,
    runAgent: async () => {
      throw new Error('retention never asks the model');
    },
    deliverers: {
      channel: async () => {
        throw new Error('retention speaks to no channel');
      },
    },
    tasks: {
      [RETENTION_KIND]: retentionTask({
        store,
        config: () => state.ages,
        workspace: () => workspace,
        clock: clock.now,
      }),
    },
    onError: (error) => errors.push(error),
  });
  const loop = new Scheduler({
    sources: [retentionSource({ config: () => state.ages, outbox })],
    executor,
    clock: clock.now,
    timers: clock,
    // Nothing else is scheduled here: a long sleep keeps days of fake time cheap.
    maxSleepMs: HOUR,
  });
  cleanups.push(() => loop.stop());
  const pass = async (ms: number) => {
    await clock.advance(ms);
    await loop.idle();
  };
  const addFeed = (createdAt: number) =>
    db
      .prepare("INSERT INTO feed (kind, title, text, created_at) VALUES ('reminder', 'old', 'x', ?)")
      .run(createdAt);
  const feedTitles = () => db.prepare('SELECT title FROM feed ORDER BY id').pluck().all();
  const runs = () => outbox.runsOf(RETENTION_KIND, 'database');
  return { clock, db, workspace, state, loop, pass, addFeed, feedTitles, runs, errors };
}

describe('retention source', () => {
  it('prunes once a day, under one key per UTC day, and says what went in the feed', async () => {
    const { loop, pass, addFeed, feedTitles, runs, errors } = setup();
    addFeed(START - 100 * DAY);
    addFeed(START - DAY);
    loop.start();
    await pass(HOUR);
    expect(runs().map((run) => run.sourceKey)).toEqual(['retention:2026-06-01T00:00:00.000Z']);
    expect(runs()[0]).toMatchObject({ state: 'done', outcome: 'quiet', result: 'Pruned 1 feed entries.' });
    expect(feedTitles()).toEqual(['old', 'Retention']);

    await pass(12 * HOUR); // still 1 June: nothing more
    expect(runs()).toHaveLength(1);
    await pass(DAY); // 2 June: nothing old enough, so no feed entry
    expect(runs().map((run) => run.sourceKey)).toEqual([
      'retention:2026-06-02T00:00:00.000Z',
      'retention:2026-06-01T00:00:00.000Z',
    ]);
    expect(feedTitles()).toEqual(['old', 'Retention']);
    expect(errors).toEqual([]);
  });

  it('two processes over one database prune a day once', async () => {
    const { db, clock } = setup();
    const outbox = new OutboxRepository(db, clock.now);
    const config = () => AGES;
    const first = retentionSource({ config, outbox });
    const second = retentionSource({ config, outbox: new OutboxRepository(db, clock.now) });
    expect(first.claimDue(clock.now())).toHaveLength(1);
    expect(second.claimDue(clock.now())).toEqual([]);
    expect(first.claimDue(clock.now() + HOUR)).toEqual([]);
    expect(first.nextDue(clock.now())).toBe(Date.parse('2026-06-02T00:00:00Z'));
  });

  it('claims nothing while every age is 0 (keep forever)', async () => {
    const forever = { messagesMs: 0, outboxMs: 0, auditMs: 0, feedMs: 0, execLogMs: 0 };
    const { loop, pass, runs, addFeed, feedTitles } = setup(forever);
    addFeed(START - 1000 * DAY);
    loop.start();
    await pass(3 * DAY);
    expect(runs()).toEqual([]);
    expect(feedTitles()).toEqual(['old']);
  });

  it('deletes saved command outputs older than exec_log_days, and nothing else in the workspace', async () => {
    const { loop, pass, workspace, clock } = setup();
    const dir = join(workspace, EXEC_LOG_DIR);
    mkdirSync(join(dir, 'nested.log'), { recursive: true });
    const file = (name: string, ageMs: number) => {
      const path = join(dir, name);
      writeFileSync(path, 'output');
      const at = (clock.now() - ageMs) / 1000;
      utimesSync(path, at, at);
      return path;
    };
    file('old.log', 31 * DAY);
    file('fresh.log', DAY);
    file('old-notes.txt', 100 * DAY);
    const outside = join(workspace, 'keep.log');
    writeFileSync(outside, 'mine');
    utimesSync(outside, 0, 0);
    symlinkSync(outside, join(dir, 'link.log'));
    loop.start();
    await pass(HOUR);
    expect(readdirSync(dir).sort()).toEqual(['fresh.log', 'link.log', 'nested.log', 'old-notes.txt']);
    expect(readdirSync(workspace)).toContain('keep.log');
  });
});

describe('pruneExecLogs', () => {
  it('is 0 for a missing folder', () => {
    expect(pruneExecLogs('/nonexistent/wren/exec', Date.now())).toBe(0);
  });
});
