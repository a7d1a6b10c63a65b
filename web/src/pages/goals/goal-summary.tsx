import { Time } from '../../components/common';
import { dueText } from '../../format';
import type { GoalDetail, GoalStatus } from '../../types';

const NEXT_STATUS: Array<{ status: GoalStatus; label: string; when: GoalStatus[] }> = [
  { status: 'paused', label: 'Pause', when: ['active'] },
  { status: 'active', label: 'Resume', when: ['paused', 'done', 'cancelled'] },
  { status: 'done', label: 'Mark done', when: ['active', 'paused'] },
  { status: 'cancelled', label: 'Cancel goal', when: ['active', 'paused'] },
];

/** Why the goal matters, its schedule, and the status changes its current status allows. */
export function GoalSummary({
  goal,
  onEdit,
  onStatus,
}: {
  goal: GoalDetail;
  onEdit: () => void;
  onStatus: (status: GoalStatus) => void;
}) {
  return (
    <div class="card goal-summary">
      {goal.why ? <p>{goal.why}</p> : <p class="muted">No reason written down.</p>}
      <div class="row-meta">
        {goal.dueDate ? <span>due {dueText(goal.dueDate)}</span> : null}
        {goal.checkinCron ? <span>check-ins {goal.checkinCron}</span> : null}
        {goal.nextCheckinAt ? (
          <span>
            next check-in <Time at={goal.nextCheckinAt} />
          </span>
        ) : null}
        <span>{goal.passes} passes</span>
      </div>
      <div class="form-actions start">
        <button type="button" class="btn small" onClick={onEdit}>
          Edit
        </button>
        {NEXT_STATUS.filter((item) => item.when.includes(goal.status)).map((item) => (
          <button
            key={item.status}
            type="button"
            class={`btn small${item.status === 'cancelled' ? ' danger-outline' : ''}`}
            onClick={() => onStatus(item.status)}
          >
            {item.label}
          </button>
        ))}
      </div>
    </div>
  );
}
