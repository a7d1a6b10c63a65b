import type { GoalFields, StepFields } from '../../store/goal-records.js';
import { nextOccurrence, validateCron } from '../../util/schedule.js';
import {
  checkDueDate,
  checkText,
  checkTimezone,
  GOAL_LIMITS,
  type Goal,
  GoalError,
  type GoalStatus,
  type ProposedStep,
  type StepStatus,
} from './goal-records.js';

/** A goal to create. */
export interface NewGoal {
  title: string;
  why?: string;
  /** `YYYY-MM-DD` in the goal's zone. */
  dueDate?: string;
  /** Check-ins on this cron expression, read in the goal's zone. */
  checkinCron?: string;
  /** Default: the repository's zone (the owner's). */
  timezone?: string;
  sessionId?: string;
  deliverTo?: string[];
  /** The first plan, in order. */
  steps?: ProposedStep[];
}

/** Changes to a step. */
export interface StepChanges {
  title?: string;
  status?: StepStatus;
  /** Replaces the step's notes ('' clears them). */
  notes?: string;
}

/** Changes to a goal: `null` clears an optional field; absent leaves it. */
export interface GoalChanges {
  title?: string;
  why?: string | null;
  status?: GoalStatus;
  /** `YYYY-MM-DD` in the goal's zone. */
  dueDate?: string | null;
  /** A cron expression read in the goal's zone; `null` or '' stops check-ins. */
  checkinCron?: string | null;
  timezone?: string;
}

/** A goal's stored fields after `GoalChanges`, as the store writes them. */
export type ChangedGoal = GoalFields;

/**
 * A check-in schedule checked and its first occurrence after `at`.
 * @throws GoalError (invalid) for an expression croner refuses or one that never occurs again.
 */
export function checkinSchedule(cron: string, timezone: string, at: number): { cron: string; next: number } {
  const expression = cron.trim();
  const problem = expression ? validateCron(expression, timezone) : 'it is empty';
  if (problem)
    throw new GoalError(
      'invalid',
      `Invalid check-in schedule "${cron}" (${problem}): use a cron expression such as "0 18 * * 5" (Fridays 18:00).`,
    );
  const next = nextOccurrence({ cron: expression, timezone }, at);
  if (next === undefined)
    throw new GoalError('invalid', `The check-in schedule "${cron}" never occurs again: pick another.`);
  return { cron: expression, next };
}

/**
 * Applies `changes` to `goal` at `at`, checking every new value. Check-ins: an active goal whose schedule,
 * zone or status changed starts afresh from `at` (a resumed goal does not catch up the check-ins it missed
 * while paused); otherwise its next check-in stands; a goal that is not active has none.
 * @throws GoalError (invalid) naming the value to fix.
 */
export function applyGoalChanges(goal: Goal, changes: GoalChanges, at: number): ChangedGoal {
  const status = changes.status ?? goal.status;
  const timezone = changes.timezone === undefined ? goal.timezone : checkTimezone(changes.timezone);
  const cron =
    changes.checkinCron === undefined ? (goal.checkinCron ?? null) : changes.checkinCron?.trim() || null;
  const rescheduled =
    changes.checkinCron !== undefined || timezone !== goal.timezone || status !== goal.status;
  // A new schedule is checked even on a paused goal, so resuming it cannot fail later.
  const schedule = cron !== null && rescheduled ? checkinSchedule(cron, timezone, at) : undefined;
  const nextCheckinAt =
    status !== 'active' || cron === null ? null : (schedule?.next ?? goal.nextCheckinAt ?? null);
  return {
    title:
      changes.title === undefined ? goal.title : checkText(changes.title, 'goal title', GOAL_LIMITS.title),
    why:
      changes.why === undefined
        ? (goal.why ?? null)
        : changes.why?.trim()
          ? checkText(changes.why, 'goal reason', GOAL_LIMITS.why)
          : null,
    status,
    dueDate:
      changes.dueDate === undefined
        ? (goal.dueDate ?? null)
        : changes.dueDate === null
          ? null
          : checkDueDate(changes.dueDate),
    checkinCron: cron,
    timezone,
    nextCheckinAt,
  };
}

/** Step notes as stored: trimmed. @throws GoalError (invalid) when too long. */
export function checkNotes(text: string): string {
  const notes = text.trim();
  if (notes.length > GOAL_LIMITS.notes)
    throw new GoalError(
      'invalid',
      `Step notes are too long (${notes.length} > ${GOAL_LIMITS.notes} characters).`,
    );
  return notes;
}

/** A plan as stored. @throws GoalError (invalid) unless it has 1 to GOAL_LIMITS.steps steps with titles. */
export function checkPlan(steps: readonly ProposedStep[]): ProposedStep[] {
  if (steps.length === 0 || steps.length > GOAL_LIMITS.steps)
    throw new GoalError(
      'invalid',
      `A plan has 1 to ${GOAL_LIMITS.steps} steps (a proposal lists the complete new plan).`,
    );
  return steps.map((step) => ({
    title: checkText(step.title, 'step title', GOAL_LIMITS.title),
    ...(step.status && step.status !== 'pending' ? { status: step.status } : {}),
    ...(step.notes?.trim() ? { notes: checkNotes(step.notes) } : {}),
  }));
}

/** One step as stored: its title and notes checked, pending unless it says otherwise. @throws GoalError (invalid). */
export function checkStep(step: ProposedStep): StepFields {
  return {
    title: checkText(step.title, 'step title', GOAL_LIMITS.title),
    status: step.status ?? 'pending',
    notes: checkNotes(step.notes ?? ''),
  };
}
