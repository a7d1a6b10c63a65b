import { randomUUID } from 'node:crypto';
import type { CalendarConfig } from '../config/calendar-config.js';
import type { CalendarOccurrence } from '../store/calendar-repository.js';
import type { CalendarStore } from '../store/ports.js';
import type { Fetch } from './caldav-client.js';
import { clientFor, type SyncResult, syncCalendar } from './calendar-sync.js';
import { cancelInIcs, moveInIcs } from './edit-ics.js';

export interface CalendarServiceDeps {
  calendars: () => readonly CalendarConfig[];
  store: CalendarStore;
  fetch?: Fetch;
  now: () => number;
  timezone: () => string;
}

export interface NewEvent {
  calendar: string;
  title: string;
  start: number;
  end: number;
  location?: string;
  description?: string;
}

/** A free stretch of time, Unix ms. */
export interface FreeSlot {
  start: number;
  end: number;
}

const icsTime = (at: number) =>
  new Date(at)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
const escapeText = (text: string) =>
  text.replace(/\\/g, '\\\\').replace(/;/g, '\\;').replace(/,/g, '\\,').replace(/\r?\n/g, '\\n');

/** A one-event VCALENDAR (times in UTC), as Wren creates events. */
export function eventIcs(uid: string, event: NewEvent, stamp: number): string {
  return [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//Wren//Calendar//EN',
    'BEGIN:VEVENT',
    `UID:${uid}`,
    `DTSTAMP:${icsTime(stamp)}`,
    `DTSTART:${icsTime(event.start)}`,
    `DTEND:${icsTime(event.end)}`,
    `SUMMARY:${escapeText(event.title)}`,
    ...(event.location ? [`LOCATION:${escapeText(event.location)}`] : []),
    ...(event.description ? [`DESCRIPTION:${escapeText(event.description)}`] : []),
    'END:VEVENT',
    'END:VCALENDAR',
    '',
  ].join('\r\n');
}

/**
 * Gaps of at least `minutes` in [from, to) between the stored events of `calendars` (all-day events do not
 * block time), optionally only within daily working hours `[dayStart, dayEnd)` of the owner's wall clock.
 */
export function freeSlots(
  events: readonly CalendarOccurrence[],
  from: number,
  to: number,
  minMs: number,
): FreeSlot[] {
  const busy = events
    .filter((event) => !event.allDay)
    .map((event) => ({ start: Math.max(from, event.start), end: Math.min(to, event.end) }))
    .filter((span) => span.end > span.start)
    .sort((a, b) => a.start - b.start);
  const slots: FreeSlot[] = [];
  let cursor = from;
  for (const span of busy) {
    if (span.start - cursor >= minMs) slots.push({ start: cursor, end: span.start });
    cursor = Math.max(cursor, span.end);
  }
  if (to - cursor >= minMs) slots.push({ start: cursor, end: to });
  return slots;
}

/**
 * The owner's calendars as one service: sync, read the stored occurrences, and write to CalDAV calendars
 * (create, move, cancel) with the server's ETag as the guard against another client's change. Every write
 * is followed by a sync of that calendar, so the store (and the "before" plan) shows it at once.
 */
export function createCalendarService(deps: CalendarServiceDeps) {
  const find = (name: string): CalendarConfig => {
    const calendar = deps.calendars().find((c) => c.name === name);
    if (!calendar)
      throw new Error(
        `There is no calendar "${name}" (configured: ${
          deps
            .calendars()
            .map((c) => c.name)
            .join(', ') || 'none'
        }).`,
      );
    return calendar;
  };
  const writable = (name: string) => {
    const calendar = find(name);
    const client = clientFor(calendar, deps.fetch);
    if (!client) throw new Error(`"${name}" is an ICS subscription: it is read-only.`);
    return { calendar, client };
  };
  const sync = (calendar: CalendarConfig): Promise<SyncResult> =>
    syncCalendar(calendar, {
      store: deps.store,
      now: deps.now,
      timezone: deps.timezone,
      ...(deps.fetch ? { fetch: deps.fetch } : {}),
    });
  const stored = (name: string, uid: string) => {
    const object = deps.store.object(name, uid);
    if (!object)
      throw new Error(`There is no event "${uid}" in "${name}"; list the calendar to see the ids.`);
    return object;
  };
  return {
    sync,
    /** Syncs every calendar; failures are returned, not thrown. */
    async syncAll(): Promise<Array<SyncResult | { calendar: string; error: string }>> {
      return Promise.all(
        deps.calendars().map((calendar) =>
          sync(calendar).catch((error: unknown) => ({
            calendar: calendar.name,
            error: (error as Error).message,
          })),
        ),
      );
    },
    list(from: number, to: number, calendars?: readonly string[]): CalendarOccurrence[] {
      return deps.store.between(from, to, calendars);
    },
    free(from: number, to: number, minMs: number, calendars?: readonly string[]): FreeSlot[] {
      return freeSlots(deps.store.between(from, to, calendars), from, to, minMs);
    },
    async create(event: NewEvent): Promise<{ uid: string }> {
      const { calendar, client } = writable(event.calendar);
      if (!(event.end > event.start)) throw new Error('The event must end after it starts.');
      const state = deps.store.state(calendar.name);
      const collection = state?.collectionUrl ?? (await client.collection());
      const uid = `${randomUUID()}@wren`;
      await client.create(
        new URL(`${encodeURIComponent(uid)}.ics`, collection).href,
        eventIcs(uid, event, deps.now()),
      );
      await sync(calendar);
      return { uid };
    },
    /**
     * Moves an event to `start`, keeping its length unless `end` is given; for a recurring event, only the
     * occurrence named by `occurrence` (its RECURRENCE-ID, UTC ISO, as stored).
     */
    async move(name: string, uid: string, start: number, end?: number, occurrence?: string): Promise<void> {
      const { calendar, client } = writable(name);
      const object = stored(name, uid);
      const current = await client.get(object.href);
      if (!current?.data) throw new Error(`The event "${uid}" is gone from the server.`);
      const ics = moveInIcs(current.data, {
        uid,
        ...(occurrence ? { occurrence } : {}),
        start,
        ...(end !== undefined ? { end } : {}),
        stamp: deps.now(),
        zone: deps.timezone(),
      });
      await client.update(object.href, ics, current.etag ?? object.etag);
      await sync(calendar);
    },
    /** Deletes an event (the whole series), or only one occurrence of a recurring one (an EXDATE). */
    async cancel(name: string, uid: string, occurrence?: string): Promise<void> {
      const { calendar, client } = writable(name);
      const object = stored(name, uid);
      if (occurrence) {
        const current = await client.get(object.href);
        if (!current?.data) throw new Error(`The event "${uid}" is gone from the server.`);
        const ics = cancelInIcs(current.data, { uid, occurrence, stamp: deps.now(), zone: deps.timezone() });
        if (ics !== undefined) {
          await client.update(object.href, ics, current.etag ?? object.etag);
          await sync(calendar);
          return;
        }
      }
      await client.delete(object.href, object.etag);
      await sync(calendar);
    },
  };
}

export type CalendarService = ReturnType<typeof createCalendarService>;
