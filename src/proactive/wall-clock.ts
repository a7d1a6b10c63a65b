import { IANAZone } from 'luxon';

/**
 * Wall-clock arithmetic for the schedule parser. A "wall clock" is a number of milliseconds whose UTC fields
 * (`getUTCHours()` …) are what a clock on the owner's wall shows in their IANA zone; it is never an instant.
 * Doing calendar arithmetic on it ("tomorrow", "+3 days") is plain UTC arithmetic, independent of the
 * process's `TZ`; only `fromWallClock` decides which instant a wall time is.
 */

const MINUTE = 60_000;
const DAY = 86_400_000;

/** The owner's wall clock at the instant `at`. Throws RangeError on an unknown zone. */
export function toWallClock(at: number, timezone: string): number {
  return at + zone(timezone).offset(at) * MINUTE;
}

/**
 * The instant at which the wall clock in `timezone` shows `wall`. A wall time that a DST change skips
 * (02:30 on a spring-forward night) moves forward by the gap (03:30); one that a fall-back repeats takes the
 * first occurrence (the earlier instant). `note` says when either happened.
 */
export function fromWallClock(wall: number, timezone: string): { at: number; note?: string } {
  const tz = zone(timezone);
  // Any DST change near `wall` lies within a day of it, so the offsets a day before and after are the
  // candidates; an offset is right when the instant it yields really has that offset.
  const before = tz.offset(wall - DAY);
  const after = tz.offset(wall + DAY);
  const valid = [...new Set([before, after])]
    .map((offset) => wall - offset * MINUTE)
    .filter((at) => toWallClock(at, timezone) === wall)
    .sort((a, b) => a - b);
  const first = valid[0];
  if (first !== undefined) {
    if (valid.length === 1) return { at: first };
    return {
      at: first,
      note: `${clockText(wall)} happens twice that night (DST ends); the first one is used`,
    };
  }
  const at = wall - before * MINUTE;
  return {
    at,
    note: `${clockText(wall)} does not exist that night (DST starts); moved to ${clockText(toWallClock(at, timezone))}`,
  };
}

/** `HH:MM` of a wall clock. */
export function clockText(wall: number): string {
  const date = new Date(wall);
  return `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}`;
}

/** Two digits, zero-padded. */
export function pad(value: number): string {
  return String(value).padStart(2, '0');
}

/** Zones already checked: luxon's `isValidZone` builds a new `Intl.DateTimeFormat` on every call. */
const zones = new Map<string, IANAZone>();

function zone(timezone: string): IANAZone {
  const cached = zones.get(timezone);
  if (cached) return cached;
  if (!IANAZone.isValidZone(timezone)) throw new RangeError(`Unknown time zone "${timezone}"`);
  const created = IANAZone.create(timezone) as IANAZone;
  zones.set(timezone, created);
  return created;
}
