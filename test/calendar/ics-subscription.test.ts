import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncCalendar } from '../../src/calendar/calendar-sync.js';
import type { CalendarConfig } from '../../src/config/calendar-config.js';
import { openStoresAt } from '../../src/store/open-stores.js';

/** Weekly on Tuesdays 18:30 in Tokyo (no DST), 9 February 2027 excluded; the owner lives in Los Angeles. */
const FEED = [
  'BEGIN:VCALENDAR',
  'VERSION:2.0',
  'PRODID:-//Club//EN',
  'BEGIN:VTIMEZONE',
  'TZID:Asia/Tokyo',
  'BEGIN:STANDARD',
  'DTSTART:19700101T000000',
  'TZOFFSETFROM:+0900',
  'TZOFFSETTO:+0900',
  'TZNAME:JST',
  'END:STANDARD',
  'END:VTIMEZONE',
  'BEGIN:VEVENT',
  'UID:club-night@example.org',
  'DTSTAMP:20260101T000000Z',
  'DTSTART;TZID=Asia/Tokyo:20270126T183000',
  'DTEND;TZID=Asia/Tokyo:20270126T203000',
  'RRULE:FREQ=WEEKLY;BYDAY=TU',
  'EXDATE;TZID=Asia/Tokyo:20270209T183000',
  'SUMMARY:Club night',
  'LOCATION:Shibuya',
  'END:VEVENT',
  'BEGIN:VEVENT',
  'UID:holiday@example.org',
  'DTSTAMP:20260101T000000Z',
  'DTSTART;VALUE=DATE:20270211',
  'DTEND;VALUE=DATE:20270212',
  'SUMMARY:National Foundation Day',
  'END:VEVENT',
  'END:VCALENDAR',
  '',
].join('\r\n');

let server: Server;
let url: string;
let dir: string;
const seen: Array<{ ifNoneMatch?: string; status: number }> = [];
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'wren-ics-'));
  server = createServer((request, response) => {
    const ifNoneMatch = request.headers['if-none-match'];
    const status = ifNoneMatch === '"v1"' ? 304 : 200;
    seen.push({ ...(ifNoneMatch ? { ifNoneMatch } : {}), status });
    if (status === 304) return response.writeHead(304, { etag: '"v1"' }).end();
    response.writeHead(200, { 'content-type': 'text/calendar', etag: '"v1"' }).end(FEED);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/club.ics`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

describe('ICS subscriptions', () => {
  it('expands a weekly event with EXDATE in its own zone, and an unchanged feed costs one 304', async () => {
    let now = Date.UTC(2027, 0, 25, 12);
    const stores = openStoresAt(join(dir, 'wren.db'));
    const calendar: CalendarConfig = {
      name: 'club',
      source: { kind: 'ics', url },
      syncMs: 15 * 60_000,
      before: [],
    };
    const deps = { store: stores.calendars, now: () => now, timezone: () => 'America/Los_Angeles' };
    expect(await syncCalendar(calendar, deps)).toMatchObject({ changed: true });
    const events = stores.calendars.between(Date.UTC(2027, 0, 25), Date.UTC(2027, 1, 24));
    expect(events.map((e) => [e.summary, new Date(e.start).toISOString(), e.allDay])).toEqual([
      // 18:30 in Tokyo is 09:30 UTC, whatever the owner's zone.
      ['Club night', '2027-01-26T09:30:00.000Z', false],
      ['Club night', '2027-02-02T09:30:00.000Z', false],
      // 9 February is excluded.
      // An all-day date is the owner's day: midnight in Los Angeles.
      ['National Foundation Day', '2027-02-11T08:00:00.000Z', true],
      ['Club night', '2027-02-16T09:30:00.000Z', false],
      ['Club night', '2027-02-23T09:30:00.000Z', false],
    ]);
    expect(events[0]).toMatchObject({
      location: 'Shibuya',
      timezone: 'Asia/Tokyo',
      occurrence: '2027-01-26T09:30:00.000Z',
    });

    now += 15 * 60_000;
    seen.length = 0;
    expect(await syncCalendar(calendar, deps)).toMatchObject({ changed: false });
    expect(seen).toEqual([{ ifNoneMatch: '"v1"', status: 304 }]);
    expect(stores.calendars.between(Date.UTC(2027, 0, 25), Date.UTC(2027, 1, 24))).toHaveLength(5);

    // A day later the window has slid: the feed is fetched again (unconditionally) and re-expanded.
    now += 24 * 60 * 60_000;
    seen.length = 0;
    expect(await syncCalendar(calendar, deps)).toMatchObject({ changed: true });
    expect(seen).toEqual([{ status: 200 }]);
    stores.close();
  });
});
