import { useState } from 'preact/hooks';
import { createGoal } from '../../api';
import { Field } from '../../components/field';
import { FieldError } from '../../components/field-error';
import { useSubmit } from '../../components/use-submit';
import type { GoalDetail } from '../../types';

export function NewGoalForm({ onAdded }: { onAdded: (goal: GoalDetail) => void }) {
  const [title, setTitle] = useState('');
  const [why, setWhy] = useState('');
  const [dueDate, setDueDate] = useState('');
  const { busy, error, submit } = useSubmit(async () => {
    const goal = await createGoal({
      title: title.trim(),
      ...(why.trim() ? { why: why.trim() } : {}),
      ...(dueDate ? { dueDate } : {}),
    });
    setTitle('');
    setWhy('');
    setDueDate('');
    onAdded(goal);
  }, Boolean(title.trim()));
  return (
    <form class="card form-card" onSubmit={submit} aria-labelledby="new-goal-title">
      <h2 id="new-goal-title">New goal</h2>
      <div class="field-row">
        <Field id="goal-title" grow label="Goal">
          <input
            id="goal-title"
            value={title}
            maxLength={200}
            placeholder="Run a half marathon"
            onInput={(event) => setTitle(event.currentTarget.value)}
          />
        </Field>
        <Field id="goal-due" label="Due date">
          <input
            id="goal-due"
            type="date"
            value={dueDate}
            onInput={(event) => setDueDate(event.currentTarget.value)}
          />
        </Field>
      </div>
      <Field id="goal-why" label="Why (optional)">
        <textarea
          id="goal-why"
          rows={2}
          value={why}
          maxLength={2000}
          onInput={(event) => setWhy(event.currentTarget.value)}
        />
      </Field>
      <FieldError message={error} />
      <div class="form-actions">
        <button type="submit" class="btn primary" disabled={busy || !title.trim()}>
          Add goal
        </button>
      </div>
    </form>
  );
}
