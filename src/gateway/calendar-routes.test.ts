import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { jsonSender, routeHarness } from '../../test/support/route-harness.js';
import { MemorySessionStore } from '../agent/memory-session-store.js';
import { MessageBus } from '../bus/message-bus.js';
import { HttpChannel } from '../channels/http/http-channel.js';
import { type CalendarConfig, toCalendarsConfig } from '../config/calendar-config.js';
import type { CalendarOccurrence } from '../store/calendar-repository.js';
import { openStoresAt, type Stores } from '../store/open-stores.js';
import type { CalendarAgenda, CalendarList } from './api-types.js';
import { calendarRoutes, requestedRange } from './calendar-routes.js';
import { createGateway } from './create-gateway.js';

const harness = routeHarness();
const opened: Stores[] = [];
// Registered after the harness's: runs first, so each store closes before its folder goes.
afterEach(() => {
  for (const stores of opened.splice(0)) stores.close();
});
const ZONE = 'Europe/Berlin';
/** 2026-03-02 10:30 in Berlin (UTC+1). */
const NOW = Date.parse('2026-03-02T09:30:00Z');
const ICS_TOKEN = 'private-a1b2c3d4e5f6-secret-token';
const ICS_URL = `https://calendar.example.org/ical/owner%40example.org/${ICS_TOKEN}/basic.ics`;
const PASSWORD = 'caldav-app-password-9f8e7d';
const CALDAV_URL = 'https://cloud.example.com/remote.php/dav/calendars/sam/personal/';
const TOKEN = 'calendar-route-token-0123456789abcdef';

const calendars: CalendarConfig[] = toCalendarsConfig([
  { name: 'work', caldav: { url: CALDAV_URL, username: 'sam', password: PASSWORD }, sync_minutes: 15 },
  { name: 'holidays', ics: ICS_URL, sync_minutes: 60 },
]);

function occurrence(
  calendar: string,
  uid: string,
  start: string,
  end: string,
  extra: Partial<CalendarOccurrence> = {},
): CalendarOccurrence {
  return {
    calendar,
    uid,
    occurrence: '',
    href: calendar === 'holidays' ? ICS_URL : `${CALDAV_URL}${uid}.ics`,
    start: Date.parse(start),
    end: Date.parse(end),
    allDay: false,
    summary: uid,
    location: '',
    ...extra,
  };
}

/** A home's store with a week of events in two calendars (and one of a calendar no longer configured). */
function seededStore() {
  const dir = harness.folder('wren-calendar-routes-');
  const stores = openStoresAt(join(dir, 'wren.db'));
  stores.calendars.apply('work', {
    full: true,
    objects: [
      {
        href: `${CALDAV_URL}standup.ics`,
        occurrences: [
          occurrence('work', 'standup', '2026-03-02T08:00:00Z', '2026-03-02T08:15:00Z', {
            summary: 'Standup',
            location: 'Room 4',
          }),
        ],
      },
      {
        href: `${CALDAV_URL}late.ics`,
        // 23:30–00:30 Berlin: overlaps today and tomorrow.
        occurrences: [occurrence('work', 'late', '2026-03-02T22:30:00Z', '2026-03-02T23:30:00Z')],
      },
      {
        href: `${CALDAV_URL}review.ics`,
        occurrences: [occurrence('work', 'review', '2026-03-05T13:00:00Z', '2026-03-05T14:00:00Z')],
      },
    ],
    removed: [],
    state: { syncedAt: NOW - 60_000 },
  });
  stores.calendars.apply('holidays', {
    full: true,
    objects: [
      {
        href: ICS_URL,
        occurrences: [
          // All day 2026-03-02 in Berlin: midnight to midnight, local.
          occurrence('holidays', 'fair', '2026-03-01T23:00:00Z', '2026-03-02T23:00:00Z', {
            allDay: true,
            summary: 'Spring fair',
          }),
        ],
      },
    ],
    removed: [],
    state: {},
  });
  stores.calendars.setState('holidays', { error: `403 Forbidden from ${ICS_URL} (user sam:${PASSWORD})` });
  stores.calendars.apply('old', {
    full: true,
    objects: [
      { href: 'x', occurrences: [occurrence('old', 'gone', '2026-03-02T10:00:00Z', '2026-03-02T11:00:00Z')] },
    ],
    removed: [],
    state: {},
  });
  opened.push(stores);
  return stores;
}

function routes(configured: readonly CalendarConfig[] = calendars) {
  const stores = seededStore();
  const app = calendarRoutes({
    calendars: () => configured,
    store: stores.calendars,
    timezone: () => ZONE,
    now: () => NOW,
  });
  return {
    send: jsonSender<CalendarAgenda & CalendarList & { error: { code: string; message: string } }>(app),
  };
}

