import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../test/support/fake-clock.js';
import { openDatabase } from '../store/open-database.js';
import { type Delivery, OutboxRepository } from '../store/outbox-repository.js';
import { ReminderRepository } from '../store/reminder-repository.js';
import { nextOccurrence } from '../util/schedule.js';
import { reminderSource } from './reminder-source.js';
import { createRunExecutor, TargetUnavailable } from './run-executor.js';
import { type DueSource, type RunExecutor, Scheduler } from './scheduler.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function database(): { db: Database.Database; path: string } {
  const dir = mkdtempSync(join(tmpdir(), 'wren-sched-'));
  const path = join(dir, 'wren.db');
  const db = openDatabase(path);
  cleanups.push(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { db, path };
}

/** A scheduler over `db` on `clock`, delivering to a recording channel. */
function scheduler(db: Database.Database, clock: FakeClock, channel?: (delivery: Delivery) => void) {
  const reminders = new ReminderRepository(db, clock.now);
  const outbox = new OutboxRepository(db, clock.now);
  const delivered: Delivery[] = [];
  const executor = createRunExecutor({
    outbox,
    clock: clock.now,
    runAgent: async (run) => ({ text: `did: ${run.payload.text}`, failed: false }),
    deliverers: {
      channel: async (delivery) => {
        channel?.(delivery);
        delivered.push(delivery);
      },
    },
  });
  const loop = new Scheduler({
    sources: [reminderSource({ reminders, outbox })],
    executor,
    clock: clock.now,
    timers: clock,
  });
  cleanups.push(() => loop.stop());
  return { reminders, outbox, loop, delivered };
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

function daily(reminders: ReminderRepository, clock: FakeClock, cron: string, timezone: string) {
  const next = nextOccurrence({ cron, timezone }, clock.now())!;
  return reminders.create({
    text: 'stretch',
    mode: 'notify',
    cron,
    timezone,
    nextAt: next,
    deliverTo: ['cli:terminal'],
  });
}

describe('Scheduler with reminders', () => {
  it('fires a one-off reminder once, at its time, and marks it done', async () => {
    const clock = new FakeClock(Date.parse('2026-03-01T10:00:00Z'));
    const { db } = database();
    const { reminders, loop, delivered } = scheduler(db, clock);
    const at = clock.now() + 20 * 60_000;
    const reminder = reminders.create({
      text: 'tea',
      mode: 'notify',
      at,
      timezone: 'UTC',
      nextAt: at,
      deliverTo: ['cli:terminal'],
    });
    loop.start();
    await clock.advance(19 * 60_000);
    await loop.idle();
    expect(delivered).toEqual([]);
    await clock.advance(60_000);
    await loop.idle();
    expect(delivered.map((delivery) => [delivery.text, delivery.target, delivery.late])).toEqual([
      ['tea', 'cli:terminal', false],
    ]);
    expect(reminders.get(reminder.id)).toMatchObject({ status: 'done', fired: 1 });
    await clock.advance(DAY);
    await loop.idle();
    expect(delivered).toHaveLength(1);
  });

  it('fires a daily 09:00 Berlin reminder once a day across both DST changes, always at 09:00 local', async () => {
    for (const [start, days] of [
      ['2026-03-25T00:00:00Z', 7], // spring forward on 29 March
      ['2026-10-21T00:00:00Z', 7], // fall back on 25 October
    ] as const) {
      const clock = new FakeClock(Date.parse(start));
      const { db } = database();
      const { reminders, loop, delivered } = scheduler(db, clock);
      daily(reminders, clock, '0 9 * * *', 'Europe/Berlin');
      loop.start();
      for (let hour = 0; hour < days * 24; hour++) {
        await clock.advance(HOUR);
        await loop.idle();
      }
      const local = delivered.map((delivery) =>
        new Intl.DateTimeFormat('en-GB', {
          timeZone: 'Europe/Berlin',
          hour: '2-digit',
          minute: '2-digit',
        }).format(delivery.dueAt),
      );
      expect(local).toEqual(Array(days).fill('09:00'));
      expect(new Set(delivered.map((delivery) => delivery.sourceKey)).size).toBe(days);
      loop.stop();
    }
  });

  it('a 02:30 reminder runs at 03:00 on the day spring-forward removes 02:30, and once when fall-back repeats it', async () => {
    const berlin = (at: number) =>
      new Intl.DateTimeFormat('sv-SE', {
        timeZone: 'Europe/Berlin',
        dateStyle: 'short',
        timeStyle: 'short',
      }).format(at);
    for (const [start, expected] of [
      ['2026-03-28T12:00:00Z', ['2026-03-29 03:00', '2026-03-30 02:30']],
      ['2026-10-24T12:00:00Z', ['2026-10-25 02:30', '2026-10-26 02:30']],
    ] as const) {
      const clock = new FakeClock(Date.parse(start));
      const { db } = database();
      const { reminders, loop, delivered } = scheduler(db, clock);
      daily(reminders, clock, '30 2 * * *', 'Europe/Berlin');
      loop.start();
      for (let hour = 0; hour < 48; hour++) {
        await clock.advance(HOUR);
        await loop.idle();
      }
      expect(delivered.map((delivery) => berlin(delivery.dueAt))).toEqual(expected);
      loop.stop();
    }
  });

  it('a clock jumping +2 h fires what came due once; jumping −1 h fires nothing twice', async () => {
    const clock = new FakeClock(Date.parse('2026-05-01T08:00:00Z'));
    const { db } = database();
    const { reminders, loop, delivered } = scheduler(db, clock);
    daily(reminders, clock, '0 * * * *', 'UTC'); // every hour on the hour
    loop.start();
    await clock.advance(HOUR); // 09:00 fires
    await loop.idle();
    clock.jump(2 * HOUR); // 11:00: 10:00 and 11:00 were "missed" in a jump
    await clock.fire();
    await loop.idle();
    clock.jump(-HOUR); // back to 10:00: nothing again
    await clock.fire();
    await loop.idle();
    await clock.advance(2 * HOUR); // to 12:00
    await loop.idle();
    const keys = delivered.map((delivery) => delivery.sourceKey);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys.map((key) => key.slice(-14, -8))).toEqual(['T09:00', 'T10:00', 'T12:00']);
    expect(delivered.find((delivery) => delivery.sourceKey.includes('T10:00'))?.late).toBe(true);
  });

  it('after 3 days of downtime, a daily reminder is caught up once, marked late, then runs on schedule', async () => {
    const clock = new FakeClock(Date.parse('2026-06-01T06:00:00Z'));
    const { db, path } = database();
    const { reminders } = scheduler(db, clock);
    const reminder = daily(reminders, clock, '0 8 * * *', 'UTC');
    clock.jump(3 * DAY + 4 * HOUR); // the process was down; it starts at 10:00 on day 4
    const { loop, delivered } = scheduler(db, clock);
    loop.start();
    await loop.idle();
    expect(delivered).toHaveLength(1);
    expect(delivered[0]).toMatchObject({ late: true, dueAt: Date.parse('2026-06-01T08:00:00Z') });
    expect(reminders.get(reminder.id)?.nextAt).toBe(Date.parse('2026-06-05T08:00:00Z'));
    await clock.advance(DAY);
    await loop.idle();
    expect(delivered.map((delivery) => delivery.late)).toEqual([true, false]);
    expect(path).toBeTruthy();
  });

  it('two schedulers ticking the same home at the same moment run each occurrence once', async () => {
    const clock = new FakeClock(Date.parse('2026-07-01T10:00:00Z'));
    const { db } = database();
    const first = scheduler(db, clock);
    const second = scheduler(db, clock);
    for (let n = 0; n < 20; n++) {
      const at = clock.now() + (n + 1) * 60_000;
      first.reminders.create({
        text: `r${n}`,
        mode: 'notify',
        at,
        timezone: 'UTC',
        nextAt: at,
        deliverTo: ['cli:terminal'],
      });
    }
    first.loop.start();
    second.loop.start();
    await clock.advance(30 * 60_000);
    await Promise.all([first.loop.idle(), second.loop.idle()]);
    const texts = [...first.delivered, ...second.delivered].map((delivery) => delivery.text).sort();
    expect(texts).toEqual(Array.from({ length: 20 }, (_, n) => `r${n}`).sort());
  });

  it('replays at start what a crash left claimed but not finished, and only that', async () => {
    const clock = new FakeClock(Date.parse('2026-08-01T10:00:00Z'));
    const { db } = database();
    const { reminders, outbox } = scheduler(db, clock);
    const at = clock.now();
    const reminder = reminders.create({
      text: 'interrupted',
      mode: 'notify',
      at,
      timezone: 'UTC',
      nextAt: at,
      deliverTo: ['cli:terminal'],
    });
    // What a process killed right after claiming leaves: the claim and the advance, no result.
    const [claimed] = reminderSource({ reminders, outbox }).claimDue(clock.now());
    expect(claimed?.state).toBe('pending');
    expect(reminders.get(reminder.id)?.status).toBe('done');
    const restarted = scheduler(db, clock);
    restarted.loop.start();
    await restarted.loop.idle();
    expect(restarted.delivered.map((delivery) => delivery.text)).toEqual(['interrupted']);
    const again = scheduler(db, clock);
    again.loop.start();
    await again.loop.idle();
    expect(again.delivered).toEqual([]);
  });

  it('retries a delivery its target could not take, and sends it once the target is back', async () => {
    const clock = new FakeClock(Date.parse('2026-09-01T10:00:00Z'));
    const { db } = database();
    let connected = false;
    const { reminders, loop, delivered, outbox } = scheduler(db, clock, () => {
      if (!connected) throw new TargetUnavailable('the terminal is not open');
    });
    const at = clock.now() + 1000;
    reminders.create({
      text: 'later',
      mode: 'notify',
      at,
      timezone: 'UTC',
      nextAt: at,
      deliverTo: ['cli:terminal'],
    });
    loop.start();
    await clock.advance(5_000);
    await loop.idle();
    expect(delivered).toEqual([]);
    expect(outbox.feed()[0]).toMatchObject({ title: 'Reminder', text: 'later' });
    connected = true;
    await clock.advance(60_000);
    await loop.idle();
    expect(delivered.map((delivery) => delivery.text)).toEqual(['later']);
  });
});

