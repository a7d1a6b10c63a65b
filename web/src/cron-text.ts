import { wallTime, weekday } from './format';

const NUMBER = /^\d{1,2}$/;

/**
 * A reminder's cron rule in words for its row ("every weekday at 7:30 AM"), for the shapes the reminder
 * parser writes: daily, weekdays, weekends, given weekdays, a day of the month, every N hours or minutes.
 * Anything else comes back as the cron text itself, so nothing is ever described wrongly.
 */
export function cronText(cron: string): string {
  const fields = cron.trim().split(/\s+/);
  if (fields.length !== 5) return cron;
  const [minute = '', hour = '', dayOfMonth = '', month = '', dayOfWeek = ''] = fields;
  if (month !== '*') return cron;
  const everyHours = /^\*\/(\d{1,2})$/.exec(hour);
  if (NUMBER.test(minute) && everyHours && dayOfMonth === '*' && dayOfWeek === '*') {
    return minute === '0'
      ? `every ${everyHours[1]} hours on the hour`
      : `every ${everyHours[1]} hours at :${minute.padStart(2, '0')}`;
  }
  const everyMinutes = /^\*\/(\d{1,2})$/.exec(minute);
  if (everyMinutes && hour === '*' && dayOfMonth === '*' && dayOfWeek === '*')
    return `every ${everyMinutes[1]} minutes`;
  if (!NUMBER.test(minute) || !NUMBER.test(hour) || Number(hour) > 23 || Number(minute) > 59) return cron;
  const at = wallTime(Number(hour), Number(minute));
  if (dayOfMonth === '*' && dayOfWeek === '*') return `every day at ${at}`;
  if (dayOfMonth === '*') {
    if (dayOfWeek === '1-5') return `every weekday at ${at}`;
    if (dayOfWeek === '0,6' || dayOfWeek === '6,0') return `every weekend day at ${at}`;
    if (/^[0-7](,[0-7])*$/.test(dayOfWeek)) {
      const days = dayOfWeek.split(',').map((day) => weekday(Number(day)));
      return `every ${days.join(', ')} at ${at}`;
    }
    return cron;
  }
  if (dayOfWeek === '*' && NUMBER.test(dayOfMonth) && Number(dayOfMonth) >= 1 && Number(dayOfMonth) <= 31) {
    return `on day ${dayOfMonth} of every month at ${at}`;
  }
  return cron;
}
