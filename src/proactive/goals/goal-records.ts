/**
 * The goal domain's records and the checks every writer shares. The record types are storage's (the store
 * returns them; see src/store/goal-records.ts) and are re-exported here, so the rest of Wren names them from
 * the domain; the limits, the checks and GoalError are the domain's own.
 */
import { isTimeZone } from '../../util/time-zone.js';

export {
  GOAL_STATUSES,
  type Goal,
  type GoalDetail,
  type GoalProposal,
  type GoalStatus,
  type GoalStep,
  type ProposalStatus,
  type ProposedStep,
  STEP_STATUSES,
  type StepStatus,
} from '../../store/goal-records.js';

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
