import { CLOCK_TIME_PATTERN, DEFAULT_HOUR, parseClockTime } from './parse-clock-time.js';
import { checkedCron, parseCronExpression, type RecurringResult } from './parse-cron-expression.js';
import { pad } from './wall-clock.js';

export type { RecurringResult } from './parse-cron-expression.js';

const DAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];
const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** An optional trailing time of day, captured as `time`. */
const AT_TIME = `(?:\\s+(?:at\\s+)?(?<time>${CLOCK_TIME_PATTERN}))?`;
const ORDINAL = '\\d{1,2}(?:st|nd|rd|th)?';

const RECURRING_START =
  /^(?:every|each|daily|weekly|monthly|hourly|yearly|annually|(?:on\s+)?(?:week|work)\s?days|(?:on\s+)?weekends)\b|^(?:on\s+)?(?:mon|tues|wednes|thurs|fri|satur|sun)days\b/;

const HELP =
  'Try "every day at 8", "every weekday at 7:30", "every mon and thu at 9", "every 15 minutes", "every 2 hours", ' +
  '"monthly 1 09:00", "every year on 24 dec at 9", or a cron expression like "0 9 * * 1-5".';

/**
 * A repeating schedule: a raw cron or macro, or an English phrase ("every weekday at 7:30", "weekly mon
 * 09:00", "every 15 minutes", "monthly 1 09:00", "every year on 24 dec"), as a 5-field cron read in
 * `timezone`. A missing time of day means 09:00 (said in `note`). Undefined when `text` is not about
 * repetition at all; an error naming working forms when it is but cannot be read or expressed as a cron
 * ("every 7 minutes" does not divide the hour; "every 2 days" has no cron that stays 2 days apart).
 */
export function parseRecurring(text: string, timezone: string): RecurringResult | undefined {
  // "every 0 8 * * 1-5" is a cron too (and what `wren reminder add --every "0 8 * * 1-5"` passes on).
  const raw = parseCronExpression(text.trim().replace(/^every\s+(?=[\d@*])/i, ''), timezone);
  if (raw) return raw;
  const source = normalize(text);
  if (!RECURRING_START.test(source)) return undefined;
  const parsed =
    parseInterval(source, timezone) ??
    parseDaily(source, timezone) ??
    parseWeekly(source, timezone) ??
    parseMonthly(source, timezone) ??
    parseYearly(source, timezone);
  return (
    parsed ?? {
      ok: false,
      error: missingPartError(source) ?? `Could not read "${text.trim()}" as a repeating schedule. ${HELP}`,
    }
  );
}

function normalize(text: string): string {
  return text
    .trim()
    .toLowerCase()
    .replace(/[.!]+$/, '')
    .replace(/\s+/g, ' ')
    .replace(/^everyday\b/, 'every day')
    .replace(
      /^(?:on )?(?:every )?the (\d{1,2}(?:st|nd|rd|th)?|last(?: day)?)(?: day)? of (?:every|each|the) month\b/,
      'monthly $1',
    );
}

/** "every 15 minutes", "every 2 hours", "hourly"; errors for intervals a cron cannot keep evenly. */
function parseInterval(source: string, timezone: string): RecurringResult | undefined {
  if (source === 'hourly') return intervalCron(1, 'hour', timezone);
  if (/^every half(?: an)? hour$/.test(source)) return intervalCron(30, 'minute', timezone);
  const match =
    /^(?:every|each) (?:(?<count>\d+) ?|(?<other>other) )?(?<unit>minutes?|mins?|m|hours?|hrs?|h|days?|d|weeks?|w|months?|years?)$/.exec(
      source,
    );
  if (!match?.groups) return undefined;
  const { count, other, unit = '' } = match.groups;
  const n = other ? 2 : count === undefined ? 1 : Number(count);
  if (n === 0) return { ok: false, error: `An interval must be at least 1 ${unitName(unit)}. ${HELP}` };
  if (/^(?:m|min|minutes?)/.test(unit)) {
    return n % 60 === 0 ? intervalCron(n / 60, 'hour', timezone) : intervalCron(n, 'minute', timezone);
  }
  if (/^h/.test(unit)) return intervalCron(n, 'hour', timezone);
  if (n === 1) return undefined; // "every day", "every week" …: the calendar parsers or missingPartError
  return {
    ok: false,
    error: `"${source}" cannot be expressed as a cron schedule. ${HELP}`,
  };
}

