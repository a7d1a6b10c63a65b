import ICAL from 'ical.js';
import { instantOf, registerZones } from './expand-events.js';

type IcalComponent = InstanceType<typeof ICAL.Component>;
type IcalTime = InstanceType<typeof ICAL.Time>;

/** A runaway rule stops the search for an occurrence after this many steps. */
const MAX_STEPS = 200_000;

export interface MoveEdit {
  uid: string;
  /** For a recurring event: the occurrence to move, as `calendar list` shows it (its original start, UTC ISO). */
  occurrence?: string;
  /** The new start and (optional) end, Unix ms; the length is kept when `end` is left out. */
  start: number;
  end?: number;
  /** Now, for DTSTAMP. */
  stamp: number;
  /** The owner's zone: floating times and all-day dates are read in it. */
  zone: string;
}

export interface CancelEdit {
  uid: string;
  occurrence: string;
  stamp: number;
  zone: string;
}

interface Parsed {
  root: IcalComponent;
  master: IcalComponent | undefined;
  exceptions: IcalComponent[];
}

function parse(ics: string, uid: string): Parsed {
  const root = new ICAL.Component(ICAL.parse(ics));
  registerZones(root);
  const events = root.getAllSubcomponents('vevent').filter((v) => v.getFirstPropertyValue('uid') === uid);
  if (events.length === 0) throw new Error(`The event "${uid}" is gone from the server.`);
  const master = events.find((v) => !v.hasProperty('recurrence-id'));
  return { root, master, exceptions: events.filter((v) => v !== master) };
}

const tzidOf = (component: IcalComponent, name: string): string | undefined => {
  const tzid = component.getFirstProperty(name)?.getParameter('tzid');
  return typeof tzid === 'string' && tzid ? tzid : undefined;
};

const isRecurring = (master: IcalComponent) => master.hasProperty('rrule') || master.hasProperty('rdate');

function occurrenceInstant(occurrence: string): number {
  const at = Date.parse(occurrence);
  if (Number.isNaN(at)) throw new Error(`"${occurrence}" is not an occurrence; copy it from calendar list.`);
  return at;
}

/** The exception that replaces the occurrence at `at`, if the file has one. */
function exceptionAt(parsed: Parsed, at: number, zone: string): IcalComponent | undefined {
  return parsed.exceptions.find((exception) => {
    const id = exception.getFirstPropertyValue('recurrence-id') as IcalTime | null;
    const tzid = tzidOf(exception, 'recurrence-id') ?? (parsed.master && tzidOf(parsed.master, 'dtstart'));
    return id !== null && instantOf(id, tzid, zone) === at;
  });
}

/**
 * The series' own time of the occurrence at `at` (in DTSTART's zone and form, as RECURRENCE-ID and EXDATE
 * must be written), found by walking the rule; undefined when the series has no occurrence then.
 */
function seriesTimeAt(master: IcalComponent, at: number, zone: string): IcalTime | undefined {
  const tzid = tzidOf(master, 'dtstart');
  const iterator = new ICAL.Event(master, { exceptions: [] }).iterator();
  for (let step = 0, next = iterator.next(); next && step < MAX_STEPS; next = iterator.next(), step++) {
    const instant = instantOf(next, tzid, zone);
    if (instant === at) return next;
    if (instant > at) return undefined;
  }
  return undefined;
}

/** Adds `name` (RECURRENCE-ID or EXDATE) with the series time `time`, in the zone DTSTART names. */
function addSeriesTime(
  component: IcalComponent,
  name: string,
  time: IcalTime,
  tzid: string | undefined,
): void {
  const property = new ICAL.Property(name, component);
  if (time.isDate) property.resetType('date');
  property.setValue(time.clone());
  if (tzid && !time.isDate && time.zone?.tzid !== 'UTC') property.setParameter('tzid', tzid);
  component.addProperty(property);
}

function bump(component: IcalComponent, stamp: number): void {
  const sequence = Number(component.getFirstPropertyValue('sequence') ?? 0);
  component.updatePropertyWithValue('sequence', (Number.isFinite(sequence) ? sequence : 0) + 1);
  component.updatePropertyWithValue('dtstamp', ICAL.Time.fromJSDate(new Date(stamp), true));
}

