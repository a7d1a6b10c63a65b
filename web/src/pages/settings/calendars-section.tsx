import { useEffect, useState } from 'preact/hooks';
import { listCalendars } from '../../api';
import { CodeText } from '../../components/code-text';
import { Badge, Empty, ErrorNote, Loading, Time } from '../../components/common';
import { liveEpoch } from '../../live';
import { errorText } from '../../state';
import type { CalendarInfo } from '../../types';

const KIND_LABEL: Record<CalendarInfo['kind'], string> = { caldav: 'CalDAV', ics: 'ICS subscription' };

/** Where calendars are added and why the app cannot: their URLs and passwords stay in config.yaml. */
function ConfigHint() {
  return (
    <p class="hint">
      Calendars are configured under <code>calendars:</code> in config.yaml (docs/triggers.md#calendars);
      their addresses and passwords stay there, so this list shows only each server's host.
    </p>
  );
}

function CalendarRow({ calendar }: { calendar: CalendarInfo }) {
  const state = calendar.error ? 'failed' : calendar.syncedAt !== null ? 'synced' : 'not synced yet';
  return (
    <li class="row">
      <div class="row-main">
        <div class="row-title">{calendar.name}</div>
        <div class="row-meta">
          <Badge tone={calendar.error ? 'bad' : calendar.syncedAt !== null ? 'good' : 'warn'}>{state}</Badge>
          <span>{KIND_LABEL[calendar.kind]}</span>
          <span>{calendar.host}</span>
          {calendar.syncedAt !== null ? (
            <span>
              last synced <Time at={calendar.syncedAt} relative />
            </span>
          ) : null}
          <span>
            {calendar.events} {calendar.events === 1 ? 'event' : 'events'}
          </span>
        </div>
        {calendar.error ? (
          <p class="row-notes error-text">
            <CodeText text={calendar.error} />
          </p>
        ) : null}
      </div>
    </li>
  );
}

/** Settings → Calendars: the calendars of config.yaml with their sync state, read-only. */
export function CalendarsSection() {
  const [calendars, setCalendars] = useState<CalendarInfo[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = () =>
    listCalendars().then(
      (list) => {
        setCalendars(list);
        setError(null);
      },
      (failure) => setError(errorText(failure)),
    );
  useEffect(() => {
    void load();
  }, [liveEpoch.value]);

  return (
    <section class="section" aria-labelledby="calendars-title">
      <h2 id="calendars-title">Calendars</h2>
      <ErrorNote message={error} onRetry={load} />
      {calendars === null && !error ? <Loading /> : null}
      {calendars?.length === 0 ? <Empty title="No calendars" /> : null}
      {calendars?.length ? (
        <ul class="rows">
          {calendars.map((calendar) => (
            <CalendarRow key={calendar.name} calendar={calendar} />
          ))}
        </ul>
      ) : null}
      <ConfigHint />
    </section>
  );
}
