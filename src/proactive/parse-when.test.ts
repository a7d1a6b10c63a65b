import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeAt, parseDuration, parseWhen } from './parse-when.js';

const BERLIN = 'Europe/Berlin';
const NEW_YORK = 'America/New_York';
const KOLKATA = 'Asia/Kolkata';
const MINUTE = 60_000;

/** UTC ms from calendar fields, month 1-based. */
function utc(year: number, month: number, day: number, hour: number, minute = 0): number {
  return Date.UTC(year, month - 1, day, hour, minute);
}

/** Mon 2026-11-30 17:00 in Berlin (21:30 in Kolkata, 11:00 in New York). */
const NOW = utc(2026, 11, 30, 16);

function oneOff(text: string, now = NOW, timezone = BERLIN): { at: number; description: string } {
  const result = parseWhen(text, { now, timezone });
  if (!result.ok) throw new Error(result.error);
  if (!('at' in result.when)) throw new Error(`expected a one-off, got cron ${result.when.cron}`);
  return { at: result.when.at, description: result.description };
}

function refusal(text: string, now = NOW, timezone = BERLIN): string {
  const result = parseWhen(text, { now, timezone });
  if (result.ok) throw new Error(`expected a refusal, got ${result.description}`);
  return result.error;
}

// chrono computes in the process's zone; the parser must not care. Node applies a changed process.env.TZ
// at once, and vitest runs this file in its own process, so every case below runs in three system zones.
describe.each([
  ['UTC', 0],
  ['America/Los_Angeles', 480],
  ['Asia/Kolkata', -330],
])('with the process in TZ=%s', (systemZone, januaryOffset) => {
  const saved = process.env.TZ;
  beforeAll(() => {
    process.env.TZ = systemZone;
  });
  afterAll(() => {
    if (saved === undefined) delete process.env.TZ;
    else process.env.TZ = saved;
  });

  it('really runs in that zone', () => {
    expect(new Date(utc(2026, 1, 1, 0)).getTimezoneOffset()).toBe(januaryOffset);
  });

  describe('ISO 8601', () => {
    it.each([
      ['2026-12-24T18:00', BERLIN, utc(2026, 12, 24, 17), 'Thu 2026-12-24 18:00 (Europe/Berlin)'],
      ['2026-12-24 18:00', NEW_YORK, utc(2026, 12, 24, 23), 'Thu 2026-12-24 18:00 (America/New_York)'],
      ['2026-12-24T18:00:00Z', BERLIN, utc(2026, 12, 24, 18), 'Thu 2026-12-24 19:00 (Europe/Berlin)'],
      ['2026-12-24T18:00+01:00', NEW_YORK, utc(2026, 12, 24, 17), 'Thu 2026-12-24 12:00 (America/New_York)'],
      ['2026-12-24t18:00+0530', KOLKATA, utc(2026, 12, 24, 12, 30), 'Thu 2026-12-24 18:00 (Asia/Kolkata)'],
      [
        '2026-12-24',
        KOLKATA,
        utc(2026, 12, 24, 3, 30),
        'Thu 2026-12-24 09:00 (Asia/Kolkata); no time given, 09:00 assumed',
      ],
      ['2027-07-01 09:00', BERLIN, utc(2027, 7, 1, 7), 'Thu 2027-07-01 09:00 (Europe/Berlin)'],
      [
        '2027-01-15 09:00',
        'Australia/Sydney',
        utc(2027, 1, 14, 22),
        'Fri 2027-01-15 09:00 (Australia/Sydney)',
      ],
    ])('%s in %s', (text, timezone, at, description) => {
      expect(oneOff(text, NOW, timezone)).toEqual({ at, description });
    });

    it.each([
      [
        '2027-03-28T02:30',
        BERLIN,
        utc(2027, 3, 28, 1, 30),
        'Sun 2027-03-28 03:30 (Europe/Berlin); 02:30 does not exist that night (DST starts); moved to 03:30',
      ],
      [
        '2027-10-31T02:30',
        BERLIN,
        utc(2027, 10, 31, 0, 30),
        'Sun 2027-10-31 02:30 (Europe/Berlin); 02:30 happens twice that night (DST ends); the first one is used',
      ],
      [
        '2027-03-14 02:30',
        NEW_YORK,
        utc(2027, 3, 14, 7, 30),
        'Sun 2027-03-14 03:30 (America/New_York); 02:30',
      ],
      [
        '2027-11-07 01:30',
        NEW_YORK,
        utc(2027, 11, 7, 5, 30),
        'Sun 2027-11-07 01:30 (America/New_York); 01:30',
      ],
      [
        '2027-10-03 02:15',
        'Australia/Lord_Howe',
        utc(2027, 10, 2, 15, 45),
        'Sun 2027-10-03 02:45 (Australia/Lord_Howe)',
      ],
    ])(
      '%s in %s: a skipped wall time moves forward, a repeated one takes the first',
      (text, zone, at, start) => {
        const result = oneOff(text, NOW, zone);
        expect(result.at).toBe(at);
        expect(result.description.startsWith(start)).toBe(true);
      },
    );
  });

  describe('relative', () => {
    it.each([
      ['in 20 minutes', 20],
      ['in 20m', 20],
      ['20m', 20],
      ['in 2 hours', 120],
      ['in 1h30m', 90],
      ['in 1 hour and 30 minutes', 90],
      ['2 hours from now', 120],
      ['in half an hour', 30],
      ['in an hour', 60],
    ])('%s counts from now', (text, minutes) => {
      expect(oneOff(text).at).toBe(NOW + minutes * MINUTE);
    });

    it('counts days on the calendar, keeping the time of day across a DST change', () => {
      const friday = utc(2027, 3, 26, 9); // Fri 10:00 CET; Sunday the clocks go forward
      expect(oneOff('in 3 days', friday)).toEqual({
        at: utc(2027, 3, 29, 8),
        description: 'Mon 2027-03-29 10:00 (Europe/Berlin)',
      });
      expect(oneOff('in 72 hours', friday).description).toBe('Mon 2027-03-29 11:00 (Europe/Berlin)');
      expect(oneOff('in 1w', friday).at).toBe(utc(2027, 4, 2, 8));
      const saturday = utc(2027, 11, 6, 16); // Sat 12:00 EDT; Sunday the clocks go back
      expect(oneOff('in 1 day', saturday, NEW_YORK).at).toBe(utc(2027, 11, 7, 17));
      expect(oneOff('in 3 days', NOW).at).toBe(utc(2026, 12, 3, 16));
    });

    it('counts hours exactly across a DST change', () => {
      const night = utc(2027, 3, 28, 0, 30); // 01:30 CET, an hour before 02:00 becomes 03:00
      expect(oneOff('in 2 hours', night)).toEqual({
        at: night + 120 * MINUTE,
        description: 'Sun 2027-03-28 04:30 (Europe/Berlin)',
      });
    });
  });

  describe('natural one-offs', () => {
    it.each([
      ['tomorrow at 9', utc(2026, 12, 1, 8), 'Tue 2026-12-01 09:00 (Europe/Berlin)'],
      ['Tomorrow 9am.', utc(2026, 12, 1, 8), 'Tue 2026-12-01 09:00 (Europe/Berlin)'],
      ['9pm tomorrow', utc(2026, 12, 1, 20), 'Tue 2026-12-01 21:00 (Europe/Berlin)'],
      ['at 18:30', utc(2026, 11, 30, 17, 30), 'Mon 2026-11-30 18:30 (Europe/Berlin)'],
      ['at 16:30', utc(2026, 12, 1, 15, 30), 'Tue 2026-12-01 16:30 (Europe/Berlin)'],
      ['tonight at 8', utc(2026, 11, 30, 19), 'Mon 2026-11-30 20:00 (Europe/Berlin)'],
      ['next monday 10:00', utc(2026, 12, 7, 9), 'Mon 2026-12-07 10:00 (Europe/Berlin)'],
      ['friday 17:00', utc(2026, 12, 4, 16), 'Fri 2026-12-04 17:00 (Europe/Berlin)'],
      ['on 24 dec at 6pm', utc(2026, 12, 24, 17), 'Thu 2026-12-24 18:00 (Europe/Berlin)'],
      ['noon', utc(2026, 12, 1, 11), 'Tue 2026-12-01 12:00 (Europe/Berlin)'],
      ['midnight', utc(2026, 11, 30, 23), 'Tue 2026-12-01 00:00 (Europe/Berlin)'],
      [
        'in the evening',
        utc(2026, 11, 30, 17),
        'Mon 2026-11-30 18:00 (Europe/Berlin); "evening" taken as 18:00',
      ],
      [
        'tomorrow evening',
        utc(2026, 12, 1, 17),
        'Tue 2026-12-01 18:00 (Europe/Berlin); "evening" taken as 18:00',
      ],
      [
        'tomorrow morning',
        utc(2026, 12, 1, 8),
        'Tue 2026-12-01 09:00 (Europe/Berlin); "morning" taken as 09:00',
      ],
      ['tonight', utc(2026, 11, 30, 19), 'Mon 2026-11-30 20:00 (Europe/Berlin); "tonight" taken as 20:00'],
      ['tomorrow', utc(2026, 12, 1, 8), 'Tue 2026-12-01 09:00 (Europe/Berlin); no time given, 09:00 assumed'],
      ['at 9am UTC', utc(2026, 12, 1, 9), 'Tue 2026-12-01 10:00 (Europe/Berlin)'],
    ])('%s', (text, at, description) => {
      expect(oneOff(text)).toEqual({ at, description });
    });

    it('reads the wall clock of the owner, not of the process', () => {
      expect(oneOff('at 18:30', NOW, KOLKATA).at).toBe(utc(2026, 12, 1, 13)); // 21:30 there: tomorrow
      expect(oneOff('tomorrow at 9', NOW, KOLKATA).at).toBe(utc(2026, 12, 1, 3, 30));
      expect(oneOff('tomorrow at 9', NOW, NEW_YORK).at).toBe(utc(2026, 12, 1, 14));
      expect(oneOff('tomorrow at 9', utc(2001, 1, 1, 12)).at).toBe(utc(2001, 1, 2, 8)); // no clock involved
    });

    it('resolves across DST changes in the owner zone', () => {
      const springEve = utc(2027, 3, 13, 17); // Sat 12:00 EST in New York
      expect(oneOff('tomorrow at 10', springEve, NEW_YORK).at).toBe(utc(2027, 3, 14, 14));
      const skipped = oneOff('tomorrow at 2:30', springEve, NEW_YORK);
      expect(skipped.at).toBe(utc(2027, 3, 14, 7, 30));
      expect(skipped.description).toContain('02:30 does not exist that night (DST starts); moved to 03:30');
      const autumnEve = utc(2027, 10, 30, 10); // Sat 12:00 CEST in Berlin
      expect(oneOff('tomorrow at 2:30', autumnEve).at).toBe(utc(2027, 10, 31, 0, 30));
      expect(oneOff('tomorrow at 9', autumnEve).at).toBe(utc(2027, 10, 31, 8));
    });

    it('works when the owner wall clock does not exist in the process zone', () => {
      const now = utc(2027, 3, 14, 1, 30); // 02:30 in Berlin, inside Los Angeles' spring-forward gap
      expect(oneOff('tomorrow at 9', now).at).toBe(utc(2027, 3, 15, 8));
      expect(oneOff('at 3am', now).at).toBe(utc(2027, 3, 14, 2));
      expect(oneOff('at 18:30', now).at).toBe(utc(2027, 3, 14, 17, 30));
      expect(oneOff('in the evening', now).at).toBe(utc(2027, 3, 14, 17));
    });

    it('rolls a passed weekday a week and a passed date a year on', () => {
      const fridayEvening = utc(2026, 12, 4, 17); // Fri 18:00
      expect(oneOff('friday 17:00', fridayEvening).at).toBe(utc(2026, 12, 11, 16));
      expect(oneOff('friday', fridayEvening).at).toBe(utc(2026, 12, 11, 8));
      expect(oneOff('on 24 dec', utc(2026, 12, 24, 9)).at).toBe(utc(2027, 12, 24, 8));
    });
  });

  describe('refusals', () => {
    it.each([
      ['', NOW, /No time given/],
      ['   ', NOW, /No time given/],
      ['yesterday at 9', NOW, /not in the future \(it means Sun 2026-11-29 09:00/],
      ['2020-01-01T10:00', NOW, /not in the future/],
      ['2026-11-30T16:59', NOW, /not in the future/],
      ['today', NOW, /not in the future/],
      ['this evening', utc(2026, 11, 30, 20), /not in the future/],
      ['now', NOW, /not in the future/],
      ['banana', NOW, /Could not understand "banana"/],
      ['tomorrow banana', NOW, /Understood "tomorrow" but not "banana"/],
      ['tomorrow at 9 and friday at 10', NOW, /names 2 times/],
      ['2026-02-30', NOW, /not a real date/],
      ['every 0 minutes', NOW, /at least 1 minute/],
      ['every 7 minutes', NOW, /does not divide the hour/],
      ['every 5 hours', NOW, /does not divide the day/],
      ['every 24 hours', NOW, /once a day/],
      ['every 0 d', NOW, /at least 1 day/],
      ['every 2 days', NOW, /cannot be expressed as a cron/],
      ['every other tuesday', NOW, /Could not read "every other tuesday"/],
      ['every day at 25', NOW, /"25" is not a time of day/],
      ['weekly', NOW, /Say which day/],
      ['monthly', NOW, /Say which day of the month/],
      ['every month on the 32nd', NOW, /no day 32/],
      ['yearly feb 30', NOW, /February has no day 30/],
      ['0 9 * * 8', NOW, /Not a valid cron expression "0 9 \* \* 8": .*dayOfWeek/],
      ['0 61 * * *', NOW, /Not a valid cron expression/],
      ['0 9 * *', NOW, /has 4 fields, not 5/],
      ['0 0 9 * * *', NOW, /has 6 fields, not 5/],
      ['@sometimes', NOW, /Unknown cron macro/],
      ['0 9 30 2 *', NOW, /never runs/],
    ])('%j', (text, now, reason) => {
      const error = refusal(text, now);
      expect(error).toMatch(reason);
      expect(error).toMatch(/(Try|e\.g\.|use|Say which)[^"]*"[^"]+"/); // names a form that works
    });

    it('refuses an unknown time zone', () => {
      expect(refusal('in 20m', NOW, 'Mars/Olympus')).toMatch(
        /Unknown time zone "Mars\/Olympus".*"Europe\/Berlin"/,
      );
    });
  });
});

describe('parseDuration', () => {
  it.each([
    ['20m', 20 * MINUTE],
    ['90s', 90_000],
    ['2h', 120 * MINUTE],
    ['1h30m', 90 * MINUTE],
    ['1h 30m', 90 * MINUTE],
    ['1.5h', 90 * MINUTE],
    ['3d', 3 * 86_400_000],
    ['1w', 7 * 86_400_000],
    ['2 hours 15 minutes', 135 * MINUTE],
    ['an hour', 60 * MINUTE],
    ['half an hour', 30 * MINUTE],
    [' 20 MIN ', 20 * MINUTE],
  ])('%j → %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', '20', 'm', '0m', '-5m', '20 parsecs', 'tomorrow', '1h30', '99999999999999999999w'])(
    '%j is not a duration',
    (text) => {
      expect(parseDuration(text)).toBeUndefined();
    },
  );
});

describe('describeAt', () => {
  it('formats an instant on the wall clock of a zone', () => {
    expect(describeAt(utc(2026, 12, 1, 8), BERLIN)).toBe('Tue 2026-12-01 09:00 (Europe/Berlin)');
    expect(describeAt(utc(2026, 12, 1, 8), KOLKATA)).toBe('Tue 2026-12-01 13:30 (Asia/Kolkata)');
    expect(describeAt(utc(2027, 7, 1, 22, 5), BERLIN)).toBe('Fri 2027-07-02 00:05 (Europe/Berlin)');
  });

  it('throws a RangeError on an unknown zone', () => {
    expect(() => describeAt(0, 'Mars/Olympus')).toThrow(RangeError);
  });
});
