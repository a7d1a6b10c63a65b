/** Small formatting helpers shared by the pages (dates in the browser's locale and time zone). */

const timeOnly = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
const dayAndTime = new Intl.DateTimeFormat(undefined, {
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
});
const fullDate = new Intl.DateTimeFormat(undefined, { dateStyle: 'full', timeStyle: 'medium' });
const withYear = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

function sameDay(a: Date, b: Date): boolean {
  return a.getFullYear() === b.getFullYear() && a.getMonth() === b.getMonth() && a.getDate() === b.getDate();
}

/** `14:05` today, `Mar 3, 14:05` this year, `Mar 3, 2025, 14:05` before. */
export function shortTime(ms: number): string {
  const date = new Date(ms);
  const now = new Date();
  if (sameDay(date, now)) return timeOnly.format(date);
  if (date.getFullYear() === now.getFullYear()) return dayAndTime.format(date);
  return withYear.format(date);
}

export function longTime(ms: number): string {
  return fullDate.format(new Date(ms));
}

const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });

/** `in 5 minutes`, `2 hours ago`, `yesterday`. */
export function relativeTime(ms: number, now = Date.now()): string {
  const seconds = Math.round((ms - now) / 1000);
  const abs = Math.abs(seconds);
  if (abs < 45) return seconds >= 0 ? 'in a moment' : 'just now';
  if (abs < 3600) return relative.format(Math.round(seconds / 60), 'minute');
  if (abs < 86_400) return relative.format(Math.round(seconds / 3600), 'hour');
  if (abs < 30 * 86_400) return relative.format(Math.round(seconds / 86_400), 'day');
  return shortTime(ms);
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
