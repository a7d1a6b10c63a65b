import { dayOf, shortTime, timeOfDay } from '../format';
import type { CalendarAgenda, CalendarEvent } from '../types';

const DAY_MS = 86_400_000;
/** Noon-ish of each day: a DST change (±1 h) never moves it into the next or previous day. */
const MIDDAY_MS = 12 * 3_600_000;

/** One day of the agenda in the owner's zone: `key` is `YYYY-MM-DD`, `at` an instant inside it. */
export interface AgendaDay {
  key: string;
  at: number;
  events: CalendarEvent[];
}

/** The days an event covers, as `YYYY-MM-DD` in the owner's zone (its end is exclusive). */
function coversDay(event: CalendarEvent, day: string): boolean {
  const last = dayOf(Math.max(event.start, event.end - 1));
  return dayOf(event.start) <= day && day <= last;
}

/** All-day events first, then by start, then by title. */
function inDayOrder(a: CalendarEvent, b: CalendarEvent): number {
  return Number(b.allDay) - Number(a.allDay) || a.start - b.start || a.summary.localeCompare(b.summary);
}

/**
 * Every day of the agenda's range in the owner's zone (also the days with nothing planned), each with the
 * events that cover it: an event over midnight (or a multi-day all-day one) is listed on each of its days.
 */
export function agendaDays(agenda: CalendarAgenda): AgendaDay[] {
  const count = Math.max(1, Math.round((agenda.to - agenda.from) / DAY_MS));
  const days: AgendaDay[] = [];
  for (let index = 0; index < count; index++) {
    const at = agenda.from + index * DAY_MS + MIDDAY_MS;
    const key = dayOf(at);
    if (days.some((day) => day.key === key)) continue;
    days.push({
      key,
      at,
      events: agenda.occurrences.filter((event) => coversDay(event, key)).sort(inDayOrder),
    });
  }
  return days;
}

/**
 * When an event happens, as seen from `day`: "All day", "9:00 AM – 9:30 AM", "11:30 PM – Tue 12:30 AM" for
 * one that ends on a later day, "until 12:30 AM" on the day it ends after starting earlier.
 */
export function eventTimes(event: CalendarEvent, day: string): string {
  if (event.allDay) return 'All day';
  const startsToday = dayOf(event.start) === day;
  const endsToday = dayOf(Math.max(event.start, event.end - 1)) === day;
  if (startsToday) {
    if (event.end <= event.start) return timeOfDay(event.start);
    return `${timeOfDay(event.start)} – ${endsToday ? timeOfDay(event.end) : shortTime(event.end, event.start)}`;
  }
  return endsToday ? `until ${timeOfDay(event.end)}` : 'All day (continues)';
}
