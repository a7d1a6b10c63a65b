import type { ReminderStore } from '../store/ports.js';
import type { Reminder, ReminderMode } from '../store/reminder-repository.js';
import { nextOccurrence } from '../util/schedule.js';
import { describeAt } from './describe-at.js';
import { parseWhen } from './parse-when.js';
import { TARGET } from './proactive-config.js';

export interface ReminderRequest {
  text: string;
  /** What the owner wrote: `in 20m`, `tomorrow at 9`, an ISO time, `every weekday at 7:30`, a cron … */
  when: string;
  mode?: ReminderMode;
  deliverTo?: readonly string[];
  sessionId?: string;
}

export type AddReminderResult =
  | { ok: true; reminder: Reminder; description: string }
  | { ok: false; error: string };

/** The longest reminder text kept (the rest of a paste is not a reminder). */
export const MAX_REMINDER_CHARS = 2_000;

/**
 * Validates and stores one reminder — the one path the tool, the CLI and the API share. `when` is parsed
 * deterministically in `timezone` at `now`; targets must look like `channel:chat` or `webhook:name`;
 * `fallbackTargets` apply when the request names none. Never throws for bad input: says what to fix.
 */
export function addReminder(
  reminders: ReminderStore,
  request: ReminderRequest,
  context: { now: number; timezone: string; fallbackTargets: readonly string[] },
): AddReminderResult {
  const text = request.text.trim();
  if (!text) return { ok: false, error: 'A reminder needs some text: what should Wren remind you of?' };
  if (text.length > MAX_REMINDER_CHARS)
    return {
      ok: false,
      error: `The reminder text is ${text.length} characters; keep it under ${MAX_REMINDER_CHARS}.`,
    };
  const targets = request.deliverTo?.length ? [...request.deliverTo] : [...context.fallbackTargets];
  const bad = targets.find((target) => !TARGET.test(target));
  if (bad)
    return {
      ok: false,
      error: `"${bad}" is not a delivery target; use channel:chat (telegram:123) or webhook:name.`,
    };
  const parsed = parseWhen(request.when, { now: context.now, timezone: context.timezone });
  if (!parsed.ok) return parsed;
  const when = parsed.when;
  const schedule = 'at' in when ? { at: when.at } : { cron: when.cron, timezone: when.timezone };
  const next = nextOccurrence(schedule, context.now - 1);
  if (next === undefined) return { ok: false, error: `${request.when} is in the past.` };
  const reminder = reminders.create({
    text,
    mode: request.mode ?? 'notify',
    ...('at' in when ? { at: when.at } : { cron: when.cron }),
    timezone: 'at' in when ? context.timezone : when.timezone,
    nextAt: next,
    deliverTo: targets,
    ...(request.sessionId ? { sessionId: request.sessionId } : {}),
  });
  const first = describeAt(next, reminder.timezone);
  return {
    ok: true,
    reminder,
    description: 'at' in when ? first : `${parsed.description}; first ${first}`,
  };
}
