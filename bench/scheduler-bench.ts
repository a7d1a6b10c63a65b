/**
 * Scheduler benchmark: what a tick costs as the number of scheduled reminders grows (1k, 10k, 100k in a real
 * SQLite file), the memory the 100k cost, and how late reminders are delivered by the real loop on real timers.
 *   npx tsx bench/scheduler-bench.ts
 * Measures, never asserts. The loop is the one `wren start` runs (reminder source, outbox, run executor);
 * the channel deliverer records the time it was called.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type Database from 'better-sqlite3';
import { reminderSource } from '../src/proactive/reminder-source.js';
import { createRunExecutor } from '../src/proactive/run-executor.js';
import { Scheduler, type Timers } from '../src/proactive/scheduler.js';
import { openDatabase } from '../src/store/open-database.js';
import { OutboxRepository } from '../src/store/outbox-repository.js';
import { ReminderRepository } from '../src/store/reminder-repository.js';

export interface TickFigures {
  reminders: number;
  /** A tick with nothing due. */
  idleP50Ms: number;
  idleP99Ms: number;
  /** A tick that claims 100 due reminders (claim + advance, one transaction each); median of 5. */
  claim100Ms: number;
}

export interface SchedulerBenchResult {
  ticks: TickFigures[];
  /** Heap and RSS growth of the process from an empty store to 100k reminders after the ticks. */
  heapGrowthMb: number;
  rssGrowthMb: number;
  dbFileMb: number;
  /** Delivered time minus due time of reminders firing on real timers beside 100k scheduled ones. */
  lateness: { count: number; p50Ms: number; p99Ms: number; maxMs: number };
}

const DAY = 24 * 3_600_000;
/** A full collection before each heap reading, so the figures are what the store keeps, not garbage. */
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const MB = 1024 * 1024;
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};

/** Half one-off reminders over the next year, half daily crons: all due later than `from`. */
function fill(reminders: ReminderRepository, db: Database.Database, count: number, from: number): void {
  db.transaction(() => {
    for (let i = 0; i < count; i++) {
      const nextAt = from + DAY + Math.floor((i / count) * 365 * DAY);
      reminders.create({
        text: `reminder ${i}`,
        mode: 'notify',
        ...(i % 2 === 0 ? { at: nextAt } : { cron: `${i % 60} ${i % 24} * * *` }),
        timezone: 'Europe/Berlin',
        nextAt,
        deliverTo: ['bench:owner'],
      });
    }
  })();
}

const noTimers: Timers = { setTimeout: () => undefined, clearTimeout: () => undefined };

function loop(
  db: Database.Database,
  clock: () => number,
  onDelivered: (dueAt: number) => void,
  timers?: Timers,
) {
  const reminders = new ReminderRepository(db, clock);
  const outbox = new OutboxRepository(db, clock);
  const executor = createRunExecutor({
    outbox,
    clock,
    runAgent: async () => ({ text: '', failed: false }),
    deliverers: {
      channel: async (delivery) => onDelivered(delivery.dueAt),
    },
  });
  const scheduler = new Scheduler({
    sources: [reminderSource({ reminders, outbox })],
    executor,
    clock,
    maxRunning: 8,
    ...(timers ? { timers } : {}),
  });
  return { reminders, scheduler };
}

async function tickFigures(dir: string, total: number): Promise<TickFigures> {
  const db = openDatabase(join(dir, `ticks-${total}.db`));
  try {
    let now = Date.parse('2026-12-01T08:00:00Z');
    const { reminders, scheduler } = loop(
      db,
      () => now,
      () => undefined,
      noTimers,
    );
    fill(reminders, db, total, now);
    scheduler.start();
    await scheduler.idle();
    const idle: number[] = [];
    for (let i = 0; i < 500; i++) {
      const started = performance.now();
      await scheduler.tick();
      idle.push(performance.now() - started);
    }
    // Five rounds of 100 reminders coming due at once; the median round.
    const claims: number[] = [];
    for (let round = 0; round < 5; round++) {
      for (let i = 0; i < 100; i++) {
        reminders.create({
          text: `due ${round}.${i}`,
          mode: 'notify',
          at: now + 1_000,
          timezone: 'UTC',
          nextAt: now + 1_000,
          deliverTo: ['bench:owner'],
        });
      }
      now += 1_000;
      const started = performance.now();
      await scheduler.tick();
      claims.push(performance.now() - started);
      await scheduler.idle();
    }
    scheduler.stop();
    return {
      reminders: total,
      idleP50Ms: percentile(idle.slice(50), 50),
      idleP99Ms: percentile(idle.slice(50), 99),
      claim100Ms: percentile(claims, 50),
    };
  } finally {
    db.close();
  }
}

async function lateness(db: Database.Database): Promise<SchedulerBenchResult['lateness']> {
  const late: number[] = [];
  const count = 200;
  const first = Date.now() + 500;
  // Only this run's reminders count: the 100k store was filled on a fixed fake date, and those of its
  // reminders the real clock has passed since come due now too (they are delivered, hours "late").
  const { reminders, scheduler } = loop(db, Date.now, (dueAt) => {
    if (dueAt >= first) late.push(Date.now() - dueAt);
  });
  for (let i = 0; i < count; i++) {
    const at = first + Math.floor(Math.random() * 4_000);
    reminders.create({
      text: `soon ${i}`,
      mode: 'notify',
      at,
      timezone: 'UTC',
      nextAt: at,
      deliverTo: ['bench:owner'],
    });
  }
  scheduler.start();
  const deadline = Date.now() + 15_000;
  while (late.length < count && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 50));
  scheduler.stop();
  await scheduler.idle();
  return {
    count: late.length,
    p50Ms: percentile(late, 50),
    p99Ms: percentile(late, 99),
    maxMs: Math.max(...late),
  };
}

/** Runs every scheduler figure; returns them (measures, never asserts). */
export async function runSchedulerBench(): Promise<SchedulerBenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'wren-scheduler-bench-'));
  try {
    const ticks: TickFigures[] = [];
    for (const total of [1_000, 10_000]) ticks.push(await tickFigures(dir, total));
    gc();
    const heapBefore = process.memoryUsage().heapUsed;
    const rssBefore = process.memoryUsage().rss;
    ticks.push(await tickFigures(dir, 100_000));
    // The 100k store stays open for the lateness run, as in a process that has them.
    const path = join(dir, 'ticks-100000.db');
    const db = openDatabase(path);
    try {
      const delivered = await lateness(db);
      gc();
      const memory = process.memoryUsage();
      return {
        ticks,
        heapGrowthMb: (memory.heapUsed - heapBefore) / MB,
        rssGrowthMb: (memory.rss - rssBefore) / MB,
        dbFileMb: statSync(path).size / MB,
        lateness: delivered,
      };
    } finally {
      db.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await runSchedulerBench(), null, 2));
}
