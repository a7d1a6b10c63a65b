/**
 * Goal records as storage keeps them (schema v6) and their rows. The rules over them (limits, checks,
 * GoalError) are the goal domain's: src/proactive/goals/, which re-exports these types.
 */

export const GOAL_STATUSES = ['active', 'paused', 'done', 'cancelled'] as const;
export type GoalStatus = (typeof GOAL_STATUSES)[number];
export const STEP_STATUSES = ['pending', 'in_progress', 'done', 'blocked', 'skipped'] as const;
export type StepStatus = (typeof STEP_STATUSES)[number];
export type ProposalStatus = 'pending' | 'accepted' | 'dismissed';

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

/**
 * A goal to write, every value already checked by the goal rules: storage writes what it is given. An
 * absent zone is the store's (the owner's); the goal starts active with no passes.
 */
export interface NewGoalRecord {
  title: string;
  why?: string;
  dueDate?: string;
  checkinCron?: string;
  timezone?: string;
  nextCheckinAt?: number;
  sessionId?: string;
  deliverTo?: readonly string[];
  /** The first plan, in order. */
  steps?: readonly ProposedStep[];
}

/** A goal's changeable fields as written (`null`: none). */
export interface GoalFields {
  title: string;
  why: string | null;
  status: GoalStatus;
  dueDate: string | null;
  checkinCron: string | null;
  timezone: string;
  nextCheckinAt: number | null;
}

/** A step's changeable fields as written. */
export interface StepFields {
  title: string;
  status: StepStatus;
  notes: string;
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
