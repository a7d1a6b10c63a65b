import { pad, toWallClock } from './wall-clock.js';

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/**
 * The instant `at` (UTC ms) as the owner reads it, e.g. "Tue 2026-12-01 09:00 (Europe/Berlin)"; English,
 * 24-hour, the same whatever the process's locale or `TZ`. Throws RangeError on an unknown zone.
 */
export function describeAt(at: number, timezone: string): string {
  return `${describeWallClock(toWallClock(at, timezone))} (${timezone})`;
}

/** A wall clock (see wall-clock.ts) as "Tue 2026-12-01 09:00". */
export function describeWallClock(wall: number): string {
  const date = new Date(wall);
  const day = `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`;
  return `${WEEKDAYS[date.getUTCDay()]} ${day} ${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}`;
}
