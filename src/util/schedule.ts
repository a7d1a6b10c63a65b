import { createRequire } from 'node:module';
import type { Cron as CronClass } from 'croner';

/**
 * croner, loaded at the first cron schedule rather than at start-up (most ticks meet none, and `wren start`
 * should not pay for it). Its CommonJS build, so the load stays synchronous.
 */
let croner: typeof CronClass | undefined;
function pausedCron(expression: string, timezone: string): CronClass {
  croner ??= (createRequire(import.meta.url)('croner') as { Cron: typeof CronClass }).Cron;
  return new croner(expression, { timezone, paused: true });
}

/** When something is due: once at an instant, or on a cron expression read in an IANA time zone. */
export type Schedule = { at: number } | { cron: string; timezone: string };

/** A cron expression (5 or 6 fields, or `@daily` …) that croner accepts, checked without running it. */
export function validateCron(expression: string, timezone: string): string | undefined {
  try {
    pausedCron(expression, timezone).nextRun();
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/**
 * The first occurrence strictly after `after` (UTC ms), or undefined when there is none (a one-off in the
 * past). Cron schedules are computed in their own time zone, so "every day at 09:00" stays 09:00 across DST
 * changes, a 02:30 that a spring-forward skips runs at the first minute after the gap (03:00) that day, and
 * one that a fall-back repeats runs once.
 */
export function nextOccurrence(schedule: Schedule, after: number): number | undefined {
  if ('at' in schedule) return schedule.at > after ? schedule.at : undefined;
  const next = pausedCron(schedule.cron, schedule.timezone).nextRun(new Date(after));
  return next ? next.getTime() : undefined;
}

/** An item counts as late when it runs more than this after its occurrence (e.g. after downtime). */
export const LATE_AFTER_MS = 2 * 60_000;

/** What claiming a due occurrence does to its item. */
export interface Claim {
  /** The occurrence being run (the first one missed, when several were). */
  dueAt: number;
  /** It runs more than LATE_AFTER_MS after `dueAt`. */
  late: boolean;
  /** Occurrences missed besides `dueAt` (downtime): they are not run, the catch-up is this one run. */
  skipped: number;
  /** The item's next occurrence after `now`; undefined when it is finished. */
  next?: number;
}

/** Counting missed occurrences stops here (a per-minute cron down for a month is "many"). */
const MAX_COUNTED = 10_000;

/**
 * Claims the occurrence `dueAt` (≤ `now`) of `schedule`: it runs once, late if it is overdue, and every
 * later occurrence up to `now` is skipped (one catch-up after downtime, never one per missed slot). Pure.
 */
export function claimOccurrence(schedule: Schedule, dueAt: number, now: number): Claim {
  const late = now - dueAt > LATE_AFTER_MS;
  if ('at' in schedule) return { dueAt, late, skipped: 0 };
  const cron = pausedCron(schedule.cron, schedule.timezone);
  let skipped = 0;
  let cursor = cron.nextRun(new Date(dueAt));
  while (cursor && cursor.getTime() <= now && skipped < MAX_COUNTED) {
    skipped++;
    cursor = cron.nextRun(cursor);
  }
  while (cursor && cursor.getTime() <= now) cursor = cron.nextRun(new Date(now));
  return { dueAt, late, skipped, ...(cursor ? { next: cursor.getTime() } : {}) };
}
