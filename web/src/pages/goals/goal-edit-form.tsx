import { useState } from 'preact/hooks';
import { EditForm } from '../../components/editable-row';
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
      <div class="field">
        <label for="goal-edit-title" class="field-label">
          Goal
        </label>
        <input id="goal-edit-title" value={title} onInput={(event) => setTitle(event.currentTarget.value)} />
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
    </EditForm>
  );
}
