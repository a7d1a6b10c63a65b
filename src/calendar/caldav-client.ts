import {
  calendarQuery,
  createAccount,
  createObject,
  deleteObject,
  fetchCalendarObjects,
  fetchCalendars,
  propfind,
  updateObject,
} from 'tsdav';

/** The fetch Wren's calendar code uses (injected: tests count requests through it). */
export type Fetch = typeof globalThis.fetch;

export interface CaldavAccount {
  url: string;
  username: string;
  password: string;
  /** The calendar's display name or last path segment, when `url` is an account root. */
  calendar?: string;
}

/** A calendar collection's change markers (one PROPFIND, depth 0). */
export interface CollectionTags {
  isCalendar: boolean;
  ctag?: string;
  syncToken?: string;
}

/** One calendar object on the server. */
export interface RemoteObject {
  url: string;
  etag?: string;
  data?: string;
}

const slash = (url: string) => (url.endsWith('/') ? url : `${url}/`);

/**
 * A CalDAV account over tsdav: Basic auth with the app password on every request, all through one injected
 * fetch. Each method is the fewest requests that answer it (`tags` is one PROPFIND).
 */
export class CaldavClient {
  readonly headers: Record<string, string>;

  constructor(
    private readonly account: CaldavAccount,
    private readonly fetch: Fetch = globalThis.fetch,
  ) {
    const basic = Buffer.from(`${account.username}:${account.password}`).toString('base64');
    this.headers = { authorization: `Basic ${basic}` };
  }

  /** ctag and sync token of the collection at `url` (one request). */
  async tags(url: string): Promise<CollectionTags> {
    const responses = await propfind({
      url,
      props: { 'd:resourcetype': {}, 'cs:getctag': {}, 'd:sync-token': {} },
      depth: '0',
      headers: this.headers,
      fetch: this.fetch,
    });
    const response = responses[0];
    if (!response?.ok)
      throw new Error(`${url}: ${response?.status ?? 'no'} ${response?.statusText ?? 'answer'} to PROPFIND`);
    const props = response.props ?? {};
    const type = props['resourcetype'] as Record<string, unknown> | undefined;
    const ctag = props['getctag'];
    const syncToken = props['syncToken'];
    return {
      isCalendar: Boolean(type && 'calendar' in type),
      ...(ctag != null ? { ctag: String(ctag) } : {}),
      ...(syncToken != null ? { syncToken: String(syncToken) } : {}),
    };
  }

  /**
   * The calendar collection to sync: `url` itself when it is one; otherwise the account's calendars are
   * discovered and the one named by `calendar` (or the first that holds events) is taken.
   */
  async collection(): Promise<string> {
    const url = slash(this.account.url);
    const tags = await this.tags(url).catch(() => undefined);
    if (tags?.isCalendar) return url;
    const account = await createAccount({
      account: {
        serverUrl: this.account.url,
        accountType: 'caldav',
        credentials: { username: this.account.username, password: this.account.password },
      },
      headers: this.headers,
      fetch: this.fetch,
    });
    const calendars = await fetchCalendars({ account, headers: this.headers, fetch: this.fetch });
    const wanted = this.account.calendar?.toLowerCase();
    const named = (c: (typeof calendars)[number]) => {
      const name = typeof c.displayName === 'string' ? c.displayName.toLowerCase() : '';
      const segment = c.url.replace(/\/+$/, '').split('/').pop()?.toLowerCase() ?? '';
      return name === wanted || segment === wanted;
    };
    const chosen = wanted
      ? calendars.find(named)
      : (calendars.find((c) => c.components?.includes('VEVENT')) ?? calendars[0]);
    if (!chosen)
      throw new Error(
        wanted
          ? `no calendar named "${this.account.calendar}" (found: ${calendars.map((c) => c.displayName).join(', ') || 'none'})`
          : 'the account has no calendars',
      );
    return slash(chosen.url);
  }

  /** Every event object's URL and ETag (one REPORT, no bodies). */
  async etags(collection: string): Promise<RemoteObject[]> {
    const responses = await calendarQuery({
      url: collection,
      props: { 'd:getetag': {} },
      filters: {
        'c:comp-filter': {
          _attributes: { name: 'VCALENDAR' },
          'c:comp-filter': { _attributes: { name: 'VEVENT' } },
        },
      },
      depth: '1',
      headers: this.headers,
      fetch: this.fetch,
    });
    return responses
      .filter((response) => response.href && response.ok !== false)
      .map((response) => ({
        url: new URL(response.href!, collection).href,
        ...(response.props?.['getetag'] != null ? { etag: String(response.props['getetag']) } : {}),
      }))
      .filter((object) => object.url !== new URL(collection).href);
  }

  /** The bodies of `urls` (one calendar-multiget REPORT). */
  async objects(collection: string, urls: readonly string[]): Promise<RemoteObject[]> {
    if (urls.length === 0) return [];
    const objects = await fetchCalendarObjects({
      calendar: { url: collection },
      objectUrls: [...urls],
      urlFilter: () => true,
      headers: this.headers,
      fetch: this.fetch,
    });
    return objects.map((object) => ({
      url: new URL(object.url, collection).href,
      ...(object.etag ? { etag: object.etag } : {}),
      ...(typeof object.data === 'string' ? { data: object.data } : {}),
    }));
  }

  /** One object's current body and ETag (a GET), or undefined when it is gone. */
  async get(url: string): Promise<RemoteObject | undefined> {
    const response = await this.fetch(url, { headers: this.headers });
    if (response.status === 404) return undefined;
    if (!response.ok) throw new Error(`${url}: ${response.status} ${response.statusText}`);
    const etag = response.headers.get('etag');
    return { url, data: await response.text(), ...(etag ? { etag } : {}) };
  }

  /** Creates a new object (refused when the URL exists). */
  async create(url: string, ics: string): Promise<void> {
    const response = await createObject({
      url,
      data: ics,
      headers: { ...this.headers, 'content-type': 'text/calendar; charset=utf-8', 'if-none-match': '*' },
      fetch: this.fetch,
    });
    if (!response.ok)
      throw new Error(`the server refused the new event: ${response.status} ${response.statusText}`);
  }

  /** Replaces an object, only if it is still at `etag` (else another client changed it first). */
  async update(url: string, ics: string, etag: string | undefined): Promise<void> {
    const response = await updateObject({
      url,
      data: ics,
      ...(etag ? { etag } : {}),
      headers: { ...this.headers, 'content-type': 'text/calendar; charset=utf-8' },
      fetch: this.fetch,
    });
    if (response.status === 412)
      throw new Error('the event changed on the server meanwhile; look at it again before moving it');
    if (!response.ok)
      throw new Error(`the server refused the change: ${response.status} ${response.statusText}`);
  }

  /** Deletes an object, only if it is still at `etag`. */
  async delete(url: string, etag: string | undefined): Promise<void> {
    const response = await deleteObject({
      url,
      ...(etag ? { etag } : {}),
      headers: this.headers,
      fetch: this.fetch,
    });
    if (response.status === 412)
      throw new Error('the event changed on the server meanwhile; look at it again before cancelling it');
    if (!response.ok && response.status !== 404)
      throw new Error(`the server refused to delete the event: ${response.status} ${response.statusText}`);
  }
}
