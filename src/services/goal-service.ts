import { createGoals, type Goals } from '../proactive/goals/goal-rules.js';
import type { Stores } from '../store/open-stores.js';
import type { ServiceContext } from './service-context.js';

export type { GoalChanges, NewGoal, StepChanges } from '../proactive/goals/goal-changes.js';
export {
  GOAL_STATUSES,
  type Goal,
  type GoalDetail,
  GoalError,
  type GoalProposal,
  type GoalStatus,
  type GoalStep,
  type ProposedStep,
  STEP_STATUSES,
  type StepStatus,
} from '../proactive/goals/goal-records.js';

/**
 * The owner's goal actions, one implementation for the `goal` tool, `wren goal` and `/api/goals`: create,
 * read and change goals and steps, propose a plan, and the owner's accept or dismiss. The rules are the goal
 * domain's (src/proactive/goals/); methods throw GoalError (`not_found`, `invalid`, `conflict`), which each
 * face turns into its own answer.
 */
export type GoalService = Pick<
  Goals,
  | 'create'
  | 'list'
  | 'get'
  | 'update'
  | 'addStep'
  | 'updateStep'
  | 'propose'
  | 'proposal'
  | 'accept'
  | 'dismiss'
>;

/** The goal service over the home's goal store, on the context's clock; goals without a zone take the owner's. */
export function createGoalService(stores: Pick<Stores, 'goals'>, context: ServiceContext): GoalService {
  return createGoals(stores.goals, { now: () => context.now(), timezone: () => context.timezone() });
}