describe('GET /api/calendar', () => {
  it('defaults to today in the owner zone: all-day first, then by start, with location', async () => {
    const { send } = routes();
    const { status, body } = await send('GET', '/api/calendar');
    expect(status).toBe(200);
    expect(body.from).toBe(Date.parse('2026-03-01T23:00:00Z'));
    expect(body.to).toBe(Date.parse('2026-03-02T23:00:00Z'));
    expect(body.timezone).toBe(ZONE);
    expect(body.calendars).toEqual(['work', 'holidays']);
    expect(body.occurrences.map((event) => event.uid)).toEqual(['fair', 'standup', 'late']);
    expect(body.occurrences[1]).toEqual({
      calendar: 'work',
      uid: 'standup',
      start: Date.parse('2026-03-02T08:00:00Z'),
      end: Date.parse('2026-03-02T08:15:00Z'),
      allDay: false,
      summary: 'Standup',
      location: 'Room 4',
    });
  });

  it('reads days from the start of today, and an explicit from/to range', async () => {
    const { send } = routes();
    const week = await send('GET', '/api/calendar?days=7');
    expect(week.status).toBe(200);
    expect(week.body.to - week.body.from).toBe(7 * 86_400_000);
    expect(week.body.occurrences.map((event) => event.uid)).toEqual(['fair', 'standup', 'late', 'review']);
    const range = await send('GET', '/api/calendar?from=2026-03-03&to=2026-03-06T00:00:00%2B01:00');
    expect(range.body.from).toBe(Date.parse('2026-03-02T23:00:00Z'));
    expect(range.body.occurrences.map((event) => event.uid)).toEqual(['late', 'review']);
  });

  it('shows only configured calendars: none configured, none shown', async () => {
    const { send } = routes([]);
    const { body } = await send('GET', '/api/calendar?days=7');
    expect(body.calendars).toEqual([]);
    expect(body.occurrences).toEqual([]);
  });

  it.each([
    ['from=2026-03-02T00:00:00Z', 'Give both from and to'],
    ['to=2026-03-02T00:00:00Z', 'Give both from and to'],
    ['from=yesterday&to=2026-03-02T00:00:00Z', 'from is not an ISO 8601 time'],
    ['from=2026-03-02T00:00:00Z&to=soon', 'to is not an ISO 8601 time'],
    ['from=2026-03-05T00:00:00Z&to=2026-03-02T00:00:00Z', 'to must come after from'],
    ['from=2026-03-02T00:00:00Z&to=2026-03-02T00:00:00Z', 'to must come after from'],
    ['from=2026-03-01T00:00:00Z&to=2026-04-02T00:00:00Z', 'longer than 31 days'],
    ['days=0', 'days must be a whole number from 1 to 31'],
    ['days=32', 'days must be a whole number from 1 to 31'],
    ['days=1.5', 'days must be a whole number from 1 to 31'],
    ['days=7&from=2026-03-02T00:00:00Z', 'either days or from and to'],
  ])('answers 400 to %s', async (query, message) => {
    const { send } = routes();
    const { status, body } = await send('GET', `/api/calendar?${query}`);
    expect(status).toBe(400);
    expect(body.error.code).toBe('bad_request');
    expect(body.error.message).toContain(message);
  });

  it('takes exactly 31 days, across a DST change in the owner zone', () => {
    const range = requestedRange(
      { from: '2026-03-20T00:00:00+01:00', to: '2026-04-20T00:00:00+01:00' },
      NOW,
      ZONE,
    );
    expect(range).toEqual({
      from: Date.parse('2026-03-19T23:00:00Z'),
      to: Date.parse('2026-04-19T23:00:00Z'),
    });
    // Today on the spring-forward day is 23 hours long.
    const today = requestedRange({}, Date.parse('2026-03-29T12:00:00Z'), ZONE);
    expect(today).toEqual({
      from: Date.parse('2026-03-28T23:00:00Z'),
      to: Date.parse('2026-03-29T22:00:00Z'),
    });
  });
});

describe('GET /api/calendars', () => {
  it('lists each configured calendar with kind, host, sync state and its events in the window', async () => {
    const { send } = routes();
    const { status, body } = await send('GET', '/api/calendars');
    expect(status).toBe(200);
    expect(body.calendars).toEqual([
      {
        name: 'work',
        kind: 'caldav',
        host: 'cloud.example.com',
        syncedAt: NOW - 60_000,
        error: null,
        events: 3,
      },
      {
        name: 'holidays',
        kind: 'ics',
        host: 'calendar.example.org',
        syncedAt: null,
        error: '403 Forbidden from [redacted] (user sam:[redacted])',
        events: 1,
      },
    ]);
  });

  it('never shows a calendar URL, its token, a user name or a password, even inside a sync error', async () => {
    const { send } = routes();
    const raw = JSON.stringify((await send('GET', '/api/calendars')).body);
    const agenda = JSON.stringify((await send('GET', '/api/calendar?days=31')).body);
    for (const text of [raw, agenda]) {
      expect(text).not.toContain(ICS_URL);
      expect(text).not.toContain(ICS_TOKEN);
      expect(text).not.toContain(CALDAV_URL);
      expect(text).not.toContain('/remote.php/');
      expect(text).not.toContain(PASSWORD);
    }
  });

  it('is behind the gateway token where the gateway mounts it', async () => {
    const stores = seededStore();
    const gateway = createGateway({
      channel: new HttpChannel({ bus: new MessageBus() }),
      sessions: new MemorySessionStore(),
      verifyToken: (token) => token === TOKEN,
      status: () => ({}),
      version: '1.0.0',
      startedAt: 0,
      webRoot: false,
      calendars: {
        calendars: () => calendars,
        store: stores.calendars,
        timezone: () => ZONE,
        now: () => NOW,
      },
    });
    for (const path of ['/api/calendar', '/api/calendars']) {
      expect((await gateway.request(`http://127.0.0.1${path}`)).status).toBe(401);
      const answer = await gateway.request(`http://127.0.0.1${path}`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      expect(answer.status).toBe(200);
    }
  });
});
