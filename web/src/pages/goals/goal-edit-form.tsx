import { useState } from 'preact/hooks';
import { EditForm } from '../../components/editable-row';
import { Field } from '../../components/field';
import type { GoalDetail } from '../../types';

/** Title and reason of a goal, edited in place; `onSave` gets them trimmed (an empty reason as null). */
export function GoalEditForm({
  goal,
  onSave,
  onDiscard,
}: {
  goal: GoalDetail;
  onSave: (title: string, why: string | null) => void;
  onDiscard: () => void;
}) {
  const [title, setTitle] = useState(goal.title);
  const [why, setWhy] = useState(goal.why ?? '');
  return (
    <EditForm
      class="card form-card"
      label="Edit goal"
      onSubmit={(event) => {
        event.preventDefault();
        onSave(title.trim(), why.trim() || null);
      }}
      onDiscard={onDiscard}
      saveDisabled={!title.trim()}
    >
      <Field id="goal-edit-title" label="Goal">
        <input id="goal-edit-title" value={title} onInput={(event) => setTitle(event.currentTarget.value)} />
      </Field>
      <Field id="goal-edit-why" label="Why">
        <textarea
          id="goal-edit-why"
          rows={3}
          value={why}
          onInput={(event) => setWhy(event.currentTarget.value)}
        />
      </Field>
    </EditForm>
  );
}
