import type { Migration } from './migration.js';

/**
 * Schema v12: calendars synced from CalDAV accounts and ICS subscriptions.
 * - `calendar_events`: one row per occurrence inside the sync window (a recurring event has one row per
 *   occurrence; `occurrence` is its RECURRENCE-ID as a UTC ISO time, '' for a single event). `href` is the
 *   calendar object the row came from (CalDAV resource URL; for ICS the subscription URL), `etag` the
 *   object's ETag when it was fetched. Times are Unix ms (UTC); an all-day event starts at local midnight
 *   of the owner's zone. `raw` is the object's iCalendar text, capped (NULL beyond the cap).
 * - `calendar_state`: per calendar, what makes an unchanged sync cost one request: the collection URL found
 *   by discovery, its ctag and sync token (CalDAV) or the subscription's HTTP ETag (ICS); when it last
 *   synced, when objects were last expanded (the window slides), the last error.
 */
const v12 = `
CREATE TABLE calendar_events (
  calendar TEXT NOT NULL,
  uid TEXT NOT NULL,
  occurrence TEXT NOT NULL,
  href TEXT NOT NULL,
  etag TEXT,
  start_ms INTEGER NOT NULL,
  end_ms INTEGER NOT NULL CHECK (end_ms >= start_ms),
  all_day INTEGER NOT NULL CHECK (all_day IN (0, 1)),
  summary TEXT NOT NULL,
  location TEXT NOT NULL DEFAULT '',
  timezone TEXT,
  raw TEXT,
  PRIMARY KEY (calendar, uid, occurrence)
) STRICT;
CREATE INDEX calendar_events_by_start ON calendar_events (start_ms);
CREATE INDEX calendar_events_by_href ON calendar_events (calendar, href);

CREATE TABLE calendar_state (
  calendar TEXT PRIMARY KEY,
  collection_url TEXT,
  ctag TEXT,
  sync_token TEXT,
  etag TEXT,
  synced_at INTEGER,
  expanded_at INTEGER,
  error TEXT
) STRICT;
`;

export const MIGRATION_V12: Migration = {
  version: 12,
  description: 'calendars: synced event occurrences and per-calendar sync state',
  up: (db) => db.exec(v12),
};
