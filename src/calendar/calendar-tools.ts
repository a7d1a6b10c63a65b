import { z } from 'zod';
import { type Tool, ToolError } from '../agent/tool.js';
import { TOOL_AREAS } from '../agent/tool-catalog.js';
import { toolSchema } from '../agent/tool-schema.js';
import { fromWallClock, toWallClock } from '../proactive/wall-clock.js';
import type { CalendarOccurrence } from '../store/calendar-repository.js';
import type { CalendarService, FreeSlot } from './calendar-service.js';

const DAY = 86_400_000;
const MINUTE = 60_000;
const time = z
  .string()
  .describe('ISO date or date-time; without an offset it is the owner\'s local time ("2026-12-03T15:00")');

const readParameters = z
  .object({
    action: z.enum(['list', 'free']),
    from: time.optional().describe('start of the range (default: now)'),
    to: time.optional().describe('end of the range (default: 7 days after from)'),
    calendars: z.array(z.string()).optional().describe('only these calendars (default: all)'),
    minutes: z
      .number()
      .int()
      .min(5)
      .max(24 * 60)
      .optional()
      .describe('free: the length of time needed (default 60)'),
    hours: z
      .string()
      .regex(/^\d{1,2}:\d{2}-\d{1,2}:\d{2}$/)
      .optional()
      .describe('free: only within these daily local hours, such as "09:00-18:00"'),
  })
  .strict();

const writeParameters = z
  .object({
    action: z.enum(['create', 'move', 'cancel']),
    calendar: z.string().describe('the calendar name (see calendar list)'),
    id: z.string().optional().describe('move, cancel: the event id from calendar list'),
    occurrence: z
      .string()
      .optional()
      .describe(
        'move, cancel: only this occurrence of a repeating event (its occurrence value from calendar list)',
      ),
    title: z.string().min(1).max(500).optional().describe('create: the title'),
    start: time.optional().describe('create, move: when it starts'),
    end: time.optional().describe('create: when it ends (default: one hour); move: default keeps the length'),
    location: z.string().max(500).optional(),
    description: z.string().max(4000).optional(),
  })
  .strict();

/** A time the model wrote: with an offset or Z it is that instant; without, the owner's wall clock. */
export function parseToolTime(text: string, timezone: string): number {
  const trimmed = text.trim();
  if (/(Z|[+-]\d{2}:?\d{2})$/i.test(trimmed)) {
    const at = Date.parse(trimmed);
    if (Number.isNaN(at)) throw new ToolError(`"${text}" is not a date-time.`);
    return at;
  }
  const match = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2}))?)?$/.exec(trimmed);
  if (!match) throw new ToolError(`"${text}" is not an ISO date or date-time such as 2026-12-03T15:00.`);
  const [, y, m, d, h = '0', mi = '0', s = '0'] = match;
  return fromWallClock(
    Date.UTC(Number(y), Number(m) - 1, Number(d), Number(h), Number(mi), Number(s)),
    timezone,
  ).at;
}

function formatter(timezone: string) {
  const day = new Intl.DateTimeFormat('en-GB', {
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    timeZone: timezone,
  });
  const clock = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', timeZone: timezone });
  return {
    at: (instant: number) => `${day.format(instant)} ${clock.format(instant)}`,
    span: (start: number, end: number, allDay = false) =>
      allDay
        ? `${day.format(start)} (all day)`
        : `${day.format(start)} ${clock.format(start)}–${clock.format(end)}`,
  };
}

function eventLine(event: CalendarOccurrence, format: ReturnType<typeof formatter>): string {
  const where = event.location ? ` @ ${event.location}` : '';
  const occurrence = event.occurrence ? `, occurrence: ${event.occurrence}` : '';
  return `- [${event.calendar}] ${format.span(event.start, event.end, event.allDay)} ${event.summary}${where} (id: ${event.uid}${occurrence})`;
}

/** Keeps the parts of `slots` within the daily local hours `hours` ("09:00-18:00") of `timezone`. */
export function withinHours(
  slots: readonly FreeSlot[],
  hours: string,
  timezone: string,
  minMs: number,
): FreeSlot[] {
  const [startText, endText] = hours.split('-') as [string, string];
  const minutes = (text: string) => {
    const [h, m] = text.split(':').map(Number) as [number, number];
    return (h * 60 + m) * MINUTE;
  };
  const open = minutes(startText);
  const close = minutes(endText);
  const result: FreeSlot[] = [];
  for (const slot of slots) {
    const firstDay = toWallClock(slot.start, timezone) - (toWallClock(slot.start, timezone) % DAY);
    for (let day = firstDay; fromWallClock(day, timezone).at < slot.end; day += DAY) {
      const start = Math.max(slot.start, fromWallClock(day + open, timezone).at);
      const end = Math.min(slot.end, fromWallClock(day + close, timezone).at);
      if (end - start >= minMs) result.push({ start, end });
    }
  }
  return result;
}

