import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { createApp, type WrenApp } from '../../src/app/create-app.js';
import { type Radicale, startRadicale } from '../support/radicale.js';
import { ScriptedModel } from '../support/scripted-model.js';
import { makeHome, waitFor } from '../support/wren-home.js';

let radicale: Radicale;
beforeAll(async () => {
  radicale = await startRadicale();
});
afterAll(() => radicale?.stop());
const apps: WrenApp[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close(1000);
});

const utc = (at: number) =>
  new Date(at)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');

it('wren start syncs a CalDAV calendar and delivers a "before" notify once to the feed', async () => {
  const collection = await radicale.makeCalendar('app');
  const start = Date.now() + 5 * 60_000;
  await radicale.put(
    `${collection}soon.ics`,
    [
      'BEGIN:VCALENDAR',
      'VERSION:2.0',
      'PRODID:-//Other client//EN',
      'BEGIN:VEVENT',
      'UID:soon-1',
      'DTSTAMP:20260101T000000Z',
      `DTSTART:${utc(start)}`,
      `DTEND:${utc(start + 30 * 60_000)}`,
      'SUMMARY:Dentist',
      'LOCATION:Main St 1',
      'END:VEVENT',
      'END:VCALENDAR',
      '',
    ].join('\r\n'),
  );
  const home = makeHome(
    [
      'agent: {timezone: Europe/Berlin}',
      'calendars:',
      '  - name: personal',
      `    caldav: {url: "${collection}", username: ${radicale.user}, password: "\${CAL_PASS}"}`,
      '    before: 10m',
    ].join('\n'),
    `CAL_PASS=${radicale.password}\n`,
  );
  const wren = await createApp({ home, model: new ScriptedModel(), probeLocalModels: false, env: {} });
  apps.push(wren);
  expect(wren.proactive.start()).toBe(true);
  await waitFor(() => wren.proactive.outbox.feed().some((entry) => entry.title === '📅 In 10 min'));
  const entries = wren.proactive.outbox.feed().filter((entry) => entry.title.startsWith('📅'));
  expect(entries).toHaveLength(1);
  expect(entries[0]!.text).toMatch(/^Dentist at \w{3} \d+ \w{3}, \d\d:\d\d \(Main St 1\)$/);
  wren.proactive.wake();
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(wren.proactive.outbox.feed().filter((entry) => entry.title.startsWith('📅'))).toHaveLength(1);
});
