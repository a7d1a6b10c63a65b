/**
 * Calendar sync benchmark: a CalDAV calendar of 5,000 events on a real Radicale (Debian's `radicale`, as the
 * tests use) and the same 5,000 events as an ICS subscription from a local HTTP server. For each: the first
 * sync (every object fetched, expanded and stored), a sync with nothing changed, and (CalDAV) a sync after
 * another client changed one event — time, requests, occurrences stored, peak RSS growth and the heap kept.
 *   npx tsx bench/calendar-bench.ts
 * Measures, never asserts. 4,500 single events spread over the sync window and 500 weekly series in the
 * calendar's own zone (expanded across the window) — a busy work calendar of several years.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { syncCalendar } from '../src/calendar/calendar-sync.js';
import type { CalendarConfig } from '../src/config/calendar-config.js';
import { openStoresAt } from '../src/store/open-stores.js';
import { startRadicale } from '../test/support/radicale.js';

export interface SyncFigures {
  /** Wall time, the server's share included. */
  ms: number;
  /** CPU time of this (Wren's) process during the sync. */
  cpuMs: number;
  requests: number;
  occurrences: number;
  /** Peak RSS during the sync minus RSS before it. */
  peakRssMb: number;
  /** Heap kept after the sync (after a full collection). */
  heapKeptMb: number;
}

export interface CalendarBenchResult {
  events: number;
  caldav?: { first: SyncFigures; unchanged: SyncFigures; oneChanged: SyncFigures };
  /** Why the CalDAV part did not run (no radicale on this machine). */
  caldavSkipped?: string;
  ics: { bytes: number; first: SyncFigures; unchanged: SyncFigures };
}

const EVENTS = 5_000;
const SERIES = 500;
/** A single event inside the sync window, moved by another client. */
const CHANGED = SERIES + 4_000;
const DAY = 86_400_000;
const MB = 1024 * 1024;
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const utc = (at: number) =>
  new Date(at)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');

function vevent(i: number, now: number): string[] {
  const lines = ['BEGIN:VEVENT', `UID:bench-${i}@wren`, 'DTSTAMP:20261101T000000Z', `SUMMARY:Meeting ${i}`];
  if (i < SERIES) {
    const day = 1 + (i % 28);
    const hour = String(8 + (i % 10)).padStart(2, '0');
    lines.push(
      `DTSTART;TZID=Europe/Berlin:202611${String(day).padStart(2, '0')}T${hour}0000`,
      `DTEND;TZID=Europe/Berlin:202611${String(day).padStart(2, '0')}T${hour}3000`,
      'RRULE:FREQ=WEEKLY',
    );
  } else {
    // Spread over the window the sync keeps (a day back, 60 days ahead) and beyond it, as old mail would be.
    const start = now - 400 * DAY + Math.floor(((i - SERIES) / (EVENTS - SERIES)) * 470 * DAY);
    lines.push(`DTSTART:${utc(start)}`, `DTEND:${utc(start + 3_600_000)}`, `LOCATION:Room ${i % 40}`);
  }
  return [...lines, 'END:VEVENT'];
}

const calendarText = (events: string[][]) =>
  ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//wren bench//EN', ...events.flat(), 'END:VCALENDAR'].join(
    '\r\n',
  );

/** Runs `sync`, sampling RSS every 5 ms for the peak. */
async function measure(
  sync: () => Promise<{ occurrences: number }>,
  requests: () => number,
): Promise<SyncFigures> {
  gc();
  const heapBefore = process.memoryUsage().heapUsed;
  const rssBefore = process.memoryUsage().rss;
  let peak = rssBefore;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 5);
  const before = requests();
  const cpu = process.cpuUsage();
  const started = performance.now();
  const result = await sync();
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);
  gc();
  return {
    ms,
    cpuMs: (used.user + used.system) / 1000,
    requests: requests() - before,
    occurrences: result.occurrences,
    peakRssMb: (peak - rssBefore) / MB,
    heapKeptMb: (process.memoryUsage().heapUsed - heapBefore) / MB,
  };
}

