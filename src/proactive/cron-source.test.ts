import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../test/support/fake-clock.js';
import { tempDatabase } from '../../test/support/temp-database.js';
import { CronJobRepository } from '../store/cron-job-repository.js';
import { MIGRATION_V7 } from '../store/migration-v7-cron.js';
import { MIGRATIONS } from '../store/migrations.js';
import { type Delivery, OutboxRepository, type OutboxRun } from '../store/outbox-repository.js';
import { cronSource, jobHistory } from './cron-source.js';
import { JobsWatcher } from './jobs-watcher.js';
import { createRunExecutor } from './run-executor.js';
import { Scheduler } from './scheduler.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** The schema up to v7 (cron jobs). */
const SCHEMA_V7 = [...MIGRATIONS.filter((step) => step.version < 7), MIGRATION_V7];
const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

/** A home folder with a database at schema v7 and jobs.yaml holding `jobs`. */
function home(jobs: string): { db: Database.Database; file: string; edit(text: string): void } {
  const { db, dir } = tempDatabase('wren-cron-', cleanups, SCHEMA_V7);
  const file = join(dir, 'jobs.yaml');
  // Saved the way editors save: a new file renamed over the old one.
  const edit = (text: string) => {
    writeFileSync(`${file}.tmp`, text);
    renameSync(`${file}.tmp`, file);
  };
  edit(jobs);
  return { db, file, edit };
}

interface Options {
  /** What the fake model answers (default `done: <prompt>`). */
  reply?: (run: OutboxRun) => { text: string; failed: boolean };
  /** How long a run takes on the fake clock. */
  runMs?: (run: OutboxRun) => number;
  timezone?: string;
  /**
   * The longest the loop sleeps (default 6 h, so a job runs only when the source's nextDue says so; the
   * hot-reload test uses the real 30 s).
   */
  maxSleepMs?: number;
}

/** The real scheduler and executor with the cron source over `db`, a fake model and a recording channel. */
function engine(db: Database.Database, file: string, clock: FakeClock, options: Options = {}) {
  const outbox = new OutboxRepository(db, clock.now);
  const repository = new CronJobRepository(db, clock.now);
  const errors: string[] = [];
  const watcher = new JobsWatcher({ path: file, onError: (error) => errors.push(error.message) });
  const asked: OutboxRun[] = [];
  const delivered: Delivery[] = [];
  const executor = createRunExecutor({
    outbox,
    clock: clock.now,
    runAgent: async (run) => {
      asked.push(run);
      clock.jump(options.runMs?.(run) ?? 0);
      return options.reply?.(run) ?? { text: `done: ${run.payload.text}`, failed: false };
    },
    deliverers: {
      channel: async (delivery) => {
        delivered.push(delivery);
      },
    },
  });
  const source = cronSource({
    jobs: () => watcher.current(),
    defaults: () => ({ timezone: options.timezone ?? 'UTC', deliverTo: ['cli:terminal'] }),
    repository,
    outbox,
  });
  const loop = new Scheduler({
    sources: [source],
    executor,
    clock: clock.now,
    timers: clock,
    maxSleepMs: options.maxSleepMs ?? 6 * HOUR,
  });
  cleanups.push(() => loop.stop());
  /** Moves the clock `hours` hours ahead an hour at a time, letting every run finish. */
  const pass = async (hours: number) => {
    for (let hour = 0; hour < hours; hour++) {
      await clock.advance(HOUR);
      await loop.idle();
    }
  };
  return { outbox, repository, loop, asked, delivered, errors, pass };
}

const berlin = (at: number) =>
  new Intl.DateTimeFormat('sv-SE', {
    timeZone: 'Europe/Berlin',
    dateStyle: 'short',
    timeStyle: 'short',
  }).format(at);

