import type { Database } from 'better-sqlite3';

/** One occurrence of a calendar event inside the sync window, as stored (schema v12 `calendar_events`). */
export interface CalendarOccurrence {
  calendar: string;
  uid: string;
  /** RECURRENCE-ID as a UTC ISO time for an occurrence of a recurring event; '' for a single event. */
  occurrence: string;
  /** The calendar object it came from (CalDAV resource URL; the subscription URL for ICS). */
  href: string;
  etag?: string;
  /** Unix ms, UTC. */
  start: number;
  end: number;
  allDay: boolean;
  summary: string;
  location: string;
  /** The event's TZID, when it had one. */
  timezone?: string;
}

/** A stored occurrence with its object's iCalendar text (absent when it was over the cap). */
export interface StoredCalendarObject {
  href: string;
  etag?: string;
  raw?: string;
}

/** What makes the next sync of a calendar cheap (see migration v12). */
export interface CalendarSyncState {
  collectionUrl?: string;
  ctag?: string;
  syncToken?: string;
  /** The ICS subscription's HTTP ETag. */
  etag?: string;
  syncedAt?: number;
  /** When the objects were last expanded over the window (it slides: a daily refresh re-expands). */
  expandedAt?: number;
  /** The last sync's failure; cleared by a sync that succeeds. */
  error?: string;
}

/** One sync's result for one calendar, applied in one transaction. */
export interface CalendarChanges {
  /** Every object of the calendar is in `objects`: rows of other hrefs go. */
  full: boolean;
  /** Objects fetched: their occurrences replace the stored rows of the same href. */
  objects: ReadonlyArray<{ href: string; etag?: string; raw?: string; occurrences: CalendarOccurrence[] }>;
  /** Objects deleted on the server. */
  removed: readonly string[];
  state: CalendarSyncState;
}

/** Raw iCalendar text longer than this is not stored (the occurrences are). */
export const RAW_ICS_CAP = 64 * 1024;

interface Row {
  calendar: string;
  uid: string;
  occurrence: string;
  href: string;
  etag: string | null;
  start_ms: number;
  end_ms: number;
  all_day: number;
  summary: string;
  location: string;
  timezone: string | null;
}

interface StateRow {
  collection_url: string | null;
  ctag: string | null;
  sync_token: string | null;
  etag: string | null;
  synced_at: number | null;
  expanded_at: number | null;
  error: string | null;
}

const COLUMNS =
  'calendar, uid, occurrence, href, etag, start_ms, end_ms, all_day, summary, location, timezone';

function toOccurrence(row: Row): CalendarOccurrence {
  return {
    calendar: row.calendar,
    uid: row.uid,
    occurrence: row.occurrence,
    href: row.href,
    ...(row.etag !== null ? { etag: row.etag } : {}),
    start: row.start_ms,
    end: row.end_ms,
    allDay: row.all_day === 1,
    summary: row.summary,
    location: row.location,
    ...(row.timezone !== null ? { timezone: row.timezone } : {}),
  };
}

function toState(row: StateRow): CalendarSyncState {
  const state: CalendarSyncState = {};
  if (row.collection_url !== null) state.collectionUrl = row.collection_url;
  if (row.ctag !== null) state.ctag = row.ctag;
  if (row.sync_token !== null) state.syncToken = row.sync_token;
  if (row.etag !== null) state.etag = row.etag;
  if (row.synced_at !== null) state.syncedAt = row.synced_at;
  if (row.expanded_at !== null) state.expandedAt = row.expanded_at;
  if (row.error !== null) state.error = row.error;
  return state;
}

/**
 * Synced calendars (schema v12): occurrences in the window and each calendar's sync state. A sync's rows and
 * its new ctag/ETag commit together, so a crash never leaves a ctag that claims rows the store lacks.
 */
export class CalendarRepository {
  constructor(private readonly db: Database) {}