function counted() {
  let count = 0;
  const fetch: typeof globalThis.fetch = (input, init) => {
    count++;
    return globalThis.fetch(input, init);
  };
  return { fetch, requests: () => count };
}

/** The URL of the object holding `uid` (a calendar-query REPORT, as another client would find it). */
async function firstObject(collection: string, authorization: string, uid: string): Promise<string> {
  const response = await fetch(collection, {
    method: 'REPORT',
    headers: { authorization, depth: '1', 'content-type': 'application/xml' },
    body: `<?xml version="1.0"?><C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop><D:getetag/></D:prop><C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VEVENT"><C:prop-filter name="UID"><C:text-match collation="i;octet">${uid}</C:text-match></C:prop-filter></C:comp-filter></C:comp-filter></C:filter></C:calendar-query>`,
  });
  const href = /<href>([^<]+\.ics)<\/href>/.exec(await response.text())?.[1];
  if (!href) throw new Error(`no object holds ${uid}`);
  return new URL(href, collection).href;
}

async function benchCaldav(dir: string, now: number, events: string[][]) {
  const radicale = await startRadicale();
  try {
    // Another client's import of the whole calendar (one PUT of the collection: Radicale splits it into one
    // object per event, as calendar apps store them).
    const collection = `${radicale.url}/${radicale.user}/bench/`;
    const imported = await globalThis.fetch(collection, {
      method: 'PUT',
      headers: { authorization: radicale.authorization, 'content-type': 'text/calendar; charset=utf-8' },
      body: calendarText(events),
    });
    if (imported.status !== 201) throw new Error(`radicale refused the import: ${imported.status}`);
    const stores = openStoresAt(join(dir, 'caldav.db'));
    const calendar: CalendarConfig = {
      name: 'bench',
      source: { kind: 'caldav', url: collection, username: radicale.user, password: radicale.password },
      syncMs: 15 * 60_000,
      before: [],
    };
    const { fetch, requests } = counted();
    const deps = { store: stores.calendars, fetch, now: () => now, timezone: () => 'America/New_York' };
    const first = await measure(() => syncCalendar(calendar, deps), requests);
    const unchanged = await measure(() => syncCalendar(calendar, deps), requests);
    const moved = vevent(CHANGED, now + 3 * DAY);
    const href = await firstObject(collection, radicale.authorization, `bench-${CHANGED}@wren`);
    await radicale.put(href, calendarText([moved]));
    const oneChanged = await measure(() => syncCalendar(calendar, deps), requests);
    stores.close();
    return { first, unchanged, oneChanged };
  } finally {
    await radicale.stop();
  }
}

async function benchIcs(dir: string, now: number, events: string[][]) {
  const body = calendarText(events);
  const etag = '"bench-1"';
  const server = createServer((request, response) => {
    if (request.headers['if-none-match'] === etag) return response.writeHead(304).end();
    response.writeHead(200, { 'content-type': 'text/calendar', etag }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/bench.ics`;
    const stores = openStoresAt(join(dir, 'ics.db'));
    const calendar: CalendarConfig = {
      name: 'feed',
      source: { kind: 'ics', url },
      syncMs: 15 * 60_000,
      before: [],
    };
    const { fetch, requests } = counted();
    const deps = { store: stores.calendars, fetch, now: () => now, timezone: () => 'America/New_York' };
    const first = await measure(() => syncCalendar(calendar, deps), requests);
    const unchanged = await measure(() => syncCalendar(calendar, deps), requests);
    stores.close();
    return { bytes: Buffer.byteLength(body), first, unchanged };
  } finally {
    server.close();
  }
}

export async function runCalendarBench(): Promise<CalendarBenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'wren-calendar-bench-'));
  const now = Date.UTC(2026, 11, 2, 12);
  const events = Array.from({ length: EVENTS }, (_, i) => vevent(i, now));
  try {
    const ics = await benchIcs(dir, now, events);
    if (!existsSync('/usr/bin/radicale'))
      return { events: EVENTS, caldavSkipped: 'radicale is not installed (apt-get install radicale)', ics };
    return { events: EVENTS, caldav: await benchCaldav(dir, now, events), ics };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await runCalendarBench(), null, 2));
}
