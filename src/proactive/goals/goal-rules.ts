import type { GoalStore } from '../../store/ports.js';
import {
  applyGoalChanges,
  checkinSchedule,
  checkNotes,
  checkPlan,
  checkStep,
  type GoalChanges,
  type NewGoal,
  type StepChanges,
} from './goal-changes.js';
import {
  checkDueDate,
  checkText,
  checkTimezone,
  GOAL_LIMITS,
  type Goal,
  type GoalDetail,
  GoalError,
  type GoalProposal,
  type GoalStatus,
  type GoalStep,
  localDate,
  type ProposedStep,
} from './goal-records.js';

/**
 * The owner's goals with their rules: every value checked, plans changed only through `addStep`/`updateStep`
 * (the owner, or a step's status and notes by the model) and `accept` of a proposal, which replaces the whole
 * plan in one unit of work; `propose` never touches the steps. Every change touches the goal, so the goal
 * pass visits the most neglected goal first. Methods throw GoalError: `not_found`, `invalid` (input to fix;
 * the message says how) or `conflict`. Pass timing and check-ins are the store's own atomic methods (each
 * meant to run inside the outbox claim), so they are the port's, unchanged.
 */
export interface Goals
  extends Pick<GoalStore, 'nextPassAt' | 'recordPass' | 'dueCheckins' | 'nextCheckinAt' | 'advanceCheckin'> {
  create(goal: NewGoal): GoalDetail;
  /** `open`: active and paused goals; by status (active first), then soonest due, then oldest. */
  list(which?: 'open' | 'all' | GoalStatus, limit?: number): Goal[];
  /** The goal with its plan and its pending proposals. */
  get(id: number): GoalDetail | undefined;
  /**
   * Changes a goal. A goal that becomes (or stays) active with a check-in schedule gets its next check-in
   * from now when the schedule, its zone or the status changed (a resumed goal does not catch up the
   * check-ins it missed while paused); a goal that is not active has none.
   */
  update(id: number, changes: GoalChanges): GoalDetail;
  /** Appends a step to the plan. */
  addStep(goalId: number, step: ProposedStep): GoalStep;
  /** Changes one step of goal `goalId` (its status, notes or title). */
  updateStep(goalId: number, stepId: number, changes: StepChanges): GoalStep;
  /**
   * Records a proposed new plan for the owner to accept or dismiss; the goal's steps stay as they are.
   * @throws GoalError `conflict` when the goal already has the most pending proposals allowed.
   */
  propose(goalId: number, proposal: { reason: string; steps: ProposedStep[] }): GoalProposal;
  proposal(id: number): GoalProposal | undefined;
  /**
   * The owner accepts a pending proposal: the goal's plan becomes the proposal's steps, in one unit of work
   * (all of the new plan or none of it). Other pending proposals stay pending.
   * @throws GoalError `not_found`, or `conflict` when it was already decided.
   */
  accept(proposalId: number): GoalDetail;
  /** The owner dismisses a pending proposal; the plan is unchanged. @throws GoalError like `accept`. */
  dismiss(proposalId: number): GoalProposal;
  /**
   * The goal the next pass advances: an active goal whose due date is before today in its own zone (least
   * recently touched first) and that had no pass in the last day, else the least recently touched active
   * goal eligible for a pass. The day keeps one neglected overdue goal from taking every pass.
   */
  nextForPass(now: number): Goal | undefined;
}

export interface GoalRulesOptions {
  /** The clock check-in schedules are read from (Unix ms); default Date.now. */
  now?: () => number;
  /** The owner's IANA zone, for goals created without one. */
  timezone: () => string;
}

/** An overdue goal jumps the queue at most this often; otherwise it waits its turn like the others. */
const OVERDUE_EVERY_MS = 24 * 60 * 60_000;

