import { GoalList } from './goals/goal-list';
import { GoalView } from './goals/goal-view';

/** `#/goals` lists the goals; `#/goals/<id>` shows one. */
export function GoalsPage({ param }: { param: string }) {
  const id = Number(param);
  return Number.isInteger(id) && id > 0 ? <GoalView id={id} /> : <GoalList />;
}
