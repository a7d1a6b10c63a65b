import { useEffect, useState } from 'preact/hooks';
import { getAgenda } from '../api';
import { Badge, Empty, ErrorNote, Loading, PageHeader } from '../components/common';
import { dayOf, isoOf, longTime, ownerZone } from '../format';
import { liveEpoch } from '../live';
import { errorText } from '../state';
import type { CalendarAgenda, CalendarEvent } from '../types';
import { type AgendaDay, agendaDays, eventTimes } from './agenda-days';

type View = 'today' | 'week';

const VIEWS: ReadonlyArray<{ id: View; label: string; days: number }> = [
  { id: 'today', label: 'Today', days: 1 },
  { id: 'week', label: 'Week', days: 7 },
];

/** Calendars sync in the background: the page reads the stored events again this often while open. */
const REFRESH_MS = 60_000;

/** `Monday, March 2` in the owner's zone; "Today" and "Tomorrow" say so first. */
function dayLabel(day: AgendaDay, now: number): string {
  const name = new Intl.DateTimeFormat(undefined, {
    weekday: 'long',
    month: 'long',
    day: 'numeric',
    ...(ownerZone.value ? { timeZone: ownerZone.value } : {}),
  }).format(new Date(day.at));
  if (day.key === dayOf(now)) return `Today, ${name}`;
  if (day.key === dayOf(now + 86_400_000)) return `Tomorrow, ${name}`;
  return name;
}

function EventRow({ event, day }: { event: CalendarEvent; day: string }) {
  return (
    <li class="row agenda-event">
      <div class="row-main">
        <div class="row-title">{event.summary || '(no title)'}</div>
        <div class="row-meta">
          <time dateTime={isoOf(event.start)} title={event.allDay ? undefined : longTime(event.start)}>
            {eventTimes(event, day)}
          </time>
          {event.location ? <span>{event.location}</span> : null}
          <Badge>{event.calendar}</Badge>
        </div>
      </div>
    </li>
  );
}

function DaySection({ day, now, single }: { day: AgendaDay; now: number; single: boolean }) {
  const id = `agenda-day-${day.key}`;
  return (
    <section class="section agenda-day" aria-labelledby={id}>
      <h2 id={id}>{dayLabel(day, now)}</h2>
      {day.events.length ? (
        <ul class="rows">
          {day.events.map((event) => (
            <EventRow key={`${event.calendar}|${event.uid}|${event.start}`} event={event} day={day.key} />
          ))}
        </ul>
      ) : (
        <p class="muted">{single ? 'Nothing on your calendars today.' : 'Nothing planned.'}</p>
      )}
    </section>
  );
}

/** No calendar is configured: how to add one (they live in config.yaml, never in the app). */
function NoCalendars() {
  return (
    <Empty title="No calendars yet">
      Add a CalDAV calendar or an ICS subscription under <code>calendars:</code> in config.yaml, and Wren
      shows its events here and in your morning briefing — see docs/triggers.md#calendars.
    </Empty>
  );
}

/**
 * The agenda: the events of the calendars Wren syncs, for today or the coming seven days, one section per
 * day in the owner's zone, all-day events first. Read-only: events are added in a calendar app or by asking
 * Wren.
 */
export function AgendaPage() {
  const [view, setView] = useState<View>('today');
  const [agenda, setAgenda] = useState<CalendarAgenda | null>(null);
  const [error, setError] = useState<string | null>(null);
  const days = VIEWS.find((item) => item.id === view)?.days ?? 1;
  const load = () =>
    getAgenda(days).then(
      (answer) => {
        setAgenda(answer);
        setError(null);
      },
      (failure) => setError(errorText(failure)),
    );
  useEffect(() => {
    setAgenda(null);
    void load();
    const timer = setInterval(load, REFRESH_MS);
    return () => clearInterval(timer);
  }, [view, liveEpoch.value]);

  const now = Date.now();
  return (
    <div class="page">
      <PageHeader title="Agenda">
        <fieldset class="segmented">
          <legend class="visually-hidden">Show</legend>
          {VIEWS.map((item) => (
            <label key={item.id} class={view === item.id ? 'selected' : ''}>
              <input
                type="radio"
                name="agenda-view"
                value={item.id}
                checked={view === item.id}
                onChange={() => setView(item.id)}
              />
              {item.label}
            </label>
          ))}
        </fieldset>
      </PageHeader>
      <ErrorNote message={error} onRetry={load} />
      {agenda === null && !error ? <Loading /> : null}
      {agenda && agenda.calendars.length === 0 ? <NoCalendars /> : null}
      {agenda?.calendars.length
        ? agendaDays(agenda).map((day) => (
            <DaySection key={day.key} day={day} now={now} single={days === 1} />
          ))
        : null}
    </div>
  );
}
