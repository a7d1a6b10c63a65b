import type { CalendarConfig } from '../config/calendar-config.js';
import type { CalendarOccurrence, CalendarSyncState } from '../store/calendar-repository.js';
import type { CalendarStore } from '../store/ports.js';
import { CaldavClient, type Fetch } from './caldav-client.js';
import { expandEvents, WINDOW_AHEAD_MS, WINDOW_BACK_MS } from './expand-events.js';

/** The window slides: objects are fetched and expanded again at least this often, changed or not. */
export const REEXPAND_MS = 24 * 60 * 60 * 1000;
/** An ICS subscription larger than this is refused (a wrong URL, not a calendar). */
const ICS_MAX_BYTES = 20 * 1024 * 1024;

export interface SyncDeps {
  store: CalendarStore;
  fetch?: Fetch;
  now: () => number;
  /** The owner's zone (floating times, all-day dates). */
  timezone: () => string;
}

export interface SyncResult {
  calendar: string;
  /** Whether anything was fetched and stored (false: the server said nothing changed). */
  changed: boolean;
  /** Occurrences stored for the calendar's changed objects. */
  occurrences: number;
}

function expand(calendar: string, href: string, ics: string, deps: SyncDeps): CalendarOccurrence[] {
  const now = deps.now();
  return expandEvents(ics, {
    calendar,
    href,
    from: now - WINDOW_BACK_MS,
    to: now + WINDOW_AHEAD_MS,
    timezone: deps.timezone(),
  });
}

const stale = (state: CalendarSyncState | undefined, now: number) =>
  state?.expandedAt === undefined || now - state.expandedAt >= REEXPAND_MS;

/**
 * An ICS subscription: one conditional GET (If-None-Match with the last ETag). 304 costs that request and
 * stores no event; otherwise the whole feed replaces the calendar's rows, with the new ETag, in one unit.
 */
async function syncIcs(calendar: CalendarConfig, url: string, deps: SyncDeps): Promise<SyncResult> {
  const fetch = deps.fetch ?? globalThis.fetch;
  const state = deps.store.state(calendar.name);
  const now = deps.now();
  const conditional = state?.etag && !stale(state, now);
  const response = await fetch(url, {
    headers: { accept: 'text/calendar', ...(conditional ? { 'if-none-match': state.etag! } : {}) },
    redirect: 'follow',
  });
  if (response.status === 304) {
    const { error: _cleared, ...kept } = state ?? {};
    deps.store.setState(calendar.name, { ...kept, syncedAt: now });
    return { calendar: calendar.name, changed: false, occurrences: 0 };
  }
  if (!response.ok) throw new Error(`${response.status} ${response.statusText} from the subscription URL`);
  const text = await response.text();
  if (text.length > ICS_MAX_BYTES)
    throw new Error(`the subscription is over ${ICS_MAX_BYTES / 1024 / 1024} MB`);
  const occurrences = expand(calendar.name, url, text, deps);
  const etag = response.headers.get('etag');
  deps.store.apply(calendar.name, {
    full: true,
    objects: [{ href: url, ...(etag ? { etag } : {}), occurrences }],
    removed: [],
    state: { ...(etag ? { etag } : {}), syncedAt: now, expandedAt: now },
  });
  return { calendar: calendar.name, changed: true, occurrences: occurrences.length };
}

/**
 * A CalDAV calendar: one PROPFIND for the ctag and sync token; the same as stored (and the window fresh) →
 * done. Otherwise one REPORT for every object's ETag, one multiget for the objects whose ETag changed
 * (all of them when the window must be expanded again), and the rows of deleted objects go; rows and the
 * new ctag commit together.
 */
async function syncCaldav(
  calendar: CalendarConfig,
  client: CaldavClient,
  deps: SyncDeps,
): Promise<SyncResult> {
  const state = deps.store.state(calendar.name);
  const now = deps.now();
  const collection = state?.collectionUrl ?? (await client.collection());
  const tags = await client.tags(collection);
  const unchanged =
    state?.collectionUrl !== undefined &&
    !stale(state, now) &&
    (tags.ctag !== undefined || tags.syncToken !== undefined) &&
    tags.ctag === state.ctag &&
    tags.syncToken === state.syncToken;
  const next: CalendarSyncState = {
    collectionUrl: collection,
    ...(tags.ctag !== undefined ? { ctag: tags.ctag } : {}),
    ...(tags.syncToken !== undefined ? { syncToken: tags.syncToken } : {}),
    syncedAt: now,
  };
  if (unchanged) {
    deps.store.setState(calendar.name, {
      ...next,
      ...(state.expandedAt !== undefined ? { expandedAt: state.expandedAt } : {}),
    });
    return { calendar: calendar.name, changed: false, occurrences: 0 };
  }
  const full = stale(state, now);
  const remote = await client.etags(collection);
  const stored = deps.store.etags(calendar.name);
  const wanted = remote.filter(
    (object) => full || !stored.has(object.url) || stored.get(object.url) !== object.etag,
  );
  const fetched = await client.objects(
    collection,
    wanted.map((object) => object.url),
  );
  const objects = fetched
    .filter((object) => object.data !== undefined)
    .map((object) => ({
      href: object.url,
      ...(object.etag ? { etag: object.etag } : {}),
      raw: object.data!,
      occurrences: expand(calendar.name, object.url, object.data!, deps),
    }));
  const present = new Set(remote.map((object) => object.url));
  const removed = [...stored.keys()].filter((href) => !present.has(href));
  deps.store.apply(calendar.name, {
    full,
    objects,
    removed,
    state: { ...next, expandedAt: full ? now : (state?.expandedAt ?? now) },
  });
  return {
    calendar: calendar.name,
    changed: true,
    occurrences: objects.reduce((sum, object) => sum + object.occurrences.length, 0),
  };
}

/** A CalDAV client for a calendar of config.yaml, or undefined for an ICS subscription. */
export function clientFor(calendar: CalendarConfig, fetch?: Fetch): CaldavClient | undefined {
  return calendar.source.kind === 'caldav' ? new CaldavClient(calendar.source, fetch) : undefined;
}

/**
 * Syncs one calendar into the store. A failure is recorded in its state (rows stay as they were) and
 * rethrown.
 */
export async function syncCalendar(calendar: CalendarConfig, deps: SyncDeps): Promise<SyncResult> {
  try {
    const client = clientFor(calendar, deps.fetch);
    return client
      ? await syncCaldav(calendar, client, deps)
      : await syncIcs(calendar, calendar.source.url, deps);
  } catch (error) {
    const state = deps.store.state(calendar.name) ?? {};
    deps.store.setState(calendar.name, { ...state, error: (error as Error).message.slice(0, 500) });
    throw error;
  }
}
