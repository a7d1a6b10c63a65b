import { IANAZone } from 'luxon';
import { nextOccurrence } from '../util/schedule.js';
import { describeAt, describeWallClock } from './describe-at.js';
import { parseDurationParts } from './parse-duration.js';
import { type OneOffResult, parseIsoTime } from './parse-iso-time.js';
import { parseNaturalTime } from './parse-natural-time.js';
import { parseRecurring, type RecurringResult } from './parse-recurring.js';
import { fromWallClock, toWallClock } from './wall-clock.js';

export { describeAt } from './describe-at.js';
export { parseDuration } from './parse-duration.js';

/** A parsed schedule: once at an instant (UTC ms), or a 5-field cron (minute first) read in `timezone`. */
export type When = { at: number } | { cron: string; timezone: string; description: string };

/**
 * `description` confirms the reading to the owner: the instant (or the cron's next run) in their zone plus
 * anything assumed ("no time given, 09:00 assumed"). `error` says what failed and names forms that work.
 */
export type WhenResult = { ok: true; when: When; description: string } | { ok: false; error: string };

const EXAMPLES =
  'Try "in 20 minutes", "tomorrow at 9", "friday 17:00", "2026-12-24 18:00", "every weekday at 7:30" or a cron expression like "0 9 * * 1-5".';

const DAY = 86_400_000;

/**
 * Parses `text` at the instant `now` (UTC ms) in the owner's IANA zone `timezone`. Pure: no clock, no I/O,
 * and the same answer whatever the process's `TZ`. Never throws; every refusal is an `error`.
 *
 * Accepted, tried in this order:
 * - repeating: a cron ("0 9 * * 1-5", "@daily") or a phrase ("every weekday at 7:30", "every 15 minutes",
 *   "monthly 1 09:00") → `{ cron, timezone, description }`, refused when it would never run;
 * - ISO 8601: "2026-12-24T18:00" / "2026-12-24 18:00" (wall time in `timezone`), with "Z" or "+01:00" (that
 *   offset wins), or "2026-12-24" (09:00);
 * - relative: "in 20 minutes", "in 1h30m", "20m", "2 hours from now"; hours and smaller count exactly from
 *   `now`, days and weeks are calendar days ("in 3 days" keeps the time of day across a DST change);
 * - natural one-offs via chrono: "tomorrow at 9", "at 18:30", "tonight at 8", "friday 17:00", "noon",
 *   "in the evening" (parts of day take fixed hours, see PART_OF_DAY_HOURS).
 * A one-off must lie after `now`. A wall time a DST change skips moves forward; a repeated one takes the first.
 */
export function parseWhen(text: string, options: { now: number; timezone: string }): WhenResult {
  const { now, timezone } = options;
  const source = text.trim();
  if (source === '') return { ok: false, error: `No time given. ${EXAMPLES}` };
  if (!IANAZone.isValidZone(timezone)) {
    return { ok: false, error: `Unknown time zone "${timezone}"; use an IANA name such as "Europe/Berlin".` };
  }
  if (!Number.isFinite(now)) return { ok: false, error: `The current time ${now} is not a timestamp.` };
  const recurring = parseRecurring(source, timezone);
  if (recurring) return recurringResult(recurring, now, timezone);
  const oneOff =
    parseIsoTime(source, timezone) ??
    parseRelative(source, now, timezone) ??
    parseNaturalTime(source, options);
  if (!oneOff) return { ok: false, error: `Could not understand "${clip(source)}" as a time. ${EXAMPLES}` };
  if (!oneOff.ok) return { ok: false, error: `${oneOff.error} ${EXAMPLES}` };
  if (oneOff.at <= now) {
    return {
      ok: false,
      error: `"${clip(source)}" is not in the future (it means ${describeAt(oneOff.at, timezone)}). ${EXAMPLES}`,
    };
  }
  const description = [describeAt(oneOff.at, timezone), ...oneOff.notes].join('; ');
  return { ok: true, when: { at: oneOff.at }, description };
}

/** A cron result, refused when it has no run after `now` ("0 9 30 2 *" never comes). */
function recurringResult(recurring: RecurringResult, now: number, timezone: string): WhenResult {
  if (!recurring.ok) return recurring;
  const { cron, description, note } = recurring;
  const next = nextOccurrence({ cron, timezone }, now);
  if (next === undefined) return { ok: false, error: `"${cron}" never runs. ${EXAMPLES}` };
  const parts = [
    description,
    ...(note ? [note] : []),
    `next ${describeWallClock(toWallClock(next, timezone))}`,
  ];
  return { ok: true, when: { cron, timezone, description }, description: parts.join('; ') };
}

/** "in 20 minutes", "20m", "in 3 days", "2 hours from now": undefined unless the rest is a duration. */
function parseRelative(text: string, now: number, timezone: string): OneOffResult | undefined {
  const match = /^(?:in\s+)?(.+?)(?:\s+from\s+now)?$/i.exec(text);
  const parts = match?.[1] === undefined ? undefined : parseDurationParts(match[1]);
  if (!parts) return undefined;
  if (parts.days === 0) return { ok: true, at: now + parts.ms, notes: [] };
  const day = fromWallClock(toWallClock(now, timezone) + parts.days * DAY, timezone);
  return { ok: true, at: day.at + parts.ms, notes: day.note ? [day.note] : [] };
}

function clip(text: string): string {
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
