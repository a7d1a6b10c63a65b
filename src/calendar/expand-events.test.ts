import { describe, expect, it } from 'vitest';
import { expandEvents } from './expand-events.js';

const calendar = (...vevents: string[][]) =>
  [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//test//EN',
    ...vevents.flatMap((lines) => ['BEGIN:VEVENT', 'DTSTAMP:20261101T000000Z', ...lines, 'END:VEVENT']),
    'END:VCALENDAR',
  ].join('\r\n');

const options = {
  calendar: 'c',
  href: '/feed.ics',
  from: Date.UTC(2026, 11, 1),
  to: Date.UTC(2026, 11, 31),
  timezone: 'Europe/Berlin',
};

describe('expandEvents', () => {
  it('applies an exception only to the series with its UID, even when two series share the times', () => {
    const text = calendar(
      [
        'UID:a',
        'SUMMARY:A',
        'DTSTART:20261207T090000Z',
        'DTEND:20261207T100000Z',
        'RRULE:FREQ=WEEKLY;COUNT=2',
      ],
      [
        'UID:b',
        'SUMMARY:B',
        'DTSTART:20261207T090000Z',
        'DTEND:20261207T100000Z',
        'RRULE:FREQ=WEEKLY;COUNT=2',
      ],
      [
        'UID:b',
        'SUMMARY:B moved',
        'RECURRENCE-ID:20261214T090000Z',
        'DTSTART:20261215T120000Z',
        'DTEND:20261215T130000Z',
      ],
    );
    const seen = expandEvents(text, options).map((o) => `${o.summary} ${new Date(o.start).toISOString()}`);
    expect(seen.sort()).toEqual([
      'A 2026-12-07T09:00:00.000Z',
      'A 2026-12-14T09:00:00.000Z',
      'B 2026-12-07T09:00:00.000Z',
      'B moved 2026-12-15T12:00:00.000Z',
    ]);
  });

  it('expands thousands of weekly series in their own zone, across the window', () => {
    const series = Array.from({ length: 300 }, (_, i) => [
      `UID:s${i}`,
      `SUMMARY:S${i}`,
      'DTSTART;TZID=America/New_York:20261201T090000',
      'DTEND;TZID=America/New_York:20261201T093000',
      'RRULE:FREQ=WEEKLY',
    ]);
    const occurrences = expandEvents(calendar(...series), options);
    // 1, 8, 15, 22, 29 December, 09:00 in New York = 14:00 UTC.
    expect(occurrences).toHaveLength(300 * 5);
    expect(new Set(occurrences.map((o) => new Date(o.start).toISOString().slice(11)))).toEqual(
      new Set(['14:00:00.000Z']),
    );
  });
});