export interface CalendarToolDeps {
  service: CalendarService;
  now: () => number;
  timezone: () => string;
  /** Where a calendar's writes go (its CalDAV host), for the gate. */
  hostOf: (calendar: string) => string | undefined;
}

/**
 * `calendar` (read: list events in a range, find free time) and `calendar_edit` (create, move, cancel an event
 * on a CalDAV calendar). They are two tools so the gate can tell them apart by risk: reading is safe, while a
 * write changes the owner's calendar on another server (and may invite people), so it is `sensitive` and asks
 * the owner in the default mode, as anything that acts in the owner's name does. Event text is written by
 * others (invitations, subscriptions), so read results taint the session as untrusted.
 */
export function createCalendarTools(deps: CalendarToolDeps): Tool[] {
  const read: Tool = {
    name: 'calendar',
    description:
      "Read the owner's calendars: list events in a range, or find free time of a given length (optionally within daily hours).",
    parameters: toolSchema(readParameters),
    risk: 'safe',
    area: TOOL_AREAS.calendar,
    async execute(raw) {
      const args = readParameters.parse(raw);
      const timezone = deps.timezone();
      const from = args.from ? parseToolTime(args.from, timezone) : deps.now();
      const to = args.to ? parseToolTime(args.to, timezone) : from + 7 * DAY;
      if (!(to > from)) throw new ToolError('"to" must be after "from".');
      const format = formatter(timezone);
      if (args.action === 'list') {
        const events = deps.service.list(from, to, args.calendars);
        return {
          content: events.length
            ? events.map((event) => eventLine(event, format)).join('\n')
            : `No events between ${format.span(from, to)}.`,
          details: events,
          taint: 'untrusted',
        };
      }
      const minMs = (args.minutes ?? 60) * MINUTE;
      const all = deps.service.free(from, to, minMs, args.calendars);
      const slots = args.hours ? withinHours(all, args.hours, timezone, minMs) : all;
      return {
        content: slots.length
          ? slots.map((slot) => `- ${format.span(slot.start, slot.end)}`).join('\n')
          : `No free time of ${args.minutes ?? 60} minutes in that range.`,
        details: slots,
      };
    },
  };
  const edit: Tool = {
    name: 'calendar_edit',
    description:
      "Create, move or cancel an event on one of the owner's CalDAV calendars (asks the owner first).",
    parameters: toolSchema(writeParameters),
    risk: 'sensitive',
    area: TOOL_AREAS.calendar,
    assess(raw) {
      const calendar = typeof raw['calendar'] === 'string' ? raw['calendar'] : '?';
      const host = deps.hostOf(calendar);
      return {
        target: `${calendar}:${String(raw['action'])}`,
        ...(host ? { egress: { target: host } } : {}),
      };
    },
    async execute(raw) {
      const args = writeParameters.parse(raw);
      const timezone = deps.timezone();
      const format = formatter(timezone);
      try {
        switch (args.action) {
          case 'create': {
            if (!args.title || !args.start)
              throw new ToolError('calendar_edit create needs "title" and "start".');
            const start = parseToolTime(args.start, timezone);
            const end = args.end ? parseToolTime(args.end, timezone) : start + 60 * MINUTE;
            const { uid } = await deps.service.create({
              calendar: args.calendar,
              title: args.title,
              start,
              end,
              ...(args.location ? { location: args.location } : {}),
              ...(args.description ? { description: args.description } : {}),
            });
            return {
              content: `Created "${args.title}" on ${args.calendar}, ${format.span(start, end)} (id: ${uid}).`,
            };
          }
          case 'move': {
            if (!args.id || !args.start) throw new ToolError('calendar_edit move needs "id" and "start".');
            const start = parseToolTime(args.start, timezone);
            await deps.service.move(
              args.calendar,
              args.id,
              start,
              args.end ? parseToolTime(args.end, timezone) : undefined,
              args.occurrence,
            );
            return { content: `Moved ${args.id} on ${args.calendar}: it now starts ${format.at(start)}.` };
          }
          case 'cancel': {
            if (!args.id) throw new ToolError('calendar_edit cancel needs "id".');
            await deps.service.cancel(args.calendar, args.id, args.occurrence);
            return { content: `Cancelled ${args.id} on ${args.calendar}.` };
          }
        }
      } catch (error) {
        if (error instanceof ToolError) throw error;
        throw new ToolError((error as Error).message);
      }
    },
  };
  return [read, edit];
}