function intervalCron(n: number, unit: 'minute' | 'hour', timezone: string): RecurringResult {
  const whole = unit === 'minute' ? 60 : 24;
  if (unit === 'hour' && n === whole) {
    return { ok: false, error: `"every 24 hours" is once a day; say when, e.g. "every day at 09:00".` };
  }
  if (whole % n !== 0) {
    const choices =
      unit === 'minute'
        ? '1, 2, 3, 4, 5, 6, 10, 12, 15, 20 or 30 minutes, or whole hours'
        : '1, 2, 3, 4, 6, 8 or 12 hours, or "every day at 09:00"';
    return {
      ok: false,
      error: `"every ${n} ${unit}s" does not divide the ${unit === 'minute' ? 'hour' : 'day'} evenly, so a cron cannot keep it; use ${choices}, e.g. "every 15 minutes".`,
    };
  }
  const step = n === 1 ? '*' : `*/${n}`;
  const every = n === 1 ? `every ${unit}` : `every ${n} ${unit}s`;
  if (unit === 'minute') return checkedCron(`${step} * * * *`, `${every} (${timezone})`, timezone);
  return checkedCron(`0 ${step} * * *`, `${every} on the hour (${timezone})`, timezone);
}

/** "every day at 8", "daily 08:00", "every morning", "every weekday 7:30", "weekends at 10". */
function parseDaily(source: string, timezone: string): RecurringResult | undefined {
  const part = /^(?:every|each) (morning|afternoon|evening|night)$/.exec(source)?.[1];
  if (part) return timedCron(part, '* * *', 'every day', timezone);
  const daily = new RegExp(`^(?:(?:every|each) ?day|daily)${AT_TIME}$`).exec(source);
  if (daily) return timedCron(daily.groups?.time, '* * *', 'every day', timezone);
  const weekdays = new RegExp(`^(?:(?:every|each|on) )?(?:week|work) ?days?${AT_TIME}$`).exec(source);
  if (weekdays) return timedCron(weekdays.groups?.time, '* * 1-5', 'every weekday', timezone);
  const weekends = new RegExp(`^(?:(?:every|each|on) )?(?:the )?weekends?${AT_TIME}$`).exec(source);
  if (weekends) return timedCron(weekends.groups?.time, '* * 0,6', 'every Saturday and Sunday', timezone);
  return undefined;
}

/** "every monday at 9", "weekly mon 09:00", "every mon, wed and fri 18:00", "mondays 9am", "every mon-fri". */
function parseWeekly(source: string, timezone: string): RecurringResult | undefined {
  const match = new RegExp(
    `^(?:(?:every|each) |weekly (?:on )?|on )?(?<days>[a-z][a-z,&\\s-]*?)${AT_TIME}$`,
  ).exec(source);
  const days = match?.groups?.days && parseWeekdays(match.groups.days);
  if (!days) return undefined;
  const names = [...days].sort((a, b) => ((a + 6) % 7) - ((b + 6) % 7)).map((day) => title(DAYS[day] ?? ''));
  const field = days.length === 7 ? '*' : compressDays(days);
  const label = field === '*' ? 'every day' : field === '1-5' ? 'every weekday' : `every ${listText(names)}`;
  return timedCron(match.groups?.time, `* * ${field}`, label, timezone);
}

/** "monthly 1 09:00", "every month on the 1st at 9", "the last day of every month". */
function parseMonthly(source: string, timezone: string): RecurringResult | undefined {
  const match = new RegExp(
    `^(?:monthly|(?:every|each) month)(?: on)?(?: the)? (?<day>${ORDINAL}|last(?: day)?)(?: day)?(?: of (?:the|each|every) month)?${AT_TIME}$`,
  ).exec(source);
  const day = match?.groups?.day;
  if (!day) return undefined;
  if (day.startsWith('last')) {
    return timedCron(match.groups?.time, 'L * *', 'every month on the last day', timezone);
  }
  const number = Number.parseInt(day, 10);
  if (number < 1 || number > 31)
    return { ok: false, error: `A month has no day ${number}; use 1 to 31 or "last".` };
  const skipped = number > 28 ? `months without a ${ordinal(number)} are skipped` : undefined;
  return timedCron(
    match.groups?.time,
    `${number} * *`,
    `every month on the ${ordinal(number)}`,
    timezone,
    skipped,
  );
}