function reschedule(vevent: IcalComponent, edit: MoveEdit): void {
  const event = new ICAL.Event(vevent, { exceptions: [] });
  const tzid = tzidOf(vevent, 'dtstart');
  const length = event.endDate
    ? instantOf(event.endDate, tzidOf(vevent, 'dtend') ?? tzid, edit.zone) -
      instantOf(event.startDate, tzid, edit.zone)
    : 0;
  const end = edit.end ?? edit.start + Math.max(0, length);
  if (!(end > edit.start)) throw new Error('The event must end after it starts.');
  vevent.removeAllProperties('dtstart');
  vevent.removeAllProperties('dtend');
  vevent.removeAllProperties('duration');
  vevent.addPropertyWithValue('dtstart', ICAL.Time.fromJSDate(new Date(edit.start), true));
  vevent.addPropertyWithValue('dtend', ICAL.Time.fromJSDate(new Date(end), true));
  bump(vevent, edit.stamp);
}

/** A new exception for the occurrence at `time`: the master's details without its rule or times. */
function newException(parsed: Parsed, master: IcalComponent, time: IcalTime): IcalComponent {
  const exception = new ICAL.Component('vevent');
  const skip = new Set(['rrule', 'rdate', 'exdate', 'exrule', 'recurrence-id']);
  for (const property of master.getAllProperties()) {
    if (!skip.has(property.name)) exception.addProperty(ICAL.Property.fromString(property.toICALString()));
  }
  exception.removeAllProperties('sequence');
  const sequence = Number(master.getFirstPropertyValue('sequence') ?? 0);
  if (sequence > 0) exception.addPropertyWithValue('sequence', sequence);
  addSeriesTime(exception, 'recurrence-id', time, tzidOf(master, 'dtstart'));
  parsed.root.addSubcomponent(exception);
  return exception;
}

/**
 * The iCalendar text with the event `uid` moved: a single event is re-timed; for a recurring one only the
 * named occurrence moves, as a RECURRENCE-ID exception other clients understand.
 * @throws Error naming what to do when a recurring event is moved without an occurrence, or the occurrence
 *   is not one of the series.
 */
export function moveInIcs(ics: string, edit: MoveEdit): string {
  const parsed = parse(ics, edit.uid);
  const { master } = parsed;
  const recurring = master ? isRecurring(master) || parsed.exceptions.length > 0 : true;
  if (!recurring && master) {
    reschedule(master, edit);
    return parsed.root.toString();
  }
  if (!edit.occurrence)
    throw new Error(
      `"${edit.uid}" repeats: name the occurrence to move (its occurrence value from calendar list).`,
    );
  const at = occurrenceInstant(edit.occurrence);
  const existing = exceptionAt(parsed, at, edit.zone);
  if (existing) {
    reschedule(existing, edit);
    return parsed.root.toString();
  }
  const time = master ? seriesTimeAt(master, at, edit.zone) : undefined;
  if (!master || !time) throw new Error(`"${edit.uid}" has no occurrence at ${edit.occurrence}.`);
  reschedule(newException(parsed, master, time), edit);
  return parsed.root.toString();
}

/**
 * The iCalendar text with one occurrence of the recurring event `uid` cancelled (an EXDATE on the series,
 * and its exception, if any, removed); undefined when the event does not repeat, so the caller deletes it.
 * @throws Error when the occurrence is not one of the series.
 */
export function cancelInIcs(ics: string, edit: CancelEdit): string | undefined {
  const parsed = parse(ics, edit.uid);
  const { master } = parsed;
  if (master && !isRecurring(master) && parsed.exceptions.length === 0) return undefined;
  const at = occurrenceInstant(edit.occurrence);
  const existing = exceptionAt(parsed, at, edit.zone);
  if (!master) {
    if (!existing) throw new Error(`"${edit.uid}" has no occurrence at ${edit.occurrence}.`);
    existing.updatePropertyWithValue('status', 'CANCELLED');
    bump(existing, edit.stamp);
    return parsed.root.toString();
  }
  const time = existing
    ? (existing.getFirstPropertyValue('recurrence-id') as IcalTime)
    : seriesTimeAt(master, at, edit.zone);
  if (!time) throw new Error(`"${edit.uid}" has no occurrence at ${edit.occurrence}.`);
  if (existing) parsed.root.removeSubcomponent(existing);
  addSeriesTime(master, 'exdate', time, tzidOf(existing ?? master, existing ? 'recurrence-id' : 'dtstart'));
  bump(master, edit.stamp);
  return parsed.root.toString();
}
