/** Goal records as the code uses them (schema v6), their rows, and the checks every writer shares. */
import { isTimeZone } from '../util/time-zone.js';

export const GOAL_STATUSES = ['active', 'paused', 'done', 'cancelled'] as const;
export type GoalStatus = (typeof GOAL_STATUSES)[number];
export const STEP_STATUSES = ['pending', 'in_progress', 'done', 'blocked', 'skipped'] as const;
export type StepStatus = (typeof STEP_STATUSES)[number];
export type ProposalStatus = 'pending' | 'accepted' | 'dismissed';

/** Limits that keep a goal small enough for a compact prompt. */
export const GOAL_LIMITS = {
  title: 200,
  why: 2000,
  notes: 2000,
  reason: 2000,
  steps: 50,
  /** Pending proposals per goal: more wait for the owner to decide. */
  pendingProposals: 3,
} as const;

export interface Goal {
  id: number;
  title: string;
  why?: string;
  status: GoalStatus;
  /** Local `YYYY-MM-DD` in `timezone`. */
  dueDate?: string;
  /** Check-ins: a cron expression read in `timezone`. */
  checkinCron?: string;
  timezone: string;
  /** The next check-in (UTC ms); undefined without a check-in schedule or while the goal is not active. */
  nextCheckinAt?: number;
  /** Goal passes claimed so far. */
  passes: number;
  lastPassAt?: number;
  lastTouchedAt: number;
  /** The conversation the goal came from (check-ins continue there). */
  sessionId?: string;
  /** Where check-ins are delivered (`channel:chat`, `webhook:name`). */
  deliverTo: string[];
  createdAt: number;
  updatedAt: number;
}

export interface GoalStep {
  id: number;
  goalId: number;
  position: number;
  title: string;
  status: StepStatus;
  notes: string;
  updatedAt: number;
}

/** A step of a proposed plan. */
export interface ProposedStep {
  title: string;
  status?: StepStatus;
  notes?: string;
}

export interface GoalProposal {
  id: number;
  goalId: number;
  reason: string;
  /** The complete new plan. */
  steps: ProposedStep[];
  status: ProposalStatus;
  createdAt: number;
  decidedAt?: number;
}

/** A goal with its plan and the proposals waiting for the owner. */
export interface GoalDetail extends Goal {
  steps: GoalStep[];
  proposals: GoalProposal[];
}

/** Why a goal operation failed: nothing with that id, input to fix, or a state that forbids it. */
export class GoalError extends Error {
  override name = 'GoalError';
  constructor(
    readonly code: 'not_found' | 'invalid' | 'conflict',
    message: string,
  ) {
    super(message);
  }
}

export interface GoalRow {
  id: number;
  title: string;
  why: string | null;
  status: GoalStatus;
  due_date: string | null;
  checkin_cron: string | null;
  timezone: string;
  next_checkin_at: number | null;
  passes: number;
  last_pass_at: number | null;
  last_touched_at: number;
  session_id: string | null;
  deliver_to: string;
  created_at: number;
  updated_at: number;
}

export function toGoal(row: GoalRow): Goal {
  return {
    id: row.id,
    title: row.title,
    ...(row.why !== null ? { why: row.why } : {}),
    status: row.status,
    ...(row.due_date !== null ? { dueDate: row.due_date } : {}),
    ...(row.checkin_cron !== null ? { checkinCron: row.checkin_cron } : {}),
    timezone: row.timezone,
    ...(row.next_checkin_at !== null ? { nextCheckinAt: row.next_checkin_at } : {}),
    passes: row.passes,
    ...(row.last_pass_at !== null ? { lastPassAt: row.last_pass_at } : {}),
    lastTouchedAt: row.last_touched_at,
    ...(row.session_id !== null ? { sessionId: row.session_id } : {}),
    deliverTo: JSON.parse(row.deliver_to) as string[],
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export interface StepRow {
  id: number;
  goal_id: number;
  position: number;
  title: string;
  status: StepStatus;
  notes: string;
  updated_at: number;
}

export const toStep = (row: StepRow): GoalStep => ({
  id: row.id,
  goalId: row.goal_id,
  position: row.position,
  title: row.title,
  status: row.status,
  notes: row.notes,
  updatedAt: row.updated_at,
});

export interface ProposalRow {
  id: number;
  goal_id: number;
  reason: string;
  steps: string;
  status: ProposalStatus;
  created_at: number;
  decided_at: number | null;
}

export const toProposal = (row: ProposalRow): GoalProposal => ({
  id: row.id,
  goalId: row.goal_id,
  reason: row.reason,
  steps: JSON.parse(row.steps) as ProposedStep[],
  status: row.status,
  createdAt: row.created_at,
  ...(row.decided_at !== null ? { decidedAt: row.decided_at } : {}),
});

/** `YYYY-MM-DD` of `at` (UTC ms) in the IANA `timezone`. */
export function localDate(at: number, timezone: string): string {
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone: timezone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).formatToParts(at);
  const get = (type: string) => parts.find((part) => part.type === type)?.value ?? '';
  return `${get('year')}-${get('month')}-${get('day')}`;
}

/** @throws GoalError (invalid) unless `text` is a real calendar day as `YYYY-MM-DD`. */
export function checkDueDate(text: string): string {
  const day = text.trim();
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  const date = match
    ? new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])))
    : undefined;
  if (!match || date?.getUTCMonth() !== Number(match[2]) - 1 || date.getUTCDate() !== Number(match[3]))
    throw new GoalError('invalid', `Invalid due date "${text}": use YYYY-MM-DD, e.g. 2026-12-24.`);
  return day;
}

/** @throws GoalError (invalid) unless `timezone` is an IANA zone this runtime knows. */
export function checkTimezone(timezone: string): string {
  if (isTimeZone(timezone)) return timezone;
  throw new GoalError('invalid', `Unknown time zone "${timezone}": use an IANA name such as Europe/Berlin.`);
}

/** @throws GoalError (invalid) when `text` is empty or longer than `max`; returns it trimmed. */
export function checkText(text: string, what: string, max: number): string {
  const trimmed = text.trim();
  if (!trimmed) throw new GoalError('invalid', `A ${what} cannot be empty.`);
  if (trimmed.length > max)
    throw new GoalError('invalid', `The ${what} is too long (${trimmed.length} > ${max} characters).`);
  return trimmed;
}
