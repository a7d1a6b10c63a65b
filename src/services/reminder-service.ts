import type { ReminderStore, Stores } from '../store/open-stores.js';
import type { Reminder, ReminderMode } from '../store/reminder-repository.js';
import type { ServiceContext } from './service-context.js';
import { invalid, notFound, type ServiceFailure } from './service-failure.js';

export type { Reminder, ReminderMode, ServiceFailure };

export interface ReminderRequest {
  text: string;
  /** What the owner wrote: `in 20m`, `tomorrow at 9`, an ISO time, `every weekday at 7:30`, a cron … */
  when: string;
  mode?: ReminderMode;
  deliverTo?: readonly string[];
  sessionId?: string;
}

export interface ReminderEdit {
  text?: string;
  /** A new time as people write it, parsed exactly as `add` parses one. */
  when?: string;
  mode?: ReminderMode;
}

/** A reminder stored, with its time as a person reads it (`Wed 2026-12-02 09:00 (Europe/Berlin)`). */
export type ReminderResult = { ok: true; reminder: Reminder; description: string } | ServiceFailure;

/** The longest reminder text kept (the rest of a paste is not a reminder). */
export const MAX_REMINDER_CHARS = 2_000;

/** The owner's reminders: the one implementation the `reminder` tool, `wren reminder add|list|cancel` and `/api/reminders` share. */
export interface ReminderService {
  /**
   * Validates and stores one reminder. `when` is parsed deterministically in the owner's zone at the
   * context's now; targets must look like `channel:chat` or `webhook:name`; `fallbackTargets` (each face's
   * own: this chat, the API session, `proactive.deliver_to` …) apply when the request names none. Never
   * throws for bad input: says what to fix (`invalid`).
   */
  add(request: ReminderRequest, fallbackTargets: readonly string[]): Promise<ReminderResult>;
  /**
   * Changes an active reminder: its text (same rules as a new one), its mode, or its time — `when` replaces
   * the whole schedule (a one-off may become recurring and back). Targets and session stay. `not_found`
   * when there is no active reminder `id` (unknown, done or cancelled).
   */
  edit(id: number, edit: ReminderEdit): Promise<ReminderResult>;
  get(id: number): Reminder | undefined;
  /** Active reminders by next time; `all`: every reminder, newest first. */
  list(which?: 'active' | 'all'): Reminder[];
  /** Cancels an active reminder; `not_found` when `id` is none (unknown, done or already cancelled). */
  cancel(id: number): { ok: true } | ServiceFailure;
}

const noActive = (id: number) => notFound(`No active reminder ${id}.`);

function checkText(text: string): ServiceFailure | undefined {
  if (!text) return invalid('A reminder needs some text: what should Wren remind you of?', 'text');
  if (text.length > MAX_REMINDER_CHARS)
    return invalid(
      `The reminder text is ${text.length} characters; keep it under ${MAX_REMINDER_CHARS}.`,
      'text',
    );
  return undefined;
}

/** A schedule parsed from words, with its first occurrence and how to confirm it. */
type Parsed = {
  ok: true;
  schedule: { at?: number; cron?: string; timezone: string; nextAt: number };
  description: string;
};

/** Parses `when` in `timezone` at `now` (the parser and chrono load with the first reminder, not at start-up). */
async function parseSchedule(text: string, now: number, timezone: string): Promise<Parsed | ServiceFailure> {
  const [{ parseWhen }, { nextOccurrence }, { describeAt }] = await Promise.all([
    import('../proactive/parse-when.js'),
    import('../util/schedule.js'),
    import('../proactive/describe-at.js'),
  ]);
  const parsed = parseWhen(text, { now, timezone });
  if (!parsed.ok) return invalid(parsed.error, 'when');
  const when = parsed.when;
  const zone = 'at' in when ? timezone : when.timezone;
  const next = nextOccurrence('at' in when ? { at: when.at } : { cron: when.cron, timezone: zone }, now - 1);
  if (next === undefined) return invalid(`${text} is in the past.`, 'when');
  const first = describeAt(next, zone);
  return {
    ok: true,
    schedule: { ...('at' in when ? { at: when.at } : { cron: when.cron }), timezone: zone, nextAt: next },
    description: 'at' in when ? first : `${parsed.description}; first ${first}`,
  };
}

/** How `edit` confirms a reminder whose time did not change. */
async function currentDescription(reminder: Reminder): Promise<string> {
  const { describeAt } = await import('../proactive/describe-at.js');
  const next =
    reminder.nextAt === undefined ? reminder.status : describeAt(reminder.nextAt, reminder.timezone);
  return reminder.cron ? `cron "${reminder.cron}"; next ${next}` : next;
}

async function addReminder(
  reminders: ReminderStore,
  context: ServiceContext,
  request: ReminderRequest,
  fallbackTargets: readonly string[],
): Promise<ReminderResult> {
  const text = request.text.trim();
  const refused = checkText(text);
  if (refused) return refused;
  const targets = request.deliverTo?.length ? [...request.deliverTo] : [...fallbackTargets];
  const { TARGET } = await import('../proactive/proactive-config.js');
  const bad = targets.find((target) => !TARGET.test(target));
  if (bad)
    return invalid(
      `"${bad}" is not a delivery target; use channel:chat (telegram:123) or webhook:name.`,
      'deliverTo',
    );
  const parsed = await parseSchedule(request.when, context.now(), context.timezone());
  if (!parsed.ok) return parsed;
  const reminder = reminders.create({
    text,
    mode: request.mode ?? 'notify',
    ...parsed.schedule,
    deliverTo: targets,
    ...(request.sessionId ? { sessionId: request.sessionId } : {}),
  });
  return { ok: true, reminder, description: parsed.description };
}

async function editReminder(
  reminders: ReminderStore,
  context: ServiceContext,
  id: number,
  edit: ReminderEdit,
): Promise<ReminderResult> {
  const current = reminders.get(id);
  if (current?.status !== 'active') return noActive(id);
  const text = edit.text?.trim();
  const refused = text === undefined ? undefined : checkText(text);
  if (refused) return refused;
  const parsed =
    edit.when === undefined ? undefined : await parseSchedule(edit.when, context.now(), context.timezone());
  if (parsed && !parsed.ok) return parsed;
  const reminder = reminders.update(id, {
    ...(text !== undefined ? { text } : {}),
    ...(edit.mode ? { mode: edit.mode } : {}),
    ...(parsed ? { schedule: parsed.schedule } : {}),
  });
  if (!reminder) return noActive(id);
  return { ok: true, reminder, description: parsed?.description ?? (await currentDescription(current)) };
}

/** The reminder service over the home's reminder store, in the context's zone and clock. */
export function createReminderService(
  stores: Pick<Stores, 'reminders'>,
  context: ServiceContext,
): ReminderService {
  const reminders = stores.reminders;
  return {
    add: (request, fallbackTargets) => addReminder(reminders, context, request, fallbackTargets),
    edit: (id, edit) => editReminder(reminders, context, id, edit),
    get: (id) => reminders.get(id),
    list: (which = 'active') => reminders.list(which),
    cancel: (id) => (Number.isInteger(id) && reminders.cancel(id) ? { ok: true } : noActive(id)),
  };
}
