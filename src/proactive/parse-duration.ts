/** Milliseconds per unit; days and weeks are exact 24-hour days here. */
const UNIT_MS: Record<string, number> = {
  s: 1000,
  sec: 1000,
  secs: 1000,
  second: 1000,
  seconds: 1000,
  m: 60_000,
  min: 60_000,
  mins: 60_000,
  minute: 60_000,
  minutes: 60_000,
  h: 3_600_000,
  hr: 3_600_000,
  hrs: 3_600_000,
  hour: 3_600_000,
  hours: 3_600_000,
  d: 86_400_000,
  day: 86_400_000,
  days: 86_400_000,
  w: 604_800_000,
  wk: 604_800_000,
  wks: 604_800_000,
  week: 604_800_000,
  weeks: 604_800_000,
};

const DAY = 86_400_000;

/** One `<amount><unit>` term, optionally joined to the previous one by "and" or a comma. */
const TERM = /\s*(?:(?:and|,)\s*)?(\d+(?:\.\d+)?|an?|half\s+an?)\s*([a-z]+)\s*/y;

/**
 * A duration split the way people mean it: `days` are calendar days (same wall-clock time N days later,
 * whole days only) and `ms` the exact rest (hours, minutes, seconds, and any fraction of a day).
 * Undefined unless all of `text` is a positive duration.
 */
export function parseDurationParts(text: string): { days: number; ms: number } | undefined {
  const source = text.trim().toLowerCase();
  if (source === '') return undefined;
  let days = 0;
  let ms = 0;
  TERM.lastIndex = 0;
  while (TERM.lastIndex < source.length) {
    const match = TERM.exec(source);
    if (!match) return undefined;
    const [, amountText = '', unit = ''] = match;
    const unitMs = UNIT_MS[unit];
    if (unitMs === undefined) return undefined;
    const amount = amountText.startsWith('half') ? 0.5 : /^an?$/.test(amountText) ? 1 : Number(amountText);
    if (unitMs >= DAY) {
      const wholeDays = (amount * unitMs) / DAY;
      days += Math.floor(wholeDays);
      ms += (wholeDays - Math.floor(wholeDays)) * DAY;
    } else {
      ms += amount * unitMs;
    }
  }
  ms = Math.round(ms);
  if (days === 0 && ms === 0) return undefined;
  if (!Number.isSafeInteger(days * DAY + ms)) return undefined;
  return { days, ms };
}

/**
 * `--in 20m` style durations: "20m", "90s", "2h", "1h30m", "3d", "1w", also spelled out ("1 hour 30 minutes",
 * "an hour", "half an hour"). Returns milliseconds (a day is exactly 24 h), or undefined when `text` is not
 * entirely a positive duration.
 */
export function parseDuration(text: string): number | undefined {
  const parts = parseDurationParts(text);
  return parts && parts.days * DAY + parts.ms;
}
