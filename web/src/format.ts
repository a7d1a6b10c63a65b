import { signal } from '@preact/signals';

/**
 * The one place the app turns instants into text: every time on screen goes through these helpers, in the
 * browser's locale (its 12- or 24-hour habit) and the owner's time zone — config.yaml's `agent.timezone`,
 * set here after sign-in with {@link setOwnerZone}. Until then, and for a zone the browser does not know,
 * the browser's own zone is used. When the owner's zone differs from the browser's, times carry the zone's
 * short name so nobody reads 09:00 Berlin as 09:00 here.
 *
 * Components that call these during render re-render when the zone changes (it is a signal).
 */
export const ownerZone = signal<string | undefined>(undefined);

const browserZone = new Intl.DateTimeFormat().resolvedOptions().timeZone;

/** Adopts the owner's zone; an unknown zone name is ignored (the browser's zone stays in use). */
export function setOwnerZone(zone: string | null | undefined): void {
  if (!zone) {
    ownerZone.value = undefined;
    return;
  }
  try {
    new Intl.DateTimeFormat(undefined, { timeZone: zone });
    ownerZone.value = zone;
  } catch {
    ownerZone.value = undefined;
  }
}

type Style = 'time' | 'dayTime' | 'yearTime' | 'full' | 'day';

const STYLES: Record<Style, Intl.DateTimeFormatOptions> = {
  time: { hour: 'numeric', minute: '2-digit' },
  dayTime: { weekday: 'short', month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit' },
  yearTime: { year: 'numeric', month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit' },
  full: {
    weekday: 'long',
    year: 'numeric',
    month: 'long',
    day: 'numeric',
    hour: 'numeric',
    minute: '2-digit',
  },
  // Only to compare calendar days in the owner's zone: YYYY-MM-DD whatever the locale.
  day: { year: 'numeric', month: '2-digit', day: '2-digit' },
};

const cache = new Map<string, Intl.DateTimeFormat>();

function formatter(style: Style): Intl.DateTimeFormat {
  const zone = ownerZone.value;
  const key = `${style}|${zone ?? ''}`;
  let found = cache.get(key);
  if (!found) {
    const foreign = zone !== undefined && zone !== browserZone && style !== 'day';
    const options: Intl.DateTimeFormatOptions = {
      ...STYLES[style],
      ...(zone ? { timeZone: zone } : {}),
      ...(foreign ? { timeZoneName: 'short' } : {}),
    };
    found = new Intl.DateTimeFormat(style === 'day' ? 'en-CA' : undefined, options);
    cache.set(key, found);
  }
  return found;
}

/** The calendar day of `ms` in the owner's zone as `YYYY-MM-DD` (to compare with due dates). */
export function dayOf(ms: number): string {
  return formatter('day').format(new Date(ms));
}

/** `9:05 AM` (or `09:05`) today, `Tue, Mar 3, 9:05 AM` within a year around now, with the year otherwise. */
export function shortTime(ms: number, now = Date.now()): string {
  const date = new Date(ms);
  if (dayOf(ms) === dayOf(now)) return formatter('time').format(date);
  if (Math.abs(ms - now) < 300 * 86_400_000) return formatter('dayTime').format(date);
  return formatter('yearTime').format(date);
}

/** Only the time of day: `9:05 AM`. */
export function timeOfDay(ms: number): string {
  return formatter('time').format(new Date(ms));
}

const wallClock = new Intl.DateTimeFormat(undefined, { hour: 'numeric', minute: '2-digit', timeZone: 'UTC' });

/**
 * Server text with 24-hour clock times in it (`every weekday at 07:30`) with each `HH:MM` written as this
 * browser's locale writes a time of day (`7:30 AM`) — a wall-clock time, not moved between zones.
 */
export function localClockTimes(text: string): string {
  return text.replace(/\b([01]\d|2[0-3]):([0-5]\d)\b/g, (_, hours: string, minutes: string) =>
    wallTime(Number(hours), Number(minutes)),
  );
}

/** `7:30 AM` for the wall-clock time hours:minutes (no zone: a time of day as a rule states it). */
export function wallTime(hours: number, minutes: number): string {
  return wallClock.format(new Date(Date.UTC(2000, 0, 1, hours, minutes)));
}

const weekdayName = new Intl.DateTimeFormat(undefined, { weekday: 'long', timeZone: 'UTC' });

/** The locale's name of weekday `day` (0 = Sunday … 6 = Saturday, 7 = Sunday as cron allows). */
export function weekday(day: number): string {
  // 1 January 2023 was a Sunday.
  return weekdayName.format(new Date(Date.UTC(2023, 0, 1 + (day % 7))));
}

const wallDay = new Intl.DateTimeFormat(undefined, {
  weekday: 'short',
  month: 'short',
  day: 'numeric',
  year: 'numeric',
  timeZone: 'UTC',
});

/**
 * A due date as the owner wrote it (`2026-12-03` or `2026-12-03 14:30`, a wall clock in their zone) in this
 * browser's way (`Thu, Dec 3, 2026`, `Thu, Dec 3, 2026, 2:30 PM`); any other text comes back unchanged.
 */
export function dueText(due: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})(?:[ T]([01]\d|2[0-3]):([0-5]\d))?$/.exec(due.trim());
  if (!match) return due;
  const [, year, month, day, hours, minutes] = match;
  const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  if (Number.isNaN(date.getTime()) || date.getUTCDate() !== Number(day)) return due;
  const dayText = wallDay.format(date);
  return hours === undefined ? dayText : `${dayText}, ${wallTime(Number(hours), Number(minutes))}`;
}

/** `Tuesday, March 3, 2026 at 9:05 AM` — for tooltips and confirmations. */
export function longTime(ms: number): string {
  return formatter('full').format(new Date(ms));
}

const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto', style: 'short' });

/** A distance in time: `in 5 min.`, `2 hr. ago`, `yesterday`; under 45 s `in a moment` or `just now`. */
export function relativeTime(ms: number, now = Date.now()): string {
  const seconds = Math.round((ms - now) / 1000);
  const abs = Math.abs(seconds);
  if (abs < 45) return seconds >= 0 ? 'in a moment' : 'just now';
  if (abs < 3600) return relative.format(Math.round(seconds / 60), 'minute');
  if (abs < 86_400) return relative.format(Math.round(seconds / 3600), 'hour');
  if (abs < 30 * 86_400) return relative.format(Math.round(seconds / 86_400), 'day');
  return shortTime(ms, now);
}

/**
 * When something already happened (a request was made, an entry written): never "in …" — a timestamp a
 * little ahead of this device's clock (another machine's clock, rounding) is "just now".
 */
export function agoTime(ms: number, now = Date.now()): string {
  return now - ms < 45_000 ? 'just now' : relativeTime(ms, now);
}

export function bytes(size: number): string {
  if (size < 1024) return `${size} B`;
  if (size < 1024 * 1024) return `${(size / 1024).toFixed(size < 10 * 1024 ? 1 : 0)} KB`;
  return `${(size / 1024 / 1024).toFixed(1)} MB`;
}

/** JSON pretty-printed when the text parses, otherwise the text as it is. */
export function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

export function isoOf(ms: number): string {
  return new Date(ms).toISOString();
}
