import { useState } from 'preact/hooks';
import { listGoals } from '../../api';
import { Badge, Empty, PageHeader, stateTone, Time } from '../../components/common';
import { ListSection } from '../../components/list-section';
import { useList } from '../../components/use-list';
import { dueText } from '../../format';
import { liveEpoch } from '../../live';
import { hrefOf } from '../../router';
import type { Goal } from '../../types';
import { NewGoalForm } from './new-goal-form';

export function GoalList() {
  const [all, setAll] = useState(false);
  const list = useList(() => listGoals(all ? 'all' : 'open'), [all, liveEpoch.value]);

  return (
    <div class="page">
      <PageHeader title="Goals" />
      <NewGoalForm
        onAdded={(goal) => {
          void list.load();
          location.hash = hrefOf('goals', String(goal.id));
        }}
      />
      <ListSection
        id="goal-list-title"
        title={all ? 'All goals' : 'Active goals'}
        controls={
          <label class="check">
            <input type="checkbox" checked={all} onChange={(event) => setAll(event.currentTarget.checked)} />
            Show finished
          </label>
        }
        items={list.items}
        error={list.error}
        onRetry={list.load}
        empty={
          <Empty title="No goals yet">
            Add one above, or tell Wren what you want to achieve — it plans steps and checks in on them.
          </Empty>
        }
        row={(goal: Goal) => (
          <li key={goal.id} class="row">
            <a class="row-main row-link" href={hrefOf('goals', String(goal.id))}>
              <span class="row-title">{goal.title}</span>
              <span class="row-meta">
                <Badge tone={stateTone(goal.status)}>{goal.status}</Badge>
                {goal.dueDate ? <span>due {dueText(goal.dueDate)}</span> : null}
                {goal.nextCheckinAt ? (
                  <span>
                    next check-in <Time at={goal.nextCheckinAt} />
                  </span>
                ) : null}
              </span>
            </a>
          </li>
        )}
      />
    </div>
  );
}
