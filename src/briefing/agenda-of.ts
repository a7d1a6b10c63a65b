import type { CalendarStore } from '../store/ports.js';
import type { AgendaItem } from './gather-briefing.js';

/** The stored occurrences of every calendar overlapping [from, to), as the briefing lists them. */
export function agendaOf(calendars: CalendarStore, from: number, to: number): AgendaItem[] {
  return calendars.between(from, to).map((occurrence) => ({
    start: occurrence.start,
    end: occurrence.end,
    allDay: occurrence.allDay,
    title: occurrence.summary.slice(0, 200),
    ...(occurrence.location ? { location: occurrence.location.slice(0, 200) } : {}),
    calendar: occurrence.calendar,
  }));
}
