import * as z from 'zod';
import { parseDuration } from '../proactive/parse-duration.js';
import { TARGET } from '../proactive/proactive-config.js';
import { fromString } from '../util/from-string.js';

const MINUTE = 60_000;
const nonEmpty = z.string().trim().min(1);
const httpUrl = z
  .string()
  .trim()
  .refine((text) => /^https?:\/\/[^\s/]+/.test(text) && URL.canParse(text), {
    message: 'must be an http(s) URL such as https://caldav.example.com/calendars/me/work/',
  });

/** A lead time: minutes as a number (`15`) or a duration (`15m`, `1h`, `2d`); at most a week. */
const leadTime = z
  .union([
    z.preprocess(
      fromString,
      z
        .number()
        .int()
        .min(0)
        .max(7 * 24 * 60),
    ),
    z.string(),
  ])
  .refine(
    (value) => {
      const ms = typeof value === 'number' ? value * MINUTE : parseDuration(value.trim());
      return ms !== undefined && ms >= 0 && ms <= 7 * 24 * 60 * MINUTE;
    },
    { message: 'use minutes (15) or a duration such as 15m, 1h or 1d, at most a week' },
  );

/** A title filter: `/regex/flags`, or a plain substring matched case-insensitively. */
const titleFilter = nonEmpty.refine(
  (text) => {
    const regex = /^\/(.+)\/([a-z]*)$/.exec(text);
    if (!regex) return true;
    try {
      new RegExp(regex[1]!, regex[2]);
      return true;
    } catch {
      return false;
    }
  },
  { message: 'is not a valid /regular expression/' },
);

const beforeRule = z
  .strictObject({
    minutes: leadTime.optional(),
    duration: leadTime.optional(),
    title: titleFilter.optional(),
    notify: nonEmpty.optional(),
    prompt: nonEmpty.optional(),
    deliver_to: z
      .array(z.string().trim().regex(TARGET, 'use channel:chat or webhook:name'))
      .min(1)
      .optional(),
  })
  .refine((rule) => rule.minutes !== undefined || rule.duration !== undefined, {
    message: 'say how long before the event: minutes: 15 or duration: 15m',
  })
  .refine((rule) => !(rule.notify && rule.prompt), {
    message: 'use notify (a text template) or prompt (an agent run), not both',
  });

/** `before:` of a calendar: one lead time (`15m`), one rule, or a list of rules. */
const beforeSchema = z.union([
  leadTime.transform((minutes) => [{ minutes }]),
  beforeRule.transform((r) => [r]),
  z.array(beforeRule),
]);

/** CalDAV: `url` is a calendar collection, or an account root to discover calendars from (`calendar` picks one). */
const caldavSchema = z.strictObject({
  url: httpUrl,
  username: nonEmpty,
  password: nonEmpty,
  /** The display name (or the last path segment) of the calendar to use when `url` is an account root. */
  calendar: nonEmpty.optional(),
});

const calendarEntry = z
  .strictObject({
    name: z
      .string()
      .trim()
      .regex(
        /^[a-z0-9][a-z0-9_-]{0,39}$/,
        'use lower-case letters, digits, - and _ (such as work or family)',
      ),
    caldav: caldavSchema.optional(),
    // webcal:// is how calendar apps spell an ICS subscription over https.
    ics: z
      .preprocess(
        (value) => (typeof value === 'string' ? value.trim().replace(/^webcal:/i, 'https:') : value),
        httpUrl,
      )
      .optional(),
    sync_minutes: z
      .preprocess(
        fromString,
        z
          .number()
          .int()
          .min(1)
          .max(24 * 60),
      )
      .default(15),
    before: beforeSchema.optional(),
  })
  .refine((entry) => (entry.caldav === undefined) !== (entry.ics === undefined), {
    message: 'give either caldav: {url, username, password} or ics: URL',
  });

