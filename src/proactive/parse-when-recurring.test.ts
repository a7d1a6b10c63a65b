import { describe, expect, it } from 'vitest';
import { nextOccurrence } from '../util/schedule.js';
import { parseWhen, type When } from './parse-when.js';

const BERLIN = 'Europe/Berlin';
const NEW_YORK = 'America/New_York';

/** Mon 2026-11-30 17:00 in Berlin. */
const NOW = Date.UTC(2026, 10, 30, 16);

function recurring(text: string, timezone = BERLIN, now = NOW): { when: When; description: string } {
  const result = parseWhen(text, { now, timezone });
  if (!result.ok) throw new Error(result.error);
  return { when: result.when, description: result.description };
}

describe('parseWhen: repeating schedules become 5-field crons in the owner zone', () => {
  it.each([
    ['every day at 8', '0 8 * * *', 'every day at 08:00'],
    ['daily 08:00', '0 8 * * *', 'every day at 08:00'],
    ['Every day at 6:30 pm', '30 18 * * *', 'every day at 18:30'],
    ['everyday 7', '0 7 * * *', 'every day at 07:00'],
    ['every morning', '0 9 * * *', 'every day at 09:00'],
    ['every day in the evening', '0 18 * * *', 'every day at 18:00'],
    ['every weekday at 7:30', '30 7 * * 1-5', 'every weekday at 07:30'],
    ['weekdays 7:30', '30 7 * * 1-5', 'every weekday at 07:30'],
    ['every mon-fri at 8', '0 8 * * 1-5', 'every weekday at 08:00'],
    ['every monday at 9', '0 9 * * 1', 'every Monday at 09:00'],
    ['weekly mon 09:00', '0 9 * * 1', 'every Monday at 09:00'],
    ['mondays 9am', '0 9 * * 1', 'every Monday at 09:00'],
    ['every mon, wed and fri at 6:30pm', '30 18 * * 1,3,5', 'every Monday, Wednesday and Friday at 18:30'],
    ['every sunday evening', '0 18 * * 0', 'every Sunday at 18:00'],
    ['every weekend at 10', '0 10 * * 0,6', 'every Saturday and Sunday at 10:00'],
    ['every 2 hours', '0 */2 * * *', 'every 2 hours on the hour'],
    ['every 120 minutes', '0 */2 * * *', 'every 2 hours on the hour'],
    ['every hour', '0 * * * *', 'every hour on the hour'],
    ['hourly', '0 * * * *', 'every hour on the hour'],
    ['every 15 minutes', '*/15 * * * *', 'every 15 minutes'],
    ['every 15m', '*/15 * * * *', 'every 15 minutes'],
    ['every 0 8 * * 1-5', '0 8 * * 1-5', 'cron "0 8 * * 1-5"'],
    ['every @daily', '0 0 * * *', 'every day at 00:00'],
    ['every half hour', '*/30 * * * *', 'every 30 minutes'],
    ['every minute', '* * * * *', 'every minute'],
    ['monthly 1 09:00', '0 9 1 * *', 'every month on the 1st at 09:00'],
    ['every month on the 1st at 9', '0 9 1 * *', 'every month on the 1st at 09:00'],
    ['on the 15th of every month at 18:00', '0 18 15 * *', 'every month on the 15th at 18:00'],
    ['the last day of every month at 18:00', '0 18 L * *', 'every month on the last day at 18:00'],
    [
      'monthly on the 31st',
      '0 9 31 * *',
      'every month on the 31st at 09:00, months without a 31st are skipped',
    ],
    ['every year on 24 dec at 6pm', '0 18 24 12 *', 'every year on 24 Dec at 18:00'],
    ['yearly march 3rd', '0 9 3 3 *', 'every year on 3 Mar at 09:00'],
    ['0 9 * * 1-5', '0 9 * * 1-5', 'cron "0 9 * * 1-5"'],
    ['30 8 * * MON-FRI', '30 8 * * MON-FRI', 'cron "30 8 * * MON-FRI"'],
    ['@daily', '0 0 * * *', 'every day at 00:00'],
    ['@hourly', '0 * * * *', 'every hour on the hour'],
  ])('%j → %s', (text, cron, description) => {
    expect(recurring(text).when).toEqual({
      cron,
      timezone: BERLIN,
      description: `${description} (${BERLIN})`,
    });
  });

  it('keeps the owner zone in the schedule', () => {
    expect(recurring('weekdays 7:30', NEW_YORK).when).toEqual({
      cron: '30 7 * * 1-5',
      timezone: NEW_YORK,
      description: 'every weekday at 07:30 (America/New_York)',
    });
  });

  it('confirms with the next run and says what it assumed', () => {
    expect(recurring('every weekday at 7:30').description).toBe(
      'every weekday at 07:30 (Europe/Berlin); next Tue 2026-12-01 07:30',
    );
    expect(recurring('every monday').description).toBe(
      'every Monday at 09:00 (Europe/Berlin); no time given, 09:00 assumed; next Mon 2026-12-07 09:00',
    );
  });

  it('runs at the same wall time across a DST change', () => {
    const saturday = Date.UTC(2027, 2, 27, 11); // Sat 12:00 CET; Sunday the clocks go forward
    const { when, description } = recurring('every day at 9', BERLIN, saturday);
    expect(description).toBe('every day at 09:00 (Europe/Berlin); next Sun 2027-03-28 09:00');
    if (!('cron' in when)) throw new Error('expected a cron');
    expect(nextOccurrence(when, saturday)).toBe(Date.UTC(2027, 2, 28, 7));
    const sunday = nextOccurrence(when, saturday) ?? 0;
    expect(nextOccurrence(when, sunday)).toBe(Date.UTC(2027, 2, 29, 7));
  });
});