  apply(calendar: string, changes: CalendarChanges): void {
    const deleteHref = this.db.prepare('DELETE FROM calendar_events WHERE calendar = ? AND href = ?');
    const insert = this.db.prepare(
      `INSERT OR REPLACE INTO calendar_events (${COLUMNS}, raw) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.db
      .transaction(() => {
        if (changes.full) this.db.prepare('DELETE FROM calendar_events WHERE calendar = ?').run(calendar);
        for (const href of changes.removed) deleteHref.run(calendar, href);
        for (const object of changes.objects) {
          if (!changes.full) deleteHref.run(calendar, object.href);
          const raw = object.raw !== undefined && object.raw.length <= RAW_ICS_CAP ? object.raw : null;
          for (const o of object.occurrences)
            insert.run(
              calendar,
              o.uid,
              o.occurrence,
              object.href,
              object.etag ?? null,
              o.start,
              o.end,
              o.allDay ? 1 : 0,
              o.summary,
              o.location,
              o.timezone ?? null,
              raw,
            );
        }
        this.writeState(calendar, changes.state);
      })
      .immediate();
  }

  /** Replaces the sync state of `calendar` (a failed or unchanged sync). */
  setState(calendar: string, state: CalendarSyncState): void {
    this.writeState(calendar, state);
  }

  state(calendar: string): CalendarSyncState | undefined {
    const row = this.db.prepare('SELECT * FROM calendar_state WHERE calendar = ?').get(calendar) as
      | StateRow
      | undefined;
    return row ? toState(row) : undefined;
  }

  /** The stored objects of `calendar`: href → ETag (for a CalDAV diff). */
  etags(calendar: string): Map<string, string | undefined> {
    const rows = this.db
      .prepare('SELECT DISTINCT href, etag FROM calendar_events WHERE calendar = ?')
      .all(calendar) as Array<{ href: string; etag: string | null }>;
    return new Map(rows.map((row) => [row.href, row.etag ?? undefined]));
  }

  /** The object an event came from, with its raw text when stored. */
  object(calendar: string, uid: string): StoredCalendarObject | undefined {
    const row = this.db
      .prepare('SELECT href, etag, raw FROM calendar_events WHERE calendar = ? AND uid = ? LIMIT 1')
      .get(calendar, uid) as { href: string; etag: string | null; raw: string | null } | undefined;
    if (!row) return undefined;
    return {
      href: row.href,
      ...(row.etag !== null ? { etag: row.etag } : {}),
      ...(row.raw !== null ? { raw: row.raw } : {}),
    };
  }

  /** Occurrences overlapping [from, to), by start; only of `calendars` when given. */
  between(from: number, to: number, calendars?: readonly string[]): CalendarOccurrence[] {
    const rows = this.db
      .prepare(
        `SELECT ${COLUMNS} FROM calendar_events WHERE start_ms < ? AND end_ms > ? ORDER BY start_ms, calendar, uid`,
      )
      .all(to, from) as Row[];
    const wanted = calendars ? new Set(calendars) : undefined;
    return rows.filter((row) => !wanted || wanted.has(row.calendar)).map(toOccurrence);
  }

  /** Occurrences starting in (after, until], by start (the "before" triggers' plan). */
  startingBetween(after: number, until: number): CalendarOccurrence[] {
    return (
      this.db
        .prepare(
          `SELECT ${COLUMNS} FROM calendar_events WHERE start_ms > ? AND start_ms <= ? ORDER BY start_ms, calendar, uid`,
        )
        .all(after, until) as Row[]
    ).map(toOccurrence);
  }

  /** Forgets every calendar not in `keep` (removed from config.yaml). */
  retain(keep: readonly string[]): void {
    const names = JSON.stringify(keep);
    this.db
      .transaction(() => {
        this.db
          .prepare('DELETE FROM calendar_events WHERE calendar NOT IN (SELECT value FROM json_each(?))')
          .run(names);
        this.db
          .prepare('DELETE FROM calendar_state WHERE calendar NOT IN (SELECT value FROM json_each(?))')
          .run(names);
      })
      .immediate();
  }

  private writeState(calendar: string, state: CalendarSyncState): void {
    this.db
      .prepare(
        `INSERT OR REPLACE INTO calendar_state
           (calendar, collection_url, ctag, sync_token, etag, synced_at, expanded_at, error)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        calendar,
        state.collectionUrl ?? null,
        state.ctag ?? null,
        state.syncToken ?? null,
        state.etag ?? null,
        state.syncedAt ?? null,
        state.expandedAt ?? null,
        state.error ?? null,
      );
  }
}
