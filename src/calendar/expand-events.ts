import ICAL from 'ical.js';
import { fromWallClock } from '../proactive/wall-clock.js';
import type { CalendarOccurrence } from '../store/calendar-repository.js';
import { isTimeZone } from '../util/time-zone.js';

/** How far around "now" occurrences are expanded and stored. */
export const WINDOW_BACK_MS = 24 * 60 * 60 * 1000;
export const WINDOW_AHEAD_MS = 60 * 24 * 60 * 60 * 1000;
/** A runaway rule (every minute for ever) stops after this many steps, per event. */
const MAX_STEPS = 200_000;

export interface ExpandOptions {
  calendar: string;
  href: string;
  /** The window [from, to) occurrences must overlap, Unix ms. */
  from: number;
  to: number;
  /** The owner's zone: floating times and all-day dates are read in it. */
  timezone: string;
}

type IcalTime = InstanceType<typeof ICAL.Time>;
type IcalEvent = InstanceType<typeof ICAL.Event>;

/**
 * The instant an iCalendar time stands for. `tzid` is the TZID its property named (occurrences ical.js
 * generates lose it when the file carried no VTIMEZONE). UTC times are plain; an IANA TZID is read with the
 * system's zone database (right across DST whatever VTIMEZONE the file carried or left out); another TZID
 * with its VTIMEZONE registered is converted by ical.js; floating times and all-day dates are the owner's.
 */
export function instantOf(time: IcalTime, tzid: string | undefined, ownerZone: string): number {
  if (time.isDate) return fromWallClock(Date.UTC(time.year, time.month - 1, time.day), ownerZone).at;
  const wall = Date.UTC(time.year, time.month - 1, time.day, time.hour, time.minute, time.second);
  const zone = time.zone?.tzid;
  if (zone === 'UTC' || zone === 'Z') return wall;
  const name = tzid ?? (zone !== 'floating' ? zone : undefined);
  if (name && isTimeZone(name)) return fromWallClock(wall, name).at;
  if (zone && zone !== 'floating') return time.toUnixTime() * 1000;
  return fromWallClock(wall, ownerZone).at;
}

/** The TZID parameter of an event's DTSTART, if any. */
function tzidOf(event: IcalEvent): string | undefined {
  const tzid = event.component.getFirstProperty('dtstart')?.getParameter('tzid');
  return typeof tzid === 'string' && tzid ? tzid : undefined;
}

/** Registers the file's VTIMEZONEs so ical.js can convert TZIDs that are not IANA names. */
export function registerZones(root: InstanceType<typeof ICAL.Component>): void {
  for (const vtimezone of root.getAllSubcomponents('vtimezone')) {
    const tzid = vtimezone.getFirstPropertyValue('tzid');
    if (typeof tzid === 'string' && !ICAL.TimezoneService.has(tzid)) ICAL.TimezoneService.register(vtimezone);
  }
}

/** The TZID parameter of an exception's RECURRENCE-ID, if any. */
function recurrenceTzidOf(event: IcalEvent): string | undefined {
  const tzid = event.component.getFirstProperty('recurrence-id')?.getParameter('tzid');
  return typeof tzid === 'string' && tzid ? tzid : undefined;
}

function occurrenceOf(
  event: IcalEvent,
  start: IcalTime,
  end: IcalTime,
  recurrenceId: IcalTime | undefined,
  options: ExpandOptions,
  /** The zone the recurrence id is written in (the series' DTSTART zone, or RECURRENCE-ID's TZID). */
  recurrenceTzid?: string,
): CalendarOccurrence {
  const tzid = tzidOf(event) ?? (start.zone?.tzid !== 'floating' ? start.zone?.tzid : undefined);
  const startMs = instantOf(start, tzid, options.timezone);
  const endMs = Math.max(startMs, instantOf(end, tzid, options.timezone));
  return {
    calendar: options.calendar,
    uid: event.uid,
    occurrence: recurrenceId
      ? new Date(instantOf(recurrenceId, recurrenceTzid ?? tzid, options.timezone)).toISOString()
      : '',
    href: options.href,
    start: startMs,
    end: endMs,
    allDay: start.isDate,
    summary: (event.summary ?? '').trim() || '(no title)',
    location: (event.location ?? '').trim(),
    ...(tzid && tzid !== 'floating' && tzid !== 'UTC' && tzid !== 'Z' ? { timezone: tzid } : {}),
  };
}

