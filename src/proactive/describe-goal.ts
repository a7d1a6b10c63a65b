import { type Goal, type GoalDetail, type GoalStep, localDate } from './goals/goal-records.js';

const DAY = 86_400_000;

/** Whole days from local day `from` to local day `to` (both `YYYY-MM-DD`). */
function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY);
}

/** `due 2026-05-01 (in 12 days)`, `(today)` or `(overdue by 2 days)`, read in the goal's zone at `now`. */
export function dueText(goal: Pick<Goal, 'dueDate' | 'timezone'>, now: number): string {
  if (!goal.dueDate) return '';
  const days = daysBetween(localDate(now, goal.timezone), goal.dueDate);
  const plural = (n: number) => `${n} day${n === 1 ? '' : 's'}`;
  const when = days === 0 ? 'today' : days > 0 ? `in ${plural(days)}` : `overdue by ${plural(-days)}`;
  return `due ${goal.dueDate} (${when})`;
}

/** One goal as a line: `#3 [active] Run a half marathon — due 2026-05-01 (in 12 days)`. */
export function goalLine(goal: Goal, now: number): string {
  const due = dueText(goal, now);
  return `#${goal.id} [${goal.status}] ${goal.title}${due ? ` — ${due}` : ''}`;
}

/** One step as a line: `step 12 [done] Buy shoes — notes`. Notes are cut at `maxNotes` characters. */
export function stepLine(step: GoalStep, maxNotes = 300): string {
  const notes = step.notes.length > maxNotes ? `${step.notes.slice(0, maxNotes - 1)}…` : step.notes;
  return `step ${step.id} [${step.status}] ${step.title}${notes ? ` — ${notes}` : ''}`;
}

/**
 * A goal with its plan and pending proposals, compact enough for a prompt: ids the `goal` tool takes, the
 * due date relative to `now`, steps with status and notes, and what each pending proposal would change.
 */
export function describeGoal(goal: GoalDetail, now: number): string {
  const facts = [
    goal.status,
    dueText(goal, now),
    goal.checkinCron ? `check-ins "${goal.checkinCron}" (${goal.timezone})` : '',
  ].filter(Boolean);
  const lines = [`Goal #${goal.id}: ${goal.title} — ${facts.join(' · ')}`];
  if (goal.why) lines.push(`Why: ${goal.why}`);
  if (goal.steps.length === 0) lines.push('Steps: none yet.');
  else {
    const done = goal.steps.filter((step) => step.status === 'done' || step.status === 'skipped').length;
    lines.push(`Steps (${done} of ${goal.steps.length} done or skipped):`);
    for (const step of goal.steps) lines.push(`  ${stepLine(step)}`);
  }
  if (goal.proposals.length > 0) {
    lines.push('Proposals waiting for the owner:');
    for (const proposal of goal.proposals) {
      const steps = proposal.steps.map((step) => step.title).join('; ');
      lines.push(`  proposal ${proposal.id}: ${proposal.reason} → ${proposal.steps.length} steps: ${steps}`);
    }
  }
  return lines.join('\n');
}
