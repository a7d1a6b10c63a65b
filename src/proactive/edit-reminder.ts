import type { ReminderStore } from '../store/ports.js';
import type { Reminder, ReminderMode } from '../store/reminder-repository.js';
import { nextOccurrence } from '../util/schedule.js';
import { MAX_REMINDER_CHARS } from './add-reminder.js';
import { describeAt } from './describe-at.js';
import { parseWhen } from './parse-when.js';

export interface ReminderEdit {
  text?: string;
  /** A new time as people write it, parsed exactly as `addReminder` parses one. */
  when?: string;
  mode?: ReminderMode;
}

export type EditReminderResult =
  | { ok: true; reminder: Reminder; description: string }
  | { ok: false; missing: true; error: string }
  | { ok: false; missing?: false; error: string };

/**
 * Changes an active reminder: its text (same rules as a new one), its mode, or its time — `when` is parsed
 * deterministically in `timezone` at `now` like `addReminder` does, and replaces the whole schedule (a
 * one-off may become recurring and back). Targets and session stay. `description` confirms the time as
 * `addReminder` words it. Never throws for bad input: says what to fix, or that there is no such reminder
 * (`missing`: unknown, done or cancelled).
 */
export function editReminder(
  reminders: ReminderStore,
  id: number,
  edit: ReminderEdit,
  context: { now: number; timezone: string },
): EditReminderResult {
  const missing = { ok: false, missing: true, error: `No active reminder ${id}.` } as const;
  const current = reminders.get(id);
  if (current?.status !== 'active') return missing;
  const text = edit.text?.trim();
  if (text !== undefined && !text)
    return { ok: false, error: 'A reminder needs some text: what should Wren remind you of?' };
  if (text !== undefined && text.length > MAX_REMINDER_CHARS)
    return {
      ok: false,
      error: `The reminder text is ${text.length} characters; keep it under ${MAX_REMINDER_CHARS}.`,
    };
  let schedule: { at?: number; cron?: string; timezone: string; nextAt: number } | undefined;
  let description: string;
  if (edit.when !== undefined) {
    const parsed = parseWhen(edit.when, { now: context.now, timezone: context.timezone });
    if (!parsed.ok) return parsed;
    const when = parsed.when;
    const next = nextOccurrence(
      'at' in when ? { at: when.at } : { cron: when.cron, timezone: when.timezone },
      context.now - 1,
    );
    if (next === undefined) return { ok: false, error: `${edit.when} is in the past.` };
    const zone = 'at' in when ? context.timezone : when.timezone;
    schedule = { ...('at' in when ? { at: when.at } : { cron: when.cron }), timezone: zone, nextAt: next };
    const first = describeAt(next, zone);
    description = 'at' in when ? first : `${parsed.description}; first ${first}`;
  } else {
    const next = current.nextAt === undefined ? current.status : describeAt(current.nextAt, current.timezone);
    description = current.cron ? `cron "${current.cron}"; next ${next}` : next;
  }
  const reminder = reminders.update(id, {
    ...(text !== undefined ? { text } : {}),
    ...(edit.mode ? { mode: edit.mode } : {}),
    ...(schedule ? { schedule } : {}),
  });
  return reminder ? { ok: true, reminder, description } : missing;
}
