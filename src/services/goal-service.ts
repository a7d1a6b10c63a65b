import type { GoalStore, Stores } from '../store/open-stores.js';
import type { ServiceContext } from './service-context.js';

export type { Goal, GoalDetail, GoalProposal, GoalStatus, GoalStep } from '../store/goal-records.js';
export type GoalService = GoalStore;

export function createGoalService(stores: Pick<Stores, 'goals'>, _context: ServiceContext): GoalService {
  return stores.goals;
}
