import { describe, expect, it } from 'vitest';
import { cancelInIcs, moveInIcs } from './edit-ics.js';
import { expandEvents } from './expand-events.js';

const ZONE = 'America/New_York';
const STAMP = Date.UTC(2026, 11, 1);

function ics(...vevents: string[][]): string {
  return [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//test//EN',
    ...vevents.flatMap((lines) => ['BEGIN:VEVENT', 'DTSTAMP:20261101T000000Z', ...lines, 'END:VEVENT']),
    'END:VCALENDAR',
  ].join('\r\n');
}

const starts = (text: string) =>
  expandEvents(text, {
    calendar: 'c',
    href: '/c/e.ics',
    from: Date.UTC(2026, 10, 1),
    to: Date.UTC(2027, 1, 1),
    timezone: ZONE,
  }).map((o) => [o.occurrence, new Date(o.start).toISOString(), new Date(o.end).toISOString()]);

const weeklyUtc = ics([
  'UID:w',
  'SUMMARY:Sync',
  'DTSTART:20261207T150000Z',
  'DTEND:20261207T153000Z',
  'RRULE:FREQ=WEEKLY;COUNT=3',
]);

describe('moveInIcs and cancelInIcs', () => {
  it('moves a single event, keeping its length unless an end is given', () => {
    const single = ics(['UID:s', 'SUMMARY:Dentist', 'DTSTART:20261207T150000Z', 'DTEND:20261207T160000Z']);
    const moved = moveInIcs(single, { uid: 's', start: Date.UTC(2026, 11, 8, 9), stamp: STAMP, zone: ZONE });
    expect(starts(moved)).toEqual([['', '2026-12-08T09:00:00.000Z', '2026-12-08T10:00:00.000Z']]);
    expect(moved).toContain('SEQUENCE:1');
    const longer = moveInIcs(single, {
      uid: 's',
      start: Date.UTC(2026, 11, 8, 9),
      end: Date.UTC(2026, 11, 8, 12),
      stamp: STAMP,
      zone: ZONE,
    });
    expect(starts(longer)[0]?.[2]).toBe('2026-12-08T12:00:00.000Z');
    expect(() =>
      moveInIcs(single, {
        uid: 's',
        start: Date.UTC(2026, 11, 8, 9),
        end: Date.UTC(2026, 11, 8, 8),
        stamp: STAMP,
        zone: ZONE,
      }),
    ).toThrow('The event must end after it starts.');
    expect(cancelInIcs(single, { uid: 's', occurrence: '', stamp: STAMP, zone: ZONE })).toBeUndefined();
  });

  it('moves one occurrence of a UTC series, then moves the same occurrence again without a second exception', () => {
    const once = moveInIcs(weeklyUtc, {
      uid: 'w',
      occurrence: '2026-12-14T15:00:00.000Z',
      start: Date.UTC(2026, 11, 15, 18),
      stamp: STAMP,
      zone: ZONE,
    });
    expect(once).toContain('RECURRENCE-ID:20261214T150000Z');
    const twice = moveInIcs(once, {
      uid: 'w',
      occurrence: '2026-12-14T15:00:00.000Z',
      start: Date.UTC(2026, 11, 16, 18),
      stamp: STAMP,
      zone: ZONE,
    });
    expect(twice.match(/RECURRENCE-ID/g)).toHaveLength(1);
    expect(starts(twice)).toEqual([
      ['2026-12-07T15:00:00.000Z', '2026-12-07T15:00:00.000Z', '2026-12-07T15:30:00.000Z'],
      ['2026-12-14T15:00:00.000Z', '2026-12-16T18:00:00.000Z', '2026-12-16T18:30:00.000Z'],
      ['2026-12-21T15:00:00.000Z', '2026-12-21T15:00:00.000Z', '2026-12-21T15:30:00.000Z'],
    ]);
  });

  it('cancels a moved occurrence: its exception goes and the series gets an EXDATE', () => {
    const moved = moveInIcs(weeklyUtc, {
      uid: 'w',
      occurrence: '2026-12-14T15:00:00.000Z',
      start: Date.UTC(2026, 11, 15, 18),
      stamp: STAMP,
      zone: ZONE,
    });
    const cancelled = cancelInIcs(moved, {
      uid: 'w',
      occurrence: '2026-12-14T15:00:00.000Z',
      stamp: STAMP,
      zone: ZONE,
    });
    expect(cancelled).toBeDefined();
    expect(cancelled).not.toContain('RECURRENCE-ID');
    expect(cancelled).toContain('EXDATE:20261214T150000Z');
    expect(starts(cancelled ?? '').map(([occurrence]) => occurrence)).toEqual([
      '2026-12-07T15:00:00.000Z',
      '2026-12-21T15:00:00.000Z',
    ]);
  });

  it('writes an all-day series exception and EXDATE as dates', () => {
    const daily = ics([
      'UID:d',
      'SUMMARY:Holiday',
      'DTSTART;VALUE=DATE:20261224',
      'DTEND;VALUE=DATE:20261225',
      'RRULE:FREQ=DAILY;COUNT=3',
    ]);
    const [first, second] = starts(daily).map(([occurrence]) => occurrence ?? '');
    const cancelled = cancelInIcs(daily, { uid: 'd', occurrence: second ?? '', stamp: STAMP, zone: ZONE });
    expect(cancelled).toContain('EXDATE;VALUE=DATE:20261225');
    expect(starts(cancelled ?? '')).toHaveLength(2);
    const moved = moveInIcs(daily, {
      uid: 'd',
      occurrence: first ?? '',
      start: Date.UTC(2026, 11, 28, 15),
      stamp: STAMP,
      zone: ZONE,
    });
    expect(moved).toContain('RECURRENCE-ID;VALUE=DATE:20261224');
  });

  it('refuses a recurring move without an occurrence, an occurrence the series lacks, and a malformed one', () => {
    const move = (occurrence?: string) =>
      moveInIcs(weeklyUtc, {
        uid: 'w',
        ...(occurrence !== undefined ? { occurrence } : {}),
        start: Date.UTC(2026, 11, 15, 18),
        stamp: STAMP,
        zone: ZONE,
      });
    expect(() => move()).toThrow(/repeats: name the occurrence/);
    expect(() => move('2026-12-14T16:00:00.000Z')).toThrow(
      '"w" has no occurrence at 2026-12-14T16:00:00.000Z.',
    );
    expect(() => move('2027-06-01T15:00:00.000Z')).toThrow(/has no occurrence/);
    expect(() => move('next tuesday')).toThrow(
      '"next tuesday" is not an occurrence; copy it from calendar list.',
    );
    expect(() =>
      cancelInIcs(weeklyUtc, { uid: 'w', occurrence: '2026-12-15T15:00:00.000Z', stamp: STAMP, zone: ZONE }),
    ).toThrow(/has no occurrence/);
    expect(() => moveInIcs(weeklyUtc, { uid: 'other', start: 0, stamp: STAMP, zone: ZONE })).toThrow(
      'The event "other" is gone from the server.',
    );
  });

  it('stops searching an endless rule once past the occurrence', () => {
    const endless = ics(['UID:e', 'SUMMARY:Tick', 'DTSTART:20261201T000000Z', 'RRULE:FREQ=MINUTELY']);
    expect(() =>
      cancelInIcs(endless, { uid: 'e', occurrence: '2026-12-01T00:00:30.000Z', stamp: STAMP, zone: ZONE }),
    ).toThrow(/has no occurrence/);
    const cancelled = cancelInIcs(endless, {
      uid: 'e',
      occurrence: '2026-12-01T00:05:00.000Z',
      stamp: STAMP,
      zone: ZONE,
    });
    expect(cancelled).toContain('EXDATE:20261201T000500Z');
  });
});
