import { createServer } from 'node:net';
import { join } from 'node:path';
import { DateTime } from 'luxon';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { CalendarOccurrence } from '../../src/store/calendar-repository.js';
import { openStoresAt } from '../../src/store/open-stores.js';
import { screenshot } from '../support/browser.js';
import { startWebGateway, type WebGateway } from '../support/web-gateway.js';

const TOKEN = 'web-agenda-token-0123456789abcdef';
const ZONE = 'Asia/Tokyo';
const PASSWORD = 'caldav-app-password-web-agenda-77';
const ICS_TOKEN = 'private-ics-token-4f3e2d1c0b';
let gateway: WebGateway;
let page: Page;
let icsUrl: string;
let caldavUrl: string;

/** A port nothing listens on: each sync fails at once, so the seeded rows stay as they are. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Midnight today in the owner's zone, plus `days` days and `hours` hours. */
const at = (days: number, hours = 0) =>
  DateTime.now().setZone(ZONE).startOf('day').plus({ days, hours }).toMillis();

function event(calendar: string, uid: string, fields: Partial<CalendarOccurrence>): CalendarOccurrence {
  return {
    calendar,
    uid,
    occurrence: '',
    href: calendar === 'family' ? icsUrl : `${caldavUrl}${uid}.ics`,
    start: 0,
    end: 0,
    allDay: false,
    summary: uid,
    location: '',
    ...fields,
  };
}

/** What a sync would have stored: an all-day event and a timed one today, one three days on. */
function seedCalendars(home: string): void {
  const stores = openStoresAt(join(home, 'wren.db'));
  try {
    stores.calendars.apply('work', {
      full: true,
      objects: [
        {
          href: `${caldavUrl}dentist.ics`,
          occurrences: [
            event('work', 'dentist', {
              start: at(0, 10),
              end: at(0, 10.5),
              summary: 'Dentist appointment',
              location: 'Main Street 5',
            }),
          ],
        },
        {
          href: `${caldavUrl}piano.ics`,
          occurrences: [
            event('work', 'piano', { start: at(3, 17), end: at(3, 18), summary: 'Piano lesson' }),
          ],
        },
      ],
      removed: [],
      state: { syncedAt: Date.now() },
    });
    stores.calendars.apply('family', {
      full: true,
      objects: [
        {
          href: icsUrl,
          occurrences: [
            event('family', 'offsite', { start: at(0), end: at(1), allDay: true, summary: 'Family day' }),
          ],
        },
      ],
      removed: [],
      state: { syncedAt: Date.now() },
    });
  } finally {
    stores.close();
  }
}

beforeAll(async () => {
  const port = await closedPort();
  caldavUrl = `http://127.0.0.1:${port}/remote.php/dav/calendars/sam/work/`;
  icsUrl = `http://127.0.0.1:${port}/ical/${ICS_TOKEN}/basic.ics`;
  gateway = await startWebGateway({
    answer: () => ({ text: 'ok' }),
    token: TOKEN,
    config: [
      'agent:',
      `  timezone: ${ZONE}`,
      'calendars:',
      '  - name: work',
      `    caldav: { url: "${caldavUrl}", username: sam, password: ${PASSWORD} }`,
      '  - name: family',
      `    ics: "${icsUrl}"`,
    ],
  });
  seedCalendars(gateway.home);
  page = await (await gateway.browser.newContext()).newPage();
  const link = /web app: (http:\/\/\S+)/.exec(gateway.wren.stdout())?.[1];
  expect(link).toBeDefined();
  await page.goto(link!);
  await page.getByLabel('Message', { exact: true }).waitFor();
}, 60_000);

afterAll(async () => {
  await gateway?.browser.close();
  await gateway?.wren.stop();
  await gateway?.llm.close();
});

const open = (label: string) =>
  page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: label }).click();

/** The page's text, and its HTML: neither may hold a calendar's password, token or URL. */
async function expectNoSecrets(): Promise<void> {
  const html = await page.content();
  for (const secret of [PASSWORD, ICS_TOKEN, icsUrl, caldavUrl, '/remote.php/'])
    expect(html).not.toContain(secret);
}

it('Agenda shows today: the all-day event first, then the timed one with its time and place', {
  timeout: 60_000,
}, async () => {
  await open('Agenda');
  const today = page.getByRole('region', { name: /^Today, / });
  await today.getByText('Dentist appointment').waitFor();
  const titles = await today.locator('.row-title').allTextContents();
  expect(titles).toEqual(['Family day', 'Dentist appointment']);
  const dentist = today.locator('li', { hasText: 'Dentist appointment' });
  expect(await dentist.textContent()).toContain('Main Street 5');
  // 10:00 in the owner's zone, however this browser writes times.
  expect(await dentist.locator('time').textContent()).toMatch(/^10:00\b.*– 10:30\b/);
  expect(await today.locator('li', { hasText: 'Family day' }).locator('time').textContent()).toBe('All day');
  expect(await page.getByText('Piano lesson').count()).toBe(0);
  await expectNoSecrets();
  await screenshot(page, 'agenda-today');
});

it('Agenda → Week lists the coming seven days, each day with its events', { timeout: 60_000 }, async () => {
  await open('Agenda');
  await page.getByText('Week', { exact: true }).click();
  await page.getByText('Piano lesson').waitFor();
  expect(await page.locator('section.agenda-day').count()).toBe(7);
  const piano = page.getByRole('region').filter({ hasText: 'Piano lesson' });
  expect(await piano.locator('h2').textContent()).not.toMatch(/^(Today|Tomorrow)/);
  expect(await piano.locator('li time').textContent()).toMatch(/^5:00\b|^17:00\b/);
  await page
    .getByRole('region', { name: /^Today, / })
    .getByText('Dentist appointment')
    .waitFor();
  expect(await page.getByText('Nothing planned.').count()).toBe(5);
  await expectNoSecrets();
  await screenshot(page, 'agenda-week');
});

it('Settings lists the calendars of config.yaml by host only, read-only', { timeout: 60_000 }, async () => {
  await open('Settings');
  const section = page.getByRole('region', { name: 'Calendars' });
  await section.getByText('work', { exact: true }).waitFor();
  const rows = section.locator('li.row');
  expect(await rows.count()).toBe(2);
  const work = rows.filter({ hasText: 'work' });
  expect(await work.textContent()).toContain('CalDAV');
  expect(await work.textContent()).toContain('127.0.0.1');
  expect(await work.textContent()).toMatch(/2 events/);
  expect(await rows.filter({ hasText: 'family' }).textContent()).toContain('ICS subscription');
  await section.getByText('configured under').waitFor();
  expect(await section.getByRole('textbox').count()).toBe(0);
  await expectNoSecrets();
});