/** The goals over `store`: the rules check, then write through the store inside its unit of work. */
export function createGoals(store: GoalStore, options: GoalRulesOptions): Goals {
  const now = options.now ?? Date.now;
  const require = (id: number): Goal => {
    const goal = store.goal(id);
    if (!goal) throw new GoalError('not_found', `There is no goal #${id}; list goals to see the ids.`);
    return goal;
  };
  const decide = (proposalId: number, status: 'accepted' | 'dismissed'): GoalProposal => {
    const proposal = store.proposal(proposalId);
    if (!proposal) throw new GoalError('not_found', `There is no proposal ${proposalId}.`);
    if (proposal.status !== 'pending')
      throw new GoalError('conflict', `Proposal ${proposalId} was already ${proposal.status}.`);
    const decided = store.decideProposal(proposalId, status)!;
    store.touch(proposal.goalId);
    return decided;
  };
  return {
    create: (goal) => create(store, goal, now(), options.timezone),
    list: (which, limit) => store.list(which, limit),
    get: (id) => store.get(id),
    update(id, changes) {
      const at = now();
      return store.transaction(() => {
        store.change(id, applyGoalChanges(require(id), changes, at));
        store.touch(id);
        return store.get(id)!;
      });
    },
    addStep: (goalId, step) =>
      store.transaction(() => {
        require(goalId);
        const { count, lastPosition } = store.planSize(goalId);
        if (count >= GOAL_LIMITS.steps)
          throw new GoalError(
            'invalid',
            `Goal #${goalId} already has ${GOAL_LIMITS.steps} steps, the most a plan may have.`,
          );
        const added = store.appendStep(goalId, lastPosition + 1, checkStep(step));
        store.touch(goalId);
        return added;
      }),
    updateStep: (goalId, stepId, changes) =>
      store.transaction(() => {
        require(goalId);
        const step = store.step(stepId);
        if (!step || step.goalId !== goalId)
          throw new GoalError(
            'not_found',
            `Goal #${goalId} has no step ${stepId}; show the goal to see its steps.`,
          );
        const title =
          changes.title === undefined
            ? step.title
            : checkText(changes.title, 'step title', GOAL_LIMITS.title);
        const notes = changes.notes === undefined ? step.notes : checkNotes(changes.notes);
        const changed = store.changeStep(stepId, { title, status: changes.status ?? step.status, notes });
        store.touch(goalId);
        return changed!;
      }),
    propose(goalId, proposal) {
      const reason = checkText(proposal.reason, 'proposal reason', GOAL_LIMITS.reason);
      const steps = checkPlan(proposal.steps);
      return store.transaction(() => {
        require(goalId);
        const pending = store.pendingProposals(goalId);
        if (pending >= GOAL_LIMITS.pendingProposals)
          throw new GoalError(
            'conflict',
            `Goal #${goalId} already has ${pending} proposals waiting for the owner; wait until they decide.`,
          );
        const added = store.addProposal(goalId, { reason, steps });
        store.touch(goalId);
        return added;
      });
    },
    proposal: (id) => store.proposal(id),
    accept: (proposalId) =>
      store.transaction(() => {
        const proposal = decide(proposalId, 'accepted');
        store.replacePlan(proposal.goalId, proposal.steps.map(checkStep));
        return store.get(proposal.goalId)!;
      }),
    dismiss: (proposalId) => store.transaction(() => decide(proposalId, 'dismissed')),
    nextForPass(at) {
      // No zone is ahead of UTC+14: a due date before that zone's today bounds every candidate.
      for (const goal of store.overdue(localDate(at, 'Pacific/Kiritimati'))) {
        const rested = goal.lastPassAt === undefined || at - goal.lastPassAt >= OVERDUE_EVERY_MS;
        if (rested && goal.dueDate! < localDate(at, goal.timezone)) return goal;
      }
      return store.firstEligible(at);
    },
    nextPassAt: (intervalMs) => store.nextPassAt(intervalMs),
    recordPass: (pass) => store.recordPass(pass),
    dueCheckins: (at, limit) => store.dueCheckins(at, limit),
    nextCheckinAt: () => store.nextCheckinAt(),
    advanceCheckin: (id, expected, next) => store.advanceCheckin(id, expected, next),
  };
}

/** A new goal, every value checked before anything is written; its plan is written with it. */
function create(store: GoalStore, goal: NewGoal, at: number, ownerZone: () => string): GoalDetail {
  const title = checkText(goal.title, 'goal title', GOAL_LIMITS.title);
  const why = goal.why?.trim() ? checkText(goal.why, 'goal reason', GOAL_LIMITS.why) : undefined;
  const timezone = checkTimezone(goal.timezone ?? ownerZone());
  const dueDate = goal.dueDate === undefined ? undefined : checkDueDate(goal.dueDate);
  const steps = goal.steps?.length ? checkPlan(goal.steps) : [];
  const checkin = goal.checkinCron?.trim() ? checkinSchedule(goal.checkinCron, timezone, at) : undefined;
  return store.create({
    title,
    ...(why !== undefined ? { why } : {}),
    ...(dueDate !== undefined ? { dueDate } : {}),
    ...(checkin ? { checkinCron: checkin.cron, nextCheckinAt: checkin.next } : {}),
    timezone,
    ...(goal.sessionId !== undefined ? { sessionId: goal.sessionId } : {}),
    deliverTo: goal.deliverTo ?? [],
    steps,
  });
}