describe('cron source', () => {
  it('runs a job at its time in its own zone, once per slot, across a DST change, as the owner’s (never quiet)', async () => {
    const clock = new FakeClock(Date.parse('2026-03-27T00:00:00Z'));
    const { db, file } = home(
      'jobs:\n  daily-briefing:\n    cron: "0 8 * * *"\n    timezone: Europe/Berlin\n    prompt: Brief me\n' +
        '    deliver_to: [telegram:123]\n',
    );
    const { loop, asked, delivered, pass } = engine(db, file, clock, {
      reply: () => ({ text: '[quiet] nothing new', failed: false }),
    });
    loop.start();
    await pass(4 * 24); // 27–30 March; clocks spring forward on the 29th
    expect(delivered.map((delivery) => berlin(delivery.dueAt))).toEqual([
      '2026-03-27 08:00',
      '2026-03-28 08:00',
      '2026-03-29 08:00',
      '2026-03-30 08:00',
    ]);
    expect(new Set(delivered.map((delivery) => delivery.sourceKey)).size).toBe(4);
    expect(delivered[0]).toMatchObject({
      sourceKey: 'cron:daily-briefing:2026-03-27T07:00:00.000Z',
      target: 'telegram:123',
      title: 'daily-briefing',
      kind: 'cron',
      late: false,
      // Not autonomous: a reply that starts with [quiet] is still delivered.
      text: '[quiet] nothing new',
    });
    expect(asked[0]?.payload).toEqual({
      title: 'daily-briefing',
      text: 'Brief me',
      mode: 'agent',
      autonomous: false,
      deliverTo: ['telegram:123'],
    });
  });

  it('uses agent.timezone and proactive.deliver_to for what the job leaves out', async () => {
    const clock = new FakeClock(Date.parse('2026-06-01T00:00:00Z'));
    const { db, file } = home('jobs:\n  tea:\n    cron: "0 16 * * *"\n    prompt: Tea?\n');
    const { loop, delivered, pass } = engine(db, file, clock, { timezone: 'America/New_York' });
    loop.start();
    await pass(24);
    expect(delivered.map((delivery) => [delivery.dueAt, delivery.target])).toEqual([
      [Date.parse('2026-06-01T20:00:00Z'), 'cli:terminal'],
    ]);
  });

  it('after 3 days down, runs one late catch-up, then keeps its schedule', async () => {
    const clock = new FakeClock(Date.parse('2026-06-01T06:00:00Z'));
    const { db, file } = home('jobs:\n  daily:\n    cron: "0 8 * * *"\n    prompt: Brief me\n');
    const first = engine(db, file, clock);
    first.loop.start();
    await first.loop.idle();
    first.loop.stop();
    expect(first.repository.get('daily')?.nextAt).toBe(Date.parse('2026-06-01T08:00:00Z'));

    clock.jump(3 * DAY + 4 * HOUR); // down until 10:00 on 4 June
    const second = engine(db, file, clock);
    second.loop.start();
    await second.loop.idle();
    expect(second.delivered.map((delivery) => [delivery.dueAt, delivery.late])).toEqual([
      [Date.parse('2026-06-01T08:00:00Z'), true],
    ]);
    expect(second.repository.get('daily')?.nextAt).toBe(Date.parse('2026-06-05T08:00:00Z'));
    await second.pass(24);
    expect(second.delivered.map((delivery) => delivery.late)).toEqual([true, false]);
  });

  it('applies a valid jobs.yaml edit within one tick; an invalid one keeps the last good jobs and is reported', async () => {
    const clock = new FakeClock(Date.parse('2026-06-01T06:00:00Z'));
    const job = (cron: string) => `jobs:\n  daily:\n    cron: "${cron}"\n    prompt: Brief me\n`;
    const { db, file, edit } = home(job('0 8 * * *'));
    const { loop, repository, delivered, errors, pass } = engine(db, file, clock, { maxSleepMs: 30_000 });
    loop.start();
    await loop.idle();
    expect(repository.get('daily')?.nextAt).toBe(Date.parse('2026-06-01T08:00:00Z'));

    edit(job('15 7 * * *'));
    await clock.advance(30_000); // the longest the loop sleeps
    await loop.idle();
    expect(repository.get('daily')?.nextAt).toBe(Date.parse('2026-06-01T07:15:00Z'));

    edit(job('0 99 * * *'));
    await clock.advance(30_000);
    await loop.idle();
    expect(errors).toEqual([
      expect.stringMatching(/^jobs\.yaml: jobs\.daily\.cron: "0 99 \* \* \*" is not a valid cron expression/),
    ]);
    expect(repository.get('daily')?.nextAt).toBe(Date.parse('2026-06-01T07:15:00Z'));
    await pass(2); // to 08:00:30: the edited 07:15 ran, the original 08:00 did not
    expect(delivered.map((delivery) => delivery.dueAt)).toEqual([Date.parse('2026-06-01T07:15:00Z')]);

    edit(`${job('15 7 * * *')}  evening:\n    cron: "0 20 * * *"\n    prompt: Wrap up\n    enabled: false\n`);
    await clock.advance(30_000);
    expect(repository.list().map((state) => [state.name, state.nextAt])).toEqual([
      ['daily', Date.parse('2026-06-02T07:15:00Z')],
      ['evening', undefined],
    ]);
    edit('jobs:\n  evening:\n    cron: "0 20 * * *"\n    prompt: Wrap up\n');
    await clock.advance(30_000);
    expect(repository.list().map((state) => [state.name, state.nextAt])).toEqual([
      ['evening', Date.parse('2026-06-01T20:00:00Z')],
    ]);
    expect(errors).toHaveLength(1);
  });

  it('keeps the last 20 runs as history with outcome and duration', async () => {
    const clock = new FakeClock(Date.parse('2026-06-01T00:30:00Z'));
    const { db, file } = home('jobs:\n  hourly:\n    cron: "0 * * * *"\n    prompt: Check the build\n');
    let count = 0;
    const { outbox, loop, pass } = engine(db, file, clock, {
      runMs: () => ++count * 1000,
      reply: () =>
        count === 25 ? { text: 'model unreachable', failed: true } : { text: 'ok', failed: false },
    });
    loop.start();
    await pass(25);
    const history = jobHistory(outbox, 'hourly');
    expect(history).toHaveLength(20);
    expect(history[0]).toMatchObject({
      key: 'cron:hourly:2026-06-02T01:00:00.000Z',
      state: 'done',
      outcome: 'failed',
      error: 'model unreachable',
      durationMs: 25_000,
      manual: false,
      late: false,
    });
    expect(history.map((run) => run.durationMs)).toEqual(
      Array.from({ length: 20 }, (_, index) => (25 - index) * 1000),
    );
    expect(history.slice(1).every((run) => run.outcome === 'delivered')).toBe(true);
  });

  it('runs a manual request once under its own key, without moving the schedule', async () => {
    const clock = new FakeClock(Date.parse('2026-06-01T06:00:00Z'));
    const { db, file } = home('jobs:\n  daily:\n    cron: "0 8 * * *"\n    prompt: Brief me\n');
    const { loop, repository, delivered } = engine(db, file, clock);
    loop.start();
    await loop.idle();
    repository.requestRun({ name: 'daily', cron: '0 8 * * *', timezone: 'UTC' }, clock.now());
    repository.requestRun({ name: 'daily', cron: '0 8 * * *', timezone: 'UTC' }, clock.now() + 1);
    loop.wake();
    await loop.idle();
    await clock.advance(30_000);
    await loop.idle();
    expect(delivered.map((delivery) => delivery.sourceKey)).toEqual([
      'cron:daily:manual-2026-06-01T06:00:00.000Z',
    ]);
    expect(repository.get('daily')).toMatchObject({ nextAt: Date.parse('2026-06-01T08:00:00Z') });
    expect(repository.get('daily')?.runRequestedAt).toBeUndefined();
  });

  it('two schedulers on one home run each occurrence once', async () => {
    const clock = new FakeClock(Date.parse('2026-06-01T06:00:00Z'));
    const { db, file } = home('jobs:\n  a:\n    cron: "*/10 * * * *"\n    prompt: tick\n');
    const first = engine(db, file, clock);
    const second = engine(db, file, clock);
    first.loop.start();
    second.loop.start();
    await first.pass(2);
    await second.loop.idle();
    const keys = [...first.delivered, ...second.delivered].map((delivery) => delivery.sourceKey);
    expect(keys).toHaveLength(12);
    expect(new Set(keys).size).toBe(12);
  });
});
