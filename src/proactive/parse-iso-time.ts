import { DEFAULT_HOUR } from './parse-clock-time.js';
import { fromWallClock, pad } from './wall-clock.js';

/** A one-off instant read from text, with what the reader should know about how it was read. */
export type OneOffResult = { ok: true; at: number; notes: string[] } | { ok: false; error: string };

const ISO =
  /^(\d{4})-(\d{2})-(\d{2})(?:[t ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,3})\d*)?)?)?\s*(z|[+-]\d{2}(?::?\d{2})?)?$/i;

/**
 * ISO 8601 date-times: "2026-12-24T18:00" and "2026-12-24 18:00" are wall times in `timezone`; an explicit
 * "Z" or "+01:00" wins over it; a bare date "2026-12-24" means 09:00 there (said in `notes`). Undefined when
 * `text` is not shaped like one; an error when it is but names no real date or time ("2026-02-30").
 */
export function parseIsoTime(text: string, timezone: string): OneOffResult | undefined {
  const match = ISO.exec(text.trim());
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map((part) => Number(part ?? 0));
  const millis = Number((match[7] ?? '0').padEnd(3, '0'));
  const dateOnly = match[4] === undefined;
  const wall = Date.UTC(
    year ?? 0,
    (month ?? 1) - 1,
    day,
    dateOnly ? DEFAULT_HOUR : hour,
    minute,
    second,
    millis,
  );
  const check = new Date(wall);
  const valid =
    check.getUTCFullYear() === year &&
    check.getUTCMonth() + 1 === month &&
    check.getUTCDate() === day &&
    (hour ?? 0) < 24 &&
    (minute ?? 0) < 60 &&
    (second ?? 0) < 60;
  if (!valid) return { ok: false, error: `"${text.trim()}" is not a real date and time.` };
  const notes = dateOnly ? [`no time given, ${pad(DEFAULT_HOUR)}:00 assumed`] : [];
  const offset = match[8];
  if (offset === undefined) {
    const local = fromWallClock(wall, timezone);
    return { ok: true, at: local.at, notes: local.note ? [...notes, local.note] : notes };
  }
  const minutes = offsetMinutes(offset);
  if (minutes === undefined)
    return { ok: false, error: `"${offset}" is not a UTC offset; use "Z" or "+01:00".` };
  return { ok: true, at: wall - minutes * 60_000, notes };
}

/** "Z" → 0, "+05:30" / "+0530" / "+05" → 330, "-08:00" → -480; undefined beyond ±14:00. */
function offsetMinutes(offset: string): number | undefined {
  if (offset.toLowerCase() === 'z') return 0;
  const digits = offset.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = Number(digits.slice(2) || 0);
  if (hours > 14 || minutes > 59) return undefined;
  return (offset.startsWith('-') ? -1 : 1) * (hours * 60 + minutes);
}
