import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createCalendarFeature } from '../../src/calendar/calendar-feature.js';
import { parseToolTime, withinHours } from '../../src/calendar/calendar-tools.js';
import type { CalendarConfig } from '../../src/config/calendar-config.js';
import { evaluatePolicy } from '../../src/gate/evaluate-policy.js';
import { defaultGateConfig } from '../../src/gate/gate-config.js';
import { openStoresAt } from '../../src/store/open-stores.js';
import { toolContext } from '../support/tool-context.js';

const HOUR = 3_600_000;
const dir = mkdtempSync(join(tmpdir(), 'wren-calendar-tools-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const calendars: CalendarConfig[] = [
  {
    name: 'work',
    source: {
      kind: 'caldav',
      url: 'https://cloud.example.com/remote.php/dav/calendars/sam/personal/',
      username: 'sam',
      password: 'pw',
    },
    syncMs: 900_000,
    before: [],
  },
];

function feature() {
  const stores = openStoresAt(join(dir, `${Math.random()}.db`));
  const now = Date.UTC(2026, 11, 7, 7); // Monday 08:00 in Berlin
  const day = Date.UTC(2026, 11, 7);
  stores.calendars.apply('work', {
    full: true,
    removed: [],
    state: {},
    objects: [
      {
        href: 'https://cloud.example.com/a.ics',
        occurrences: [
          {
            calendar: 'work',
            uid: 'a',
            occurrence: '',
            href: '',
            start: day + 9 * HOUR,
            end: day + 10 * HOUR,
            allDay: false,
            summary: 'Standup',
            location: 'Room 4',
          },
          {
            calendar: 'work',
            uid: 'b',
            occurrence: '2026-12-07T12:00:00.000Z',
            href: '',
            start: day + 12 * HOUR,
            end: day + 13 * HOUR,
            allDay: false,
            summary: 'Lunch',
            location: '',
          },
        ],
      },
    ],
  });
  const calendar = createCalendarFeature({
    calendars: () => calendars,
    store: stores.calendars,
    timezone: () => 'Europe/Berlin',
    deliverTo: () => [],
    record: () => true,
    wake: () => {},
    now: () => now,
  });
  return { stores, tools: calendar.tools, day };
}

describe('the calendar tools', () => {
  it('reads without asking, and writes only after the owner approves in the default mode', () => {
    const [read, edit] = feature().tools;
    const decide = (tool: typeof read, args: Record<string, unknown>) =>
      evaluatePolicy({
        tool: tool!,
        args,
        assessment: {},
        isOwner: true,
        senderId: 'owner',
        taint: [],
        config: defaultGateConfig(),
      }).action;
    expect(decide(read, { action: 'list' })).toBe('allow');
    expect(decide(edit, { action: 'create', calendar: 'work', title: 'x', start: '2026-12-08T10:00' })).toBe(
      'ask',
    );
    expect(edit!.assess!({ action: 'cancel', calendar: 'work', id: 'a' }, toolContext())).toEqual({
      target: 'work:cancel',
      egress: { target: 'cloud.example.com' },
    });
  });

  it("lists events in the owner's local time and finds free time within working hours", async () => {
    const { tools, stores } = feature();
    const read = tools[0]!;
    const listed = await read.execute(
      { action: 'list', from: '2026-12-07', to: '2026-12-08' },
      toolContext(),
      new AbortController().signal,
    );
    expect(listed.content).toBe(
      [
        '- [work] Mon, 7 Dec 2026 10:00–11:00 Standup @ Room 4 (id: a)',
        '- [work] Mon, 7 Dec 2026 13:00–14:00 Lunch (id: b, occurrence: 2026-12-07T12:00:00.000Z)',
      ].join('\n'),
    );
    expect(listed.taint).toBe('untrusted');
    const free = await read.execute(
      { action: 'free', from: '2026-12-07', to: '2026-12-08', minutes: 90, hours: '09:00-17:00' },
      toolContext(),
      new AbortController().signal,
    );
    expect(free.content).toBe(['- Mon, 7 Dec 2026 11:00–13:00', '- Mon, 7 Dec 2026 14:00–17:00'].join('\n'));
    stores.close();
  });

  it("reads times without an offset as the owner's wall clock, across DST", () => {
    expect(new Date(parseToolTime('2027-03-27T09:00', 'Europe/Berlin')).toISOString()).toBe(
      '2027-03-27T08:00:00.000Z',
    );
    expect(new Date(parseToolTime('2027-03-29T09:00', 'Europe/Berlin')).toISOString()).toBe(
      '2027-03-29T07:00:00.000Z',
    );
    expect(parseToolTime('2027-03-29T09:00Z', 'Europe/Berlin')).toBe(Date.UTC(2027, 2, 29, 9));
    expect(withinHours([{ start: 0, end: 2 * 86_400_000 }], '09:00-10:00', 'UTC', HOUR)).toHaveLength(2);
  });
});