/** "every year on 24 dec at 9", "yearly march 3", "annually on the 1st of april". */
function parseYearly(source: string, timezone: string): RecurringResult | undefined {
  const match = new RegExp(
    `^(?:yearly|annually|(?:every|each) year)(?: on)?(?: the)? (?<date>${ORDINAL}(?: of)? [a-z]+|[a-z]+ ${ORDINAL})${AT_TIME}$`,
  ).exec(source);
  const date = match?.groups?.date;
  if (!date) return undefined;
  const dayText = /\d+/.exec(date)?.[0] ?? '';
  const monthText = /[a-z]{3,}/.exec(date.replace(/\d+(?:st|nd|rd|th)?|\bof\b/g, ''))?.[0] ?? '';
  const month = MONTHS.findIndex((name) => name.startsWith(monthText));
  const day = Number(dayText);
  if (monthText === '' || month < 0) return undefined;
  if (day < 1 || day > (DAYS_IN_MONTH[month] ?? 0)) {
    return {
      ok: false,
      error: `${title(MONTHS[month] ?? '')} has no day ${day}; e.g. "every year on 24 dec at 9".`,
    };
  }
  const leap = month === 1 && day === 29 ? 'only in leap years' : undefined;
  const label = `every year on ${day} ${title(MONTHS[month] ?? '').slice(0, 3)}`;
  return timedCron(match.groups?.time, `${day} ${month + 1} *`, label, timezone, leap);
}

/** A cron at a time of day (09:00 when `timeText` is missing) before the day fields `days`. */
function timedCron(
  timeText: string | undefined,
  days: string,
  label: string,
  timezone: string,
  caveat?: string,
): RecurringResult {
  const time = timeText === undefined ? { hour: DEFAULT_HOUR, minute: 0 } : parseClockTime(timeText);
  if (!time) {
    return { ok: false, error: `"${timeText}" is not a time of day; use "18:30", "6:30pm" or "noon".` };
  }
  const clock = `${pad(time.hour)}:${pad(time.minute)}`;
  const described = `${label} at ${clock}${caveat ? `, ${caveat}` : ''} (${timezone})`;
  const note = timeText === undefined ? `no time given, ${clock} assumed` : undefined;
  return checkedCron(`${time.minute} ${time.hour} ${days}`, described, timezone, note);
}

/** Day-of-week numbers (0 = Sunday) from "mon, wed and fri", "monday to friday", "sat-sun", "tuesdays". */
function parseWeekdays(list: string): number[] | undefined {
  const days = new Set<number>();
  const normalized = list.replace(/\s*(?:-|\bto\b|\bthrough\b|\bthru\b)\s*/g, '-');
  const tokens = normalized.split(/[\s,&]+/).filter((token) => token !== '' && token !== 'and');
  if (tokens.length === 0) return undefined;
  for (const token of tokens) {
    const [from, to, ...rest] = token.split('-').map(dayIndex);
    if (from === undefined || rest.length > 0) return undefined;
    if (token.includes('-') && to === undefined) return undefined;
    for (let day = from; ; day = (day + 1) % 7) {
      days.add(day);
      if (to === undefined || day === to) break;
    }
  }
  return [...days].sort((a, b) => a - b);
}

function dayIndex(token: string): number | undefined {
  for (const candidate of [token, token.replace(/s$/, '')]) {
    const index = DAYS.findIndex((name) => candidate.length >= 3 && name.startsWith(candidate));
    if (index >= 0) return index;
  }
  return undefined;
}

/** Sorted day numbers as a cron field, runs of three or more as ranges: [1,2,3,5] → "1-3,5". */
function compressDays(days: number[]): string {
  const parts: string[] = [];
  for (let start = 0; start < days.length; ) {
    let end = start;
    while (days[end + 1] === (days[end] ?? 0) + 1) end++;
    parts.push(end - start >= 2 ? `${days[start]}-${days[end]}` : days.slice(start, end + 1).join(','));
    start = end + 1;
  }
  return parts.join(',');
}

/** A specific hint when the phrase names a period but not which part of it ("weekly", "every month"). */
function missingPartError(source: string): string | undefined {
  if (/^(?:weekly|(?:every|each) week)\b/.test(source))
    return 'Say which day: "every monday at 9" or "weekly mon 09:00".';
  if (/^(?:monthly|(?:every|each) month)\b/.test(source))
    return 'Say which day of the month: "monthly 1 09:00" or "every month on the last day at 18:00".';
  if (/^(?:yearly|annually|(?:every|each) year)\b/.test(source))
    return 'Say which date: "every year on 24 dec at 9".';
  return undefined;
}

function unitName(unit: string): string {
  const names = ['minute', 'hour', 'day', 'week', 'month', 'year'];
  return /^m(?:in|$)/.test(unit) ? 'minute' : (names.find((name) => name.startsWith(unit.charAt(0))) ?? unit);
}

function ordinal(n: number): string {
  const suffix =
    n % 10 === 1 && n !== 11
      ? 'st'
      : n % 10 === 2 && n !== 12
        ? 'nd'
        : n % 10 === 3 && n !== 13
          ? 'rd'
          : 'th';
  return `${n}${suffix}`;
}

function title(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

function listText(items: string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}
