import { useEffect, useState } from 'preact/hooks';
import { addStep, createGoal, decideProposal, getGoal, listGoals, updateGoal, updateStep } from '../api';
import { Badge, Empty, ErrorNote, Loading, PageHeader, stateTone, Time } from '../components/common';
import { Icon } from '../components/icons';
import { liveEpoch } from '../live';
import { hrefOf } from '../router';
import { errorText, toast } from '../state';
import { type Goal, type GoalDetail, type GoalStatus, STEP_STATUSES, type StepStatus } from '../types';

const STEP_LABELS: Record<StepStatus, string> = {
  pending: 'To do',
  in_progress: 'In progress',
  done: 'Done',
  blocked: 'Blocked',
  skipped: 'Skipped',
};

function NewGoal({ onAdded }: { onAdded: (goal: GoalDetail) => void }) {
  const [title, setTitle] = useState('');
  const [why, setWhy] = useState('');
  const [dueDate, setDueDate] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    if (!title.trim()) return;
    setBusy(true);
    setError(null);
    try {
      const goal = await createGoal({
        title: title.trim(),
        ...(why.trim() ? { why: why.trim() } : {}),
        ...(dueDate ? { dueDate } : {}),
      });
      setTitle('');
      setWhy('');
      setDueDate('');
      onAdded(goal);
    } catch (failure) {
      setError(errorText(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="card form-card" onSubmit={submit} aria-labelledby="new-goal-title">
      <h2 id="new-goal-title">New goal</h2>
      <div class="field-row">
        <div class="field grow">
          <label for="goal-title" class="field-label">
            Goal
          </label>
          <input
            id="goal-title"
            value={title}
            maxLength={200}
            placeholder="Run a half marathon"
            onInput={(event) => setTitle(event.currentTarget.value)}
          />
        </div>
        <div class="field">
          <label for="goal-due" class="field-label">
            Due date
          </label>
          <input
            id="goal-due"
            type="date"
            value={dueDate}
            onInput={(event) => setDueDate(event.currentTarget.value)}
          />
        </div>
      </div>
      <div class="field">
        <label for="goal-why" class="field-label">
          Why (optional)
        </label>
        <textarea
          id="goal-why"
          rows={2}
          value={why}
          maxLength={2000}
          onInput={(event) => setWhy(event.currentTarget.value)}
        />
      </div>
      {error ? (
        <p class="field-error" role="alert">
          {error}
        </p>
      ) : null}
      <div class="form-actions">
        <button type="submit" class="btn primary" disabled={busy || !title.trim()}>
          Add goal
        </button>
      </div>
    </form>
  );
}

function GoalList() {
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
      <NewGoal
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
                    {goal.dueDate ? <span>due {goal.dueDate}</span> : null}
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

const NEXT_STATUS: Array<{ status: GoalStatus; label: string; when: GoalStatus[] }> = [
  { status: 'paused', label: 'Pause', when: ['active'] },
  { status: 'active', label: 'Resume', when: ['paused', 'done', 'cancelled'] },
  { status: 'done', label: 'Mark done', when: ['active', 'paused'] },
  { status: 'cancelled', label: 'Cancel goal', when: ['active', 'paused'] },
];

function GoalView({ id }: { id: number }) {
  const [goal, setGoal] = useState<GoalDetail | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [stepTitle, setStepTitle] = useState('');
  const [editing, setEditing] = useState(false);
  const [title, setTitle] = useState('');
  const [why, setWhy] = useState('');

  const load = () =>
    getGoal(id).then(
      (detail) => {
        setGoal(detail);
        setError(null);
      },
      (failure) => setError(errorText(failure)),
    );
  useEffect(() => {
    setGoal(null);
    void load();
  }, [id, liveEpoch.value]);

  const run = async (work: () => Promise<unknown>) => {
    try {
      await work();
      await load();
    } catch (failure) {
      toast(errorText(failure), 'error');
    }
  };

  if (!goal) {
    return (
      <div class="page">
        <a class="back-link" href={hrefOf('goals')}>
          <Icon name="back" size={16} /> All goals
        </a>
        <PageHeader title="Goal" />
        <ErrorNote message={error} onRetry={load} />
        {!error ? <Loading /> : null}
      </div>
    );
  }

  const pending = goal.proposals.filter((proposal) => proposal.status === 'pending');
  return (
    <div class="page">
      <a class="back-link" href={hrefOf('goals')}>
        <Icon name="back" size={16} /> All goals
      </a>
      <PageHeader title={goal.title}>
        <Badge tone={stateTone(goal.status)}>{goal.status}</Badge>
      </PageHeader>
      {editing ? (
        <form
          class="card form-card"
          aria-label="Edit goal"
          onSubmit={(event) => {
            event.preventDefault();
            void run(async () => {
              await updateGoal(goal.id, { title: title.trim(), why: why.trim() || null });
              setEditing(false);
            });
          }}
        >
          <div class="field">
            <label for="goal-edit-title" class="field-label">
              Goal
            </label>
            <input
              id="goal-edit-title"
              value={title}
              onInput={(event) => setTitle(event.currentTarget.value)}
            />
          </div>
          <div class="field">
            <label for="goal-edit-why" class="field-label">
              Why
            </label>
            <textarea
              id="goal-edit-why"
              rows={3}
              value={why}
              onInput={(event) => setWhy(event.currentTarget.value)}
            />
          </div>
          <div class="form-actions">
            <button type="button" class="btn ghost" onClick={() => setEditing(false)}>
              Discard
            </button>
            <button type="submit" class="btn primary" disabled={!title.trim()}>
              Save
            </button>
          </div>
        </form>
      ) : (
        <div class="card goal-summary">
          {goal.why ? <p>{goal.why}</p> : <p class="muted">No reason written down.</p>}
          <div class="row-meta">
            {goal.dueDate ? <span>due {goal.dueDate}</span> : null}
            {goal.checkinCron ? <span>check-ins {goal.checkinCron}</span> : null}
            {goal.nextCheckinAt ? (
              <span>
                next check-in <Time at={goal.nextCheckinAt} />
              </span>
            ) : null}
            <span>{goal.passes} passes</span>
          </div>
          <div class="form-actions start">
            <button
              type="button"
              class="btn small"
              onClick={() => {
                setTitle(goal.title);
                setWhy(goal.why ?? '');
                setEditing(true);
              }}
            >
              Edit
            </button>
            {NEXT_STATUS.filter((item) => item.when.includes(goal.status)).map((item) => (
              <button
                key={item.status}
                type="button"
                class={`btn small${item.status === 'cancelled' ? ' danger-outline' : ''}`}
                onClick={() => run(() => updateGoal(goal.id, { status: item.status }))}
              >
                {item.label}
              </button>
            ))}
          </div>
        </div>
      )}

      {pending.length ? (
        <section class="section" aria-labelledby="proposals-title">
          <h2 id="proposals-title">Proposed plan changes</h2>
          {pending.map((proposal) => (
            <article key={proposal.id} class="card proposal" aria-label={`Proposal ${proposal.id}`}>
              <p>{proposal.reason}</p>
              <ol class="proposal-steps">
                {proposal.steps.map((step, index) => (
                  <li key={`${index}-${step.title}`}>
                    {step.title}
                    {step.status && step.status !== 'pending' ? (
                      <Badge>{STEP_LABELS[step.status]}</Badge>
                    ) : null}
                  </li>
                ))}
              </ol>
              <div class="form-actions start">
                <button
                  type="button"
                  class="btn small primary"
                  onClick={() => run(() => decideProposal(proposal.id, 'accept'))}
                >
                  Accept plan
                </button>
                <button
                  type="button"
                  class="btn small"
                  onClick={() => run(() => decideProposal(proposal.id, 'dismiss'))}
                >
                  Dismiss
                </button>
                <span class="muted">
                  <Time at={proposal.createdAt} />
                </span>
              </div>
            </article>
          ))}
        </section>
      ) : null}

      <section class="section" aria-labelledby="steps-title">
        <h2 id="steps-title">Steps</h2>
        {goal.steps.length === 0 ? (
          <Empty title="No steps yet">Add the first one below, or ask Wren to plan it.</Empty>
        ) : null}
        {goal.steps.length ? (
          <ol class="rows steps">
            {goal.steps.map((step) => (
              <li key={step.id} class={`row step step-${step.status}`}>
                <div class="row-main">
                  <div class="row-title">{step.title}</div>
                  {step.notes ? <p class="row-notes">{step.notes}</p> : null}
                </div>
                <label class="visually-hidden" for={`step-${step.id}`}>
                  Status of {step.title}
                </label>
                <select
                  id={`step-${step.id}`}
                  value={step.status}
                  onChange={(event) =>
                    run(() =>
                      updateStep(goal.id, step.id, { status: event.currentTarget.value as StepStatus }),
                    )
                  }
                >
                  {STEP_STATUSES.map((status) => (
                    <option key={status} value={status}>
                      {STEP_LABELS[status]}
                    </option>
                  ))}
                </select>
              </li>
            ))}
          </ol>
        ) : null}
        <form
          class="inline-form"
          onSubmit={(event) => {
            event.preventDefault();
            const text = stepTitle.trim();
            if (!text) return;
            void run(async () => {
              await addStep(goal.id, { title: text });
              setStepTitle('');
            });
          }}
        >
          <label for="new-step" class="visually-hidden">
            New step
          </label>
          <input
            id="new-step"
            value={stepTitle}
            placeholder="Add a step"
            onInput={(event) => setStepTitle(event.currentTarget.value)}
          />
          <button type="submit" class="btn" disabled={!stepTitle.trim()}>
            Add step
          </button>
        </form>
      </section>
    </div>
  );
}

export function GoalsPage({ param }: { param: string }) {
  const id = Number(param);
  return Number.isInteger(id) && id > 0 ? <GoalView id={id} /> : <GoalList />;
}
