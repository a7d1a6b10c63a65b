import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCalendarService } from '../../src/calendar/calendar-service.js';
import { calendarBeforeSource, calendarSyncSource } from '../../src/calendar/calendar-sources.js';
import type { CalendarConfig } from '../../src/config/calendar-config.js';
import { Scheduler } from '../../src/proactive/scheduler.js';
import { openStoresAt, type Stores } from '../../src/store/open-stores.js';
import { FakeClock } from '../support/fake-clock.js';
import { type Radicale, startRadicale } from '../support/radicale.js';

const MIN = 60_000;
const HOUR = 60 * MIN;

let radicale: Radicale;
let dir: string;
beforeAll(async () => {
  radicale = await startRadicale();
  dir = mkdtempSync(join(tmpdir(), 'wren-calendar-'));
});
afterAll(async () => {
  await radicale?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A fetch that counts the requests it passes to the real one. */
function countingFetch() {
  const requests: string[] = [];
  const fetch: typeof globalThis.fetch = (input, init) => {
    requests.push(`${init?.method ?? 'GET'} ${String(input instanceof Request ? input.url : input)}`);
    return globalThis.fetch(input, init);
  };
  return { fetch, requests };
}

const ics = (uid: string, lines: string[], extra: string[] = []) =>
  [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//Other client//EN',
    'BEGIN:VEVENT',
    `UID:${uid}`,
    'DTSTAMP:20260101T000000Z',
    ...lines,
    'END:VEVENT',
    ...extra,
    'END:VCALENDAR',
    '',
  ].join('\r\n');

const utc = (at: number) =>
  new Date(at)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');

let counter = 0;
async function setup(clock: FakeClock, before: CalendarConfig['before'] = [], syncMs = 15 * MIN) {
  const name = `cal${++counter}`;
  const collection = await radicale.makeCalendar(name);
  const stores: Stores = openStoresAt(join(dir, `${name}.db`), { clock: clock.now });
  const calendar: CalendarConfig = {
    name,
    source: { kind: 'caldav', url: collection, username: radicale.user, password: radicale.password },
    syncMs,
    before,
  };
  const counting = countingFetch();
  const service = createCalendarService({
    calendars: () => [calendar],
    store: stores.calendars,
    fetch: counting.fetch,
    now: clock.now,
    timezone: () => 'America/New_York',
  });
  return { name, collection, stores, calendar, service, ...counting };
}

/** A scheduler with the two calendar sources, the triggers they record kept in the home's store. */
function schedule(clock: FakeClock, env: Awaited<ReturnType<typeof setup>>) {
  const fired: Array<{ key: string; at: number; title: string; text: string }> = [];
  const scheduler: Scheduler = new Scheduler({
    clock: clock.now,
    timers: clock,
    // Long sleeps: the loop must wake by itself at each trigger's due time (nextDue), not by polling.
    maxSleepMs: 6 * HOUR,
    sources: [
      calendarSyncSource({
        calendars: () => [env.calendar],
        sync: (calendar) => env.service.sync(calendar),
        onSynced: () => scheduler.wake(),
      }),
      calendarBeforeSource({
        calendars: () => [env.calendar],
        store: env.stores.calendars,
        record: (event) => {
          const fresh = env.stores.triggers.record(event);
          if (fresh)
            fired.push({
              key: event.key,
              at: clock.now(),
              title: event.payload.title,
              text: event.payload.text,
            });
          return fresh;
        },
        deliverTo: () => ['cli:terminal'],
        timezone: () => 'Europe/Berlin',
      }),
    ],
    executor: {
      run: async () => {},
      deliver: async () => {},
      nextDelivery: () => undefined,
      unfinished: () => [],
    },
  });
  return { scheduler, fired };
}

/** Lets the background sync's real HTTP finish, then moves the fake clock. */
async function settle(clock: FakeClock, scheduler: Scheduler, ms = 0) {
  for (let i = 0; i < 8; i++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    await clock.advance(0);
  }
  await scheduler.idle();
  if (ms) await clock.advance(ms);
}

describe('CalDAV calendars against a real Radicale', () => {
  it('syncs events written by another client; an unchanged calendar costs one request', async () => {
    const clock = new FakeClock(Date.UTC(2026, 11, 2, 12));
    const env = await setup(clock);
    const start = Date.UTC(2026, 11, 3, 15);
    await radicale.put(
      `${env.collection}review.ics`,
      ics('review-1', [
        `DTSTART:${utc(start)}`,
        `DTEND:${utc(start + HOUR)}`,
        'SUMMARY:Design review',
        'LOCATION:Room 4',
      ]),
    );
    const first = await env.service.sync(env.calendar);
    expect(first).toMatchObject({ changed: true, occurrences: 1 });
    expect(
      env.service.list(start - HOUR, start + 2 * HOUR).map((e) => [e.uid, e.summary, e.location, e.start]),
    ).toEqual([['review-1', 'Design review', 'Room 4', start]]);

    env.requests.length = 0;
    expect(await env.service.sync(env.calendar)).toMatchObject({ changed: false });
    expect(env.requests).toEqual([`PROPFIND ${env.collection}`]);

    // Another client moves it, then adds one and deletes the first.
    const moved = start + 2 * HOUR;
    await radicale.put(
      `${env.collection}review.ics`,
      ics('review-1', [
        `DTSTART:${utc(moved)}`,
        `DTEND:${utc(moved + HOUR)}`,
        'SUMMARY:Design review',
        'SEQUENCE:1',
      ]),
    );
    await env.service.sync(env.calendar);
    expect(env.service.list(start - HOUR, start + 5 * HOUR).map((e) => e.start)).toEqual([moved]);
    await radicale.remove(`${env.collection}review.ics`);
    await radicale.put(
      `${env.collection}lunch.ics`,
      ics('lunch-1', [`DTSTART:${utc(start)}`, `DTEND:${utc(start + HOUR)}`, 'SUMMARY:Lunch']),
    );
    await env.service.sync(env.calendar);
    expect(env.service.list(start - HOUR, start + 5 * HOUR).map((e) => e.uid)).toEqual(['lunch-1']);
    env.stores.close();
  });

  it('creates, moves and cancels events from Wren, seen by another client', async () => {
    const clock = new FakeClock(Date.UTC(2026, 11, 2, 12));
    const env = await setup(clock);
    const start = Date.UTC(2026, 11, 4, 9);
    const { uid } = await env.service.create({
      calendar: env.name,
      title: 'Dentist',
      start,
      end: start + 30 * MIN,
      location: 'Main St 1',
    });
    expect(env.service.list(start, start + HOUR).map((e) => [e.uid, e.summary])).toEqual([[uid, 'Dentist']]);
    const href = env.stores.calendars.object(env.name, uid)!.href;
    const seen = await fetch(href, { headers: { authorization: radicale.authorization } });
    expect(await seen.text()).toContain('SUMMARY:Dentist');

    await env.service.move(env.name, uid, start + 2 * HOUR);
    expect(env.service.list(start, start + 4 * HOUR).map((e) => [e.start, e.end])).toEqual([
      [start + 2 * HOUR, start + 2 * HOUR + 30 * MIN],
    ]);
    const after = await (await fetch(href, { headers: { authorization: radicale.authorization } })).text();
    expect(after).toContain(`DTSTART:${utc(start + 2 * HOUR)}`);

    // Free time around it: the hour-long gaps of the morning.
    expect(env.service.free(start, start + 4 * HOUR, HOUR)).toEqual([
      { start, end: start + 2 * HOUR },
      { start: start + 2 * HOUR + 30 * MIN, end: start + 4 * HOUR },
    ]);

    await env.service.cancel(env.name, uid);
    expect(env.service.list(start, start + 4 * HOUR)).toEqual([]);
    expect((await fetch(href, { headers: { authorization: radicale.authorization } })).status).toBe(404);
    env.stores.close();
  });

  it('moves and cancels one occurrence of a recurring event, leaving the rest of the series', async () => {
    const clock = new FakeClock(Date.UTC(2026, 11, 2, 12));
    const env = await setup(clock);
    await radicale.put(
      `${env.collection}yoga.ics`,
      ics('yoga-1', [
        'DTSTART;TZID=Europe/Berlin:20261203T180000',
        'DTEND;TZID=Europe/Berlin:20261203T190000',
        'RRULE:FREQ=WEEKLY;COUNT=4',
        'SUMMARY:Yoga',
      ]),
    );
    await env.service.sync(env.calendar);
    const starts = () =>
      env.service
        .list(Date.UTC(2026, 11, 1), Date.UTC(2027, 0, 1))
        .map((e) => [e.occurrence, new Date(e.start).toISOString()]);
    expect(starts()).toEqual([
      ['2026-12-03T17:00:00.000Z', '2026-12-03T17:00:00.000Z'],
      ['2026-12-10T17:00:00.000Z', '2026-12-10T17:00:00.000Z'],
      ['2026-12-17T17:00:00.000Z', '2026-12-17T17:00:00.000Z'],
      ['2026-12-24T17:00:00.000Z', '2026-12-24T17:00:00.000Z'],
    ]);
    await expect(env.service.move(env.name, 'yoga-1', Date.UTC(2026, 11, 11, 17))).rejects.toThrow(
      /name the occurrence/,
    );
    await env.service.move(
      env.name,
      'yoga-1',
      Date.UTC(2026, 11, 11, 17),
      undefined,
      '2026-12-10T17:00:00.000Z',
    );
    await env.service.cancel(env.name, 'yoga-1', '2026-12-24T17:00:00.000Z');
    expect(starts()).toEqual([
      ['2026-12-03T17:00:00.000Z', '2026-12-03T17:00:00.000Z'],
      ['2026-12-10T17:00:00.000Z', '2026-12-11T17:00:00.000Z'],
      ['2026-12-17T17:00:00.000Z', '2026-12-17T17:00:00.000Z'],
    ]);
    // What another client reads: an exception paired by a RECURRENCE-ID in the series' zone, and an EXDATE.
    const text = await (
      await fetch(`${env.collection}yoga.ics`, { headers: { authorization: radicale.authorization } })
    ).text();
    expect(text).toContain('RECURRENCE-ID;TZID=Europe/Berlin:20261210T180000');
    expect(text).toContain('EXDATE;TZID=Europe/Berlin:20261224T180000');
    // Cancelling without an occurrence removes the whole series.
    await env.service.cancel(env.name, 'yoga-1');
    expect(starts()).toEqual([]);
    env.stores.close();
  });

  it('fires "before" triggers once per occurrence of a recurring event with an exception, across DST, at local time', async () => {
    // Mondays 09:00 in Berlin from 15 March 2027; DST starts 28 March. The owner lives in New York.
    const clock = new FakeClock(Date.UTC(2027, 2, 20, 12));
    const env = await setup(
      clock,
      [{ beforeMs: 15 * MIN, action: { kind: 'notify', template: '{{title}} at {{start}}' } }],
      24 * HOUR,
    );
    await radicale.put(
      `${env.collection}weekly.ics`,
      ics(
        'weekly-1',
        [
          'DTSTART;TZID=Europe/Berlin:20270315T090000',
          'DTEND;TZID=Europe/Berlin:20270315T093000',
          'RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=6',
          'EXDATE;TZID=Europe/Berlin:20270405T090000',
          'SUMMARY:Weekly sync',
        ],
        [
          'BEGIN:VEVENT',
          'UID:weekly-1',
          'DTSTAMP:20260101T000000Z',
          'RECURRENCE-ID;TZID=Europe/Berlin:20270329T090000',
          'DTSTART;TZID=Europe/Berlin:20270329T110000',
          'DTEND;TZID=Europe/Berlin:20270329T113000',
          'SUMMARY:Weekly sync (moved)',
          'END:VEVENT',
        ],
      ),
    );
    const { scheduler, fired } = schedule(clock, env);
    scheduler.start();
    await settle(clock, scheduler);
    // Three and a half weeks, ticking only when the scheduler wakes itself (a daily sync included).
    for (let day = 0; day < 24; day++) {
      await clock.advance(24 * HOUR);
      await settle(clock, scheduler);
    }
    await settle(clock, scheduler);
    scheduler.stop();
    expect(fired.map((f) => [f.key, new Date(f.at).toISOString()])).toEqual([
      // 08:45 CET = 07:45 UTC
      ['cal:' + env.name + ':weekly-1:2027-03-22T08:00:00.000Z', '2027-03-22T07:45:00.000Z'],
      // the exception: 11:00 CEST, fired at 10:45 CEST = 08:45 UTC
      ['cal:' + env.name + ':weekly-1:2027-03-29T09:00:00.000Z', '2027-03-29T08:45:00.000Z'],
      // 5 April excluded; 08:45 CEST = 06:45 UTC
      ['cal:' + env.name + ':weekly-1:2027-04-12T07:00:00.000Z', '2027-04-12T06:45:00.000Z'],
    ]);
    expect(fired[1]).toMatchObject({
      title: '📅 In 15 min',
      text: 'Weekly sync (moved) at Mon 29 Mar, 11:00',
    });
    env.stores.close();
  });

  it('fires a moved event at its new time only, and a deleted one never', async () => {
    const clock = new FakeClock(Date.UTC(2026, 11, 2, 12));
    const env = await setup(clock, [
      { beforeMs: 15 * MIN, action: { kind: 'notify', template: '{{title}}' } },
    ]);
    const at = Date.UTC(2026, 11, 2, 14);
    await radicale.put(
      `${env.collection}call.ics`,
      ics('call-1', [`DTSTART:${utc(at)}`, `DTEND:${utc(at + HOUR)}`, 'SUMMARY:Call']),
    );
    await radicale.put(
      `${env.collection}gone.ics`,
      ics('gone-1', [`DTSTART:${utc(at)}`, `DTEND:${utc(at + HOUR)}`, 'SUMMARY:Gone']),
    );
    const { scheduler, fired } = schedule(clock, env);
    scheduler.start();
    await settle(clock, scheduler);
    // Planned: both due at 13:45.
    expect(scheduler.nextDue(clock.now(), { housekeeping: false })).toBe(at - 15 * MIN);
    // Another client moves one an hour later and deletes the other; the next sync sees it.
    await radicale.put(
      `${env.collection}call.ics`,
      ics('call-1', [
        `DTSTART:${utc(at + HOUR)}`,
        `DTEND:${utc(at + 2 * HOUR)}`,
        'SUMMARY:Call',
        'SEQUENCE:1',
      ]),
    );
    await radicale.remove(`${env.collection}gone.ics`);
    for (let step = 0; step < 5 * 4; step++) {
      await clock.advance(15 * MIN);
      await settle(clock, scheduler);
    }
    scheduler.stop();
    expect(fired.map((f) => [f.key, new Date(f.at).toISOString()])).toEqual([
      [`cal:${env.name}:call-1:2026-12-02T15:00:00.000Z`, '2026-12-02T14:45:00.000Z'],
    ]);
    env.stores.close();
  });
});
