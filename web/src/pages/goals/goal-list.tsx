import { useEffect, useState } from 'preact/hooks';
import { listGoals } from '../../api';
import { Badge, Empty, ErrorNote, Loading, PageHeader, stateTone, Time } from '../../components/common';
import { dueText } from '../../format';
import { liveEpoch } from '../../live';
import { hrefOf } from '../../router';
import { errorText } from '../../state';
import type { Goal } from '../../types';
import { NewGoalForm } from './new-goal-form';

export function GoalList() {
  const [all, setAll] = useState(false);
  const [goals, setGoals] = useState<Goal[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = () =>
    listGoals(all ? 'all' : 'open').then(
      (list) => {
        setGoals(list);
        setError(null);
      },
      (failure) => setError(errorText(failure)),
    );
  useEffect(() => {
    void load();
  }, [all, liveEpoch.value]);

  return (
    <div class="page">
      <PageHeader title="Goals" />
      <NewGoalForm
        onAdded={(goal) => {
          void load();
          location.hash = hrefOf('goals', String(goal.id));
        }}
      />
      <section class="section" aria-labelledby="goal-list-title">
        <div class="section-head">
          <h2 id="goal-list-title">{all ? 'All goals' : 'Active goals'}</h2>
          <label class="check">
            <input type="checkbox" checked={all} onChange={(event) => setAll(event.currentTarget.checked)} />
            Show finished
          </label>
        </div>
        <ErrorNote message={error} onRetry={load} />
        {goals === null && !error ? <Loading /> : null}
        {goals?.length === 0 ? (
          <Empty title="No goals yet">
            Add one above, or tell Wren what you want to achieve — it plans steps and checks in on them.
          </Empty>
        ) : null}
        {goals?.length ? (
          <ul class="rows">
            {goals.map((goal) => (
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
            ))}
          </ul>
        ) : null}
      </section>
    </div>
  );
}