/** An executor with nothing to run or deliver, for tests of the loop's timing alone. */
const idleExecutor: RunExecutor = {
  run: async () => {},
  deliver: async () => {},
  nextDelivery: () => undefined,
  unfinished: () => [],
};

describe('Scheduler loop', () => {
  it('does not spin when a source keeps reporting a past due time it cannot claim', async () => {
    const clock = new FakeClock(Date.parse('2026-09-01T10:00:00Z'));
    let asked = 0;
    const stuck: DueSource = {
      name: 'stuck',
      claimDue: () => {
        asked++;
        return [];
      },
      nextDue: (now) => now - 60_000,
    };
    const loop = new Scheduler({
      sources: [stuck],
      executor: idleExecutor,
      clock: clock.now,
      timers: clock,
    });
    cleanups.push(() => loop.stop());
    loop.start();
    await clock.advance(10_000);
    await loop.idle();
    // One tick at start, then about one a second: not thousands.
    expect(asked).toBeGreaterThanOrEqual(10);
    expect(asked).toBeLessThanOrEqual(12);
  });

  it('wakes for housekeeping but shows the owner only what they scheduled as next due', async () => {
    const clock = new FakeClock(Date.parse('2026-09-01T10:00:00Z'));
    const start = clock.now();
    const source = (name: string, at: number, housekeeping?: boolean): DueSource => ({
      name,
      claimDue: () => [],
      nextDue: () => at,
      ...(housekeeping ? { housekeeping } : {}),
    });
    const shown: Array<number | undefined> = [];
    const loop = new Scheduler({
      sources: [source('backup', start + 60_000, true), source('reminders', start + 3_600_000)],
      executor: idleExecutor,
      clock: clock.now,
      timers: clock,
      maxSleepMs: 24 * 3_600_000,
      onNextDue: (at) => shown.push(at),
    });
    cleanups.push(() => loop.stop());
    loop.start();
    await loop.idle();
    expect(shown).toEqual([start + 3_600_000]);
    expect(loop.nextWake()).toBe(start + 60_000);
    expect(loop.nextDue()).toBe(start + 60_000);
  });
});
