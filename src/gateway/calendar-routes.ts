import { Hono } from 'hono';
import { DateTime } from 'luxon';
import { WINDOW_AHEAD_MS, WINDOW_BACK_MS } from '../calendar/expand-events.js';
import type { CalendarConfig } from '../config/calendar-config.js';
import type { CalendarAgenda, CalendarEvent, CalendarInfo, CalendarList } from './api-types.js';
import { problem } from './problem.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/** The longest range one `GET /api/calendar` may ask for. */
export const MAX_RANGE_DAYS = 31;

/** A stored occurrence as these routes read it (the calendar store's rows have more: the href is left out). */
interface StoredOccurrence {
  calendar: string;
  uid: string;
  start: number;
  end: number;
  allDay: boolean;
  summary: string;
  location: string;
}

/** What the routes read of the synced calendars: the home's calendar store (CalendarStore) has it. */
export interface CalendarReader {
  /** Occurrences overlapping [from, to); only of `calendars` when given. */
  between(from: number, to: number, calendars?: readonly string[]): StoredOccurrence[];
  state(calendar: string): { syncedAt?: number; error?: string } | undefined;
}

export interface CalendarRouteOptions {
  /** `calendars:` of config.yaml in force (read per request: live edits apply). */
  calendars: () => readonly CalendarConfig[];
  /** The synced occurrences and each calendar's sync state. */
  store: CalendarReader;
  /** The owner's zone (`agent.timezone`): "today" starts at its midnight. */
  timezone: () => string;
  /** Masks configured secrets in a stored sync error (the gate's redactor). */
  redact?: (text: string) => string;
  now?: () => number;
}

/** A range asked for, or why it cannot be served (the 400's message). */
type Range = { from: number; to: number } | { error: string };

/** Midnight (the start of the day) in `zone` of the instant `at`, `days` days later. */
function midnight(at: number, zone: string, days = 0): number {
  return DateTime.fromMillis(at, { zone }).startOf('day').plus({ days }).toMillis();
}

/** An ISO 8601 instant (a date alone is midnight in the owner's zone), or undefined when it is not one. */
function instant(text: string, zone: string): number | undefined {
  const parsed = DateTime.fromISO(text.trim(), { zone, setZone: true });
  return parsed.isValid ? parsed.toMillis() : undefined;
}

/**
 * The range of a request: `from` and `to` (ISO), or `days` (1…31) from the start of today, or, with none of
 * them, today — days in the owner's zone. At most 31 days; `to` must come after `from`.
 */
export function requestedRange(query: Record<string, string | undefined>, now: number, zone: string): Range {
  const { from, to, days } = query;
  if (days !== undefined) {
    if (from !== undefined || to !== undefined)
      return { error: 'Give either days or from and to, not both.' };
    if (!/^\d{1,2}$/.test(days) || Number(days) < 1 || Number(days) > MAX_RANGE_DAYS)
      return { error: `days must be a whole number from 1 to ${MAX_RANGE_DAYS}.` };
    return { from: midnight(now, zone), to: midnight(now, zone, Number(days)) };
  }
  if (from === undefined && to === undefined)
    return { from: midnight(now, zone), to: midnight(now, zone, 1) };
  if (from === undefined || to === undefined) return { error: 'Give both from and to (ISO 8601 times).' };
  const start = instant(from, zone);
  const end = instant(to, zone);
  if (start === undefined) return { error: 'from is not an ISO 8601 time (such as 2026-03-02T09:00:00Z).' };
  if (end === undefined) return { error: 'to is not an ISO 8601 time (such as 2026-03-09T00:00:00Z).' };
  if (end <= start) return { error: 'to must come after from.' };
  if (end - start > MAX_RANGE_DAYS * DAY_MS)
    return { error: `The range is longer than ${MAX_RANGE_DAYS} days; ask for less.` };
  return { from: start, to: end };
}

/** An occurrence as the API shows it: never its href (an ICS subscription's href is its secret URL). */
function toEvent(occurrence: StoredOccurrence): CalendarEvent {
  return {
    calendar: occurrence.calendar,
    uid: occurrence.uid,
    start: occurrence.start,
    end: occurrence.end,
    allDay: occurrence.allDay,
    summary: occurrence.summary,
    location: occurrence.location,
  };
}

/** By start; on the same start all-day events first, then by calendar and title. */
function byStart(a: CalendarEvent, b: CalendarEvent): number {
  return (
    a.start - b.start ||
    Number(b.allDay) - Number(a.allDay) ||
    a.calendar.localeCompare(b.calendar) ||
    a.summary.localeCompare(b.summary)
  );
}

/** Only the host of a calendar's URL: the path may carry a token (ICS "secret addresses"), userinfo a password. */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}

/**
 * The secrets of the configured calendars as they could appear in a sync error: each URL, the path (and
 * query) of each URL (an ICS subscription's path is its secret), each CalDAV password.
 */
function calendarSecretTexts(calendars: readonly CalendarConfig[]): string[] {
  const secrets: string[] = [];
  for (const { source } of calendars) {
    secrets.push(source.url);
    if (URL.canParse(source.url)) {
      const url = new URL(source.url);
      if (url.pathname.length > 1) secrets.push(url.pathname + url.search);
    }
    if (source.kind === 'caldav') secrets.push(source.password);
  }
  // Longest first: a URL is masked whole before its path is looked for.
  return secrets.filter(Boolean).sort((a, b) => b.length - a.length);
}

/** A stored sync error without any calendar's secrets, then without whatever else the redactor knows. */
function safeError(error: string, secrets: readonly string[], redact: (text: string) => string): string {
  let text = error;
  for (const secret of secrets) text = text.split(secret).join('[redacted]');
  return redact(text);
}

/**
 * `GET /api/calendar` → the stored occurrences of the configured calendars overlapping a range, by start
 * (see {@link requestedRange}; 400 `bad_request` for a bad or too long range). `GET /api/calendars` → each
 * configured calendar: name, kind, its URL's host only, when it last synced, its last error (secrets
 * masked) and how many occurrences of the sync window it holds. Neither ever shows a URL, a user name or a
 * password: calendars are configured (and their secrets kept) in config.yaml only.
 */
export function calendarRoutes(options: CalendarRouteOptions): Hono {
  const app = new Hono();
  const now = options.now ?? Date.now;
  const redact = options.redact ?? ((text: string) => text);

  app.get('/api/calendar', (c) => {
    const zone = options.timezone();
    const range = requestedRange(c.req.query(), now(), zone);
    if ('error' in range) return c.json(problem('bad_request', range.error), 400);
    const names = options.calendars().map((calendar) => calendar.name);
    const occurrences = options.store.between(range.from, range.to, names).map(toEvent).sort(byStart);
    return c.json({
      from: range.from,
      to: range.to,
      timezone: zone,
      calendars: names,
      occurrences,
    } satisfies CalendarAgenda);
  });

  app.get('/api/calendars', (c) => {
    const at = now();
    const window = options.store.between(at - WINDOW_BACK_MS, at + WINDOW_AHEAD_MS);
    const configured = options.calendars();
    const secrets = calendarSecretTexts(configured);
    const calendars = configured.map((calendar): CalendarInfo => {
      const state = options.store.state(calendar.name);
      return {
        name: calendar.name,
        kind: calendar.source.kind,
        host: hostOf(calendar.source.url),
        syncedAt: state?.syncedAt ?? null,
        error: state?.error ? safeError(state.error, secrets, redact) : null,
        events: window.filter((occurrence) => occurrence.calendar === calendar.name).length,
      };
    });
    return c.json({ calendars } satisfies CalendarList);
  });
  return app;
}