const cancelled = (event: IcalEvent) =>
  String(event.component.getFirstPropertyValue('status') ?? '').toUpperCase() === 'CANCELLED';

/**
 * Every occurrence of the VEVENTs in `ics` that overlaps the window: single events, recurring ones (RRULE,
 * RDATE, EXDATE) expanded in their own zone, RECURRENCE-ID exceptions replacing the occurrence they name
 * (or removing it when cancelled). Times are instants (UTC ms), right across DST changes.
 * @throws Error when the text is not iCalendar.
 */
export function expandEvents(ics: string, options: ExpandOptions): CalendarOccurrence[] {
  const root = new ICAL.Component(ICAL.parse(ics));
  registerZones(root);
  const masters = new Map<string, IcalEvent>();
  const exceptions: IcalEvent[] = [];
  for (const vevent of root.getAllSubcomponents('vevent')) {
    // Exceptions are related below, by UID: left to itself, ical.js relates every RECURRENCE-ID in the
    // file to every event (whatever its UID), scanning the whole file per event — quadratic in a big feed.
    const event = new ICAL.Event(vevent, { exceptions: [] });
    if (!event.uid || !vevent.getFirstProperty('dtstart')) continue;
    if (event.isRecurrenceException()) exceptions.push(event);
    else masters.set(event.uid, event);
  }
  for (const exception of exceptions) masters.get(exception.uid)?.relateException(exception);
  const occurrences: CalendarOccurrence[] = [];
  const overlaps = (o: CalendarOccurrence) =>
    o.start < options.to && (o.end > options.from || (o.end === o.start && o.start >= options.from));
  for (const event of masters.values()) {
    if (cancelled(event)) continue;
    if (!event.isRecurring()) {
      const single = occurrenceOf(event, event.startDate, event.endDate, undefined, options);
      if (overlaps(single)) occurrences.push(single);
      continue;
    }
    const seen = new Set<string>();
    const iterator = event.iterator();
    for (let step = 0, next = iterator.next(); next && step < MAX_STEPS; next = iterator.next(), step++) {
      // Recurrence ids run in order: past the window (by more than an exception may move), stop.
      if (instantOf(next, tzidOf(event), options.timezone) >= options.to + WINDOW_BACK_MS) break;
      const details = event.getOccurrenceDetails(next);
      seen.add(details.recurrenceId.toString());
      if (cancelled(details.item)) continue;
      const occurrence = occurrenceOf(
        details.item,
        details.startDate,
        details.endDate,
        details.recurrenceId,
        options,
        tzidOf(event),
      );
      if (overlaps(occurrence)) occurrences.push(occurrence);
    }
    // An exception whose recurrence id lies past the window but which was moved into it.
    for (const exception of exceptions) {
      if (exception.uid !== event.uid || seen.has(exception.recurrenceId.toString()) || cancelled(exception))
        continue;
      const moved = occurrenceOf(
        exception,
        exception.startDate,
        exception.endDate,
        exception.recurrenceId,
        options,
        recurrenceTzidOf(exception),
      );
      if (overlaps(moved)) occurrences.push(moved);
    }
  }
  // A lone exception (its master not in this object) stands for itself.
  for (const exception of exceptions) {
    if (masters.has(exception.uid) || cancelled(exception)) continue;
    const alone = occurrenceOf(
      exception,
      exception.startDate,
      exception.endDate,
      exception.recurrenceId,
      options,
      recurrenceTzidOf(exception),
    );
    if (overlaps(alone)) occurrences.push(alone);
  }
  return occurrences.sort((a, b) => a.start - b.start);
}