/**
 * `calendars:` in config.yaml — CalDAV accounts (read and write) and ICS subscriptions (read only):
 *
 * ```yaml
 * calendars:
 *   - name: work
 *     caldav: {url: https://cloud.example.com/remote.php/dav/calendars/sam/personal/, username: sam, password: ${NEXTCLOUD_APP_PASSWORD}}
 *     sync_minutes: 15         # default 15
 *     before:
 *       - minutes: 15          # or duration: 15m
 *         title: /standup|1:1/i  # a /regex/ or a case-insensitive substring; absent = every event
 *         notify: "{{title}} at {{start}} {{location}}"   # or prompt: TEXT (an agent run)
 *         deliver_to: [telegram:owner]
 *   - name: holidays
 *     ics: https://example.com/holidays.ics
 *     before: 1d
 * ```
 */
export const calendarsSectionSchema = z.array(calendarEntry).superRefine((entries, context) => {
  const seen = new Set<string>();
  entries.forEach((entry, index) => {
    if (seen.has(entry.name))
      context.addIssue({ code: 'custom', path: [index, 'name'], message: `"${entry.name}" is used twice` });
    seen.add(entry.name);
  });
});

export type CalendarsSection = z.output<typeof calendarsSectionSchema>;

export type CalendarSource =
  | {
      readonly kind: 'caldav';
      readonly url: string;
      readonly username: string;
      readonly password: string;
      readonly calendar?: string;
    }
  | { readonly kind: 'ics'; readonly url: string };

/** What a "before" rule does when due: deliver a rendered template, or run a prompt (untrusted). */
export type BeforeAction =
  | { readonly kind: 'notify'; readonly template: string }
  | { readonly kind: 'prompt'; readonly text: string };

export interface BeforeRule {
  /** How long before an occurrence's start it fires. */
  readonly beforeMs: number;
  /** `/regex/flags` or a case-insensitive substring of the title; absent = every event. */
  readonly title?: string;
  readonly action: BeforeAction;
  /** Targets; absent = `proactive.deliver_to`. */
  readonly deliverTo?: readonly string[];
}

export interface CalendarConfig {
  readonly name: string;
  readonly source: CalendarSource;
  readonly syncMs: number;
  readonly before: readonly BeforeRule[];
}

/** The notify template of a rule that names neither notify nor prompt. */
export const DEFAULT_NOTIFY = '{{title}} at {{start}} ({{location}})';

const leadMs = (value: number | string): number =>
  typeof value === 'number' ? value * MINUTE : (parseDuration(value.trim()) ?? 0);

/** Maps a parsed `calendars:` section. Pure. */
export function toCalendarsConfig(parsed: CalendarsSection): CalendarConfig[] {
  return parsed.map((entry) => ({
    name: entry.name,
    source: entry.caldav
      ? {
          kind: 'caldav' as const,
          url: entry.caldav.url,
          username: entry.caldav.username,
          password: entry.caldav.password,
          ...(entry.caldav.calendar ? { calendar: entry.caldav.calendar } : {}),
        }
      : { kind: 'ics' as const, url: entry.ics! },
    syncMs: entry.sync_minutes * MINUTE,
    before: (entry.before ?? []).map((rule) => {
      const r = rule as z.output<typeof beforeRule>;
      return {
        beforeMs: leadMs((r.minutes ?? r.duration)!),
        ...(r.title ? { title: r.title } : {}),
        action: r.prompt
          ? { kind: 'prompt' as const, text: r.prompt }
          : { kind: 'notify' as const, template: r.notify ?? DEFAULT_NOTIFY },
        ...(r.deliver_to ? { deliverTo: r.deliver_to } : {}),
      };
    }),
  }));
}

/**
 * The secrets of every calendar (for the redactor): CalDAV passwords, and ICS URLs (a "secret address" of
 * Google or iCloud is the only key to that calendar).
 */
export function calendarSecrets(calendars: readonly CalendarConfig[]): string[] {
  return calendars.map((calendar) =>
    calendar.source.kind === 'caldav' ? calendar.source.password : calendar.source.url,
  );
}

/** Whether `title` passes a rule's filter (`/regex/flags`, or a case-insensitive substring). */
export function titleMatches(filter: string | undefined, title: string): boolean {
  if (filter === undefined) return true;
  const regex = /^\/(.+)\/([a-z]*)$/.exec(filter);
  if (regex) return new RegExp(regex[1]!, regex[2]!.replace(/[gy]/g, '')).test(title);
  return title.toLowerCase().includes(filter.toLowerCase());
}
