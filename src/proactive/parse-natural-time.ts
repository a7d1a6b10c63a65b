import * as chrono from 'chrono-node';
import { DEFAULT_HOUR, PART_OF_DAY_HOURS } from './parse-clock-time.js';
import type { OneOffResult } from './parse-iso-time.js';
import { fromWallClock, pad, toWallClock } from './wall-clock.js';

/** Words that may surround the phrase chrono understood without changing its meaning. */
const FILLER = new Set(['at', 'on', 'in', 'the', 'by', 'around', 'about', 'approximately']);

/** The part of day named in a phrase without a clock time, e.g. "tomorrow evening". */
const PART_OF_DAY = /\b(morning|noon|midday|afternoon|evening|tonight|night|midnight)\b/;

type Chrono = chrono.ParsedComponents;

/**
 * One-off phrases ("tomorrow at 9", "tonight at 8", "friday 17:00", "on 24 dec at 6pm", "noon", "in the
 * evening") read by chrono at the owner's wall clock in `timezone`, whatever the process's `TZ`.
 * - No date: today, or tomorrow once the time has passed (not when the text says "this"/"today"/"tonight").
 *   A weekday alone rolls a week, a date without a year rolls a year, the same way.
 * - No clock time: a part of day takes its fixed hour (PART_OF_DAY_HOURS: evening → 18:00), otherwise 09:00.
 * - "2 hours from now", "in half an hour" count from `now`; an explicit zone ("9am UTC") wins over `timezone`.
 * Undefined when chrono finds no time; an error when it finds several or words it cannot place.
 */
export function parseNaturalTime(
  text: string,
  options: { now: number; timezone: string },
): OneOffResult | undefined {
  const { now, timezone } = options;
  const wallNow = toWallClock(now, timezone);
  const results = chrono.parse(text, localDate(wallNow), { forwardDate: true });
  const [result] = results;
  if (!result) return undefined;
  if (results.length > 1) {
    return { ok: false, error: `"${text.trim()}" names ${results.length} times; give one per reminder.` };
  }
  const leftover = `${text.slice(0, result.index)} ${text.slice(result.index + result.text.length)}`
    .toLowerCase()
    .split(/[\s,.;:!?]+/)
    .filter((word) => word !== '' && !FILLER.has(word));
  if (leftover.length > 0) {
    return { ok: false, error: `Understood "${result.text}" but not "${leftover.join(' ')}".` };
  }
  const start = result.start;
  const tags = start.tags();
  if (tags.has('result/relativeDateAndTime') || tags.has('casualReference/now')) {
    return { ok: true, at: now + (wallFields(start) - wallNow), notes: [] };
  }
  const offset = start.isCertain('timezoneOffset') ? start.get('timezoneOffset') : null;
  if (offset === null) {
    const toInstant = (wall: number) => fromWallClock(wall, timezone);
    return resolveWallTime(start, text.toLowerCase(), { now, wallNow, toInstant });
  }
  // An explicit zone ("9am UTC", "+0100"): wall times are in that fixed offset instead.
  const toInstant = (wall: number) => ({ at: wall - offset * 60_000 });
  return resolveWallTime(start, text.toLowerCase(), { now, wallNow: now + offset * 60_000, toInstant });
}

/** How to read wall clocks: the current one, and the instant a given one means. */
interface WallContext {
  now: number;
  wallNow: number;
  toInstant: (wall: number) => { at: number; note?: string };
}

/** Fills in what the phrase left open (date, hour) and picks the first matching instant after `now`. */
function resolveWallTime(start: Chrono, lowerText: string, context: WallContext): OneOffResult {
  const notes: string[] = [];
  const fields = {
    year: start.get('year') ?? 0,
    month: start.get('month') ?? 1,
    day: start.get('day') ?? 1,
    hour: start.get('hour') ?? 0,
    minute: start.get('minute') ?? 0,
  };
  if (!start.isCertain('hour')) {
    const part = PART_OF_DAY.exec(lowerText)?.[1];
    fields.hour = part === undefined ? DEFAULT_HOUR : (PART_OF_DAY_HOURS[part] ?? DEFAULT_HOUR);
    fields.minute = 0;
    notes.push(
      part === undefined
        ? `no time given, ${pad(fields.hour)}:00 assumed`
        : `"${part}" taken as ${pad(fields.hour)}:00`,
    );
  }
  const dateGiven = (['day', 'month', 'year', 'weekday'] as const).some((part) => start.isCertain(part));
  if (!dateGiven) {
    const today = new Date(context.wallNow);
    fields.year = today.getUTCFullYear();
    fields.month = today.getUTCMonth() + 1;
    fields.day = today.getUTCDate();
  }
  const roll: 'day' | 'week' | 'year' | undefined = !dateGiven
    ? 'day'
    : start.isCertain('weekday') && !start.isCertain('day')
      ? 'week'
      : start.isCertain('month') && !start.isCertain('year')
        ? 'year'
        : undefined;
  const wall = Date.UTC(fields.year, fields.month - 1, fields.day, fields.hour, fields.minute);
  let local = context.toInstant(wall);
  if (local.at <= context.now && roll && !/\b(this|today|tonight)\b/.test(lowerText)) {
    local = context.toInstant(rolled(wall, roll));
  }
  return { ok: true, at: local.at, notes: local.note ? [...notes, local.note] : notes };
}

/** The same wall time one day, week or year later (29 Feb rolls to 1 Mar when the next year has none). */
function rolled(wall: number, unit: 'day' | 'week' | 'year'): number {
  if (unit === 'day') return wall + 86_400_000;
  if (unit === 'week') return wall + 7 * 86_400_000;
  const date = new Date(wall);
  date.setUTCFullYear(date.getUTCFullYear() + 1);
  return date.getTime();
}

/** The result's date and time fields, encoded as a wall clock (see wall-clock.ts). */
function wallFields(start: Chrono): number {
  const field = (name: chrono.Component, fallback: number) => start.get(name) ?? fallback;
  return Date.UTC(
    field('year', 1970),
    field('month', 1) - 1,
    field('day', 1),
    field('hour', 0),
    field('minute', 0),
    field('second', 0),
    field('millisecond', 0),
  );
}

/**
 * A Date whose local fields (in the process's `TZ`) read `wall`, which is how chrono takes its reference:
 * it does all its calendar arithmetic on local fields, so the result's fields are owner wall-clock fields.
 */
function localDate(wall: number): Date {
  const w = new Date(wall);
  return new Date(
    w.getUTCFullYear(),
    w.getUTCMonth(),
    w.getUTCDate(),
    w.getUTCHours(),
    w.getUTCMinutes(),
    w.getUTCSeconds(),
    w.getUTCMilliseconds(),
  );
}
