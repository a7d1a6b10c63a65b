import type { GoalStore, OutboxStore, ReminderStore, TaskStore } from '../store/ports.js';
import { localDate } from './briefing-source.js';

/** One event of today's agenda (from the owner's calendars). */
export interface AgendaItem {
  start: number;
  end?: number;
  allDay?: boolean;
  title: string;
  location?: string;
  calendar?: string;
}

/** What a briefing is composed from: gathered by code, never by the model. */
export interface BriefingData {
  /** The owner's local date, `YYYY-MM-DD`, and weekday name. */
  date: string;
  weekday: string;
  timezone: string;
  agenda: AgendaItem[];
  tasks: Array<{ title: string; due?: string; priority: string; overdue: boolean }>;
  reminders: Array<{ at: number; text: string }>;
  /** Summaries the mail watches wrote since this time yesterday (third-party words, summarised). */
  mail: Array<{ title: string; summary: string }>;
  goals: Array<{ title: string; nextStep?: string; dueDate?: string }>;
  weather?: string;
  /** What could not be gathered (a calendar or the forecast unreachable), said in the briefing. */
  gaps: string[];
}

export interface BriefingSources {
  tasks: TaskStore;
  reminders: ReminderStore;
  goals: GoalStore;
  outbox: OutboxStore;
  /** Today's events across the calendars (absent: no calendars configured). */
  agenda?: (from: number, to: number) => AgendaItem[] | Promise<AgendaItem[]>;
  /** Today's forecast as one line (absent: no `briefing.weather`); rejects when unreachable. */
  weather?: (signal?: AbortSignal) => Promise<string>;
}

const DAY = 24 * 60 * 60_000;
const MAX_ITEMS = 20;
const MAX_MAIL_CHARS = 600;

/**
 * The owner's local day containing `now`, as UTC instants [start, end). Local midnight moves with DST, so the
 * bounds are found by stepping in quarter hours (zones change offset on quarter hours) rather than assumed.
 */
export function localDayBounds(now: number, timezone: string): { start: number; end: number } {
  const today = localDate(now, timezone);
  const STEP = 15 * 60_000;
  let start = now - (now % STEP);
  while (localDate(start - STEP, timezone) === today) start -= STEP;
  let end = now - (now % STEP) + STEP;
  while (localDate(end, timezone) === today) end += STEP;
  return { start, end };
}

function gatherTasks(store: TaskStore, today: string): BriefingData['tasks'] {
  return store
    .list('open', 500)
    .filter((task) => (task.due !== undefined && task.due.slice(0, 10) <= today) || task.priority === 'high')
    .map((task) => ({
      title: task.title.slice(0, 200),
      ...(task.due ? { due: task.due } : {}),
      priority: task.priority,
      overdue: task.due !== undefined && task.due.slice(0, 10) < today,
    }))
    .slice(0, MAX_ITEMS);
}

function gatherGoals(store: GoalStore): BriefingData['goals'] {
  return store.list('active', MAX_ITEMS).map((goal) => {
    const next = store
      .get(goal.id)
      ?.steps.find((step) => step.status !== 'done' && step.status !== 'skipped');
    return {
      title: goal.title.slice(0, 200),
      ...(next ? { nextStep: next.title.slice(0, 200) } : {}),
      ...(goal.dueDate ? { dueDate: goal.dueDate } : {}),
    };
  });
}

function gatherMail(outbox: OutboxStore, since: number): BriefingData['mail'] {
  return outbox
    .feed(200)
    .filter(
      (entry) =>
        entry.kind === 'trigger' &&
        entry.createdAt >= since &&
        !entry.failed &&
        !entry.quiet &&
        /^mail\b/i.test(entry.title),
    )
    .slice(0, MAX_ITEMS)
    .map((entry) => ({ title: entry.title.slice(0, 200), summary: entry.text.slice(0, MAX_MAIL_CHARS) }));
}

/**
 * Everything today's briefing says, read from the stores (and the calendars and forecast when configured)
 * without the model: open tasks due today or overdue (and high-priority ones), reminders still due today,
 * mail summaries of the last 24 hours, active goals with their next open step, today's agenda, the weather.
 * A calendar or forecast that fails becomes a gap the briefing mentions, never a failed briefing.
 */
export async function gatherBriefing(
  sources: BriefingSources,
  now: number,
  timezone: string,
  signal?: AbortSignal,
): Promise<BriefingData> {
  const date = localDate(now, timezone);
  const { start, end } = localDayBounds(now, timezone);
  const gaps: string[] = [];
  let agenda: AgendaItem[] = [];
  if (sources.agenda) {
    try {
      agenda = (await sources.agenda(start, end))
        .filter((item) => (item.end ?? item.start) >= start && item.start < end)
        .sort((a, b) => a.start - b.start)
        .slice(0, MAX_ITEMS);
    } catch (error) {
      gaps.push(`the calendars could not be read (${(error as Error).message})`);
    }
  }
  let weather: string | undefined;
  if (sources.weather) {
    try {
      weather = await sources.weather(signal);
    } catch (error) {
      gaps.push(`the forecast could not be fetched (${(error as Error).message})`);
    }
  }
  return {
    date,
    weekday: new Intl.DateTimeFormat('en-GB', { timeZone: timezone, weekday: 'long' }).format(now),
    timezone,
    agenda,
    tasks: gatherTasks(sources.tasks, date),
    reminders: sources.reminders
      .list('active', 500)
      .filter((reminder) => reminder.nextAt !== undefined && reminder.nextAt >= now && reminder.nextAt < end)
      .sort((a, b) => (a.nextAt ?? 0) - (b.nextAt ?? 0))
      .slice(0, MAX_ITEMS)
      .map((reminder) => ({ at: reminder.nextAt!, text: reminder.text.slice(0, 200) })),
    mail: gatherMail(sources.outbox, now - DAY),
    goals: gatherGoals(sources.goals),
    ...(weather ? { weather } : {}),
    gaps,
  };
}
