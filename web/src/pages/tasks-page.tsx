import { useState } from 'preact/hooks';
import { createTask, deleteTask, listTasks, type TaskFilter, updateTask } from '../api';
import { Badge, Empty, PageHeader, Time } from '../components/common';
import { EditableRow, EditForm, rowAction } from '../components/editable-row';
import { Field } from '../components/field';
import { FieldError } from '../components/field-error';
import { ListSection } from '../components/list-section';
import { useList } from '../components/use-list';
import { useSubmit } from '../components/use-submit';
import { dayOf, dueText } from '../format';
import { liveEpoch } from '../live';
import type { Task, TaskPriority } from '../types';

const FILTERS: Array<{ id: TaskFilter; label: string }> = [
  { id: 'open', label: 'Open' },
  { id: 'done', label: 'Done' },
  { id: 'all', label: 'All' },
];

function TaskFields({
  prefix,
  title,
  notes,
  due,
  priority,
  set,
}: {
  prefix: string;
  title: string;
  notes: string;
  due: string;
  priority: TaskPriority;
  set: (field: 'title' | 'notes' | 'due' | 'priority', value: string) => void;
}) {
  return (
    <>
      <div class="field-row">
        <Field id={`${prefix}-title`} grow label="Title">
          <input
            id={`${prefix}-title`}
            value={title}
            required
            maxLength={500}
            onInput={(event) => set('title', event.currentTarget.value)}
          />
        </Field>
        <Field id={`${prefix}-due`} label="Due">
          <input
            id={`${prefix}-due`}
            value={due}
            placeholder="YYYY-MM-DD [HH:MM]"
            onInput={(event) => set('due', event.currentTarget.value)}
          />
        </Field>
        <Field id={`${prefix}-priority`} label="Priority">
          <select
            id={`${prefix}-priority`}
            value={priority}
            onChange={(event) => set('priority', event.currentTarget.value)}
          >
            <option value="low">Low</option>
            <option value="normal">Normal</option>
            <option value="high">High</option>
          </select>
        </Field>
      </div>
      <Field id={`${prefix}-notes`} label="Notes">
        <textarea
          id={`${prefix}-notes`}
          rows={2}
          value={notes}
          onInput={(event) => set('notes', event.currentTarget.value)}
        />
      </Field>
    </>
  );
}

interface Draft {
  title: string;
  notes: string;
  due: string;
  priority: TaskPriority;
}

const EMPTY: Draft = { title: '', notes: '', due: '', priority: 'normal' };

function useDraft(initial: Draft) {
  const [draft, setDraft] = useState(initial);
  const set = (field: keyof Draft, value: string) => setDraft((current) => ({ ...current, [field]: value }));
  return [draft, set, setDraft] as const;
}

function NewTask({ onAdded }: { onAdded: () => void }) {
  const [draft, set, setDraft] = useDraft(EMPTY);
  const [open, setOpen] = useState(false);
  const { busy, error, submit } = useSubmit(async () => {
    await createTask({
      title: draft.title.trim(),
      ...(draft.notes.trim() ? { notes: draft.notes.trim() } : {}),
      ...(draft.due.trim() ? { due: draft.due.trim() } : {}),
      priority: draft.priority,
    });
    setDraft(EMPTY);
    onAdded();
  }, Boolean(draft.title.trim()));

  return (
    <form class="card form-card" onSubmit={submit} aria-labelledby="new-task-title">
      <h2 id="new-task-title">New task</h2>
      {open ? (
        <TaskFields prefix="task-new" {...draft} set={set} />
      ) : (
        <div class="field-row">
          <Field id="task-new-title" grow label="Title">
            <input
              id="task-new-title"
              value={draft.title}
              maxLength={500}
              placeholder="Renew passport"
              onInput={(event) => set('title', event.currentTarget.value)}
            />
          </Field>
        </div>
      )}
      <FieldError message={error} />
      <div class="form-actions">
        {!open ? (
          <button type="button" class="btn ghost" onClick={() => setOpen(true)}>
            More fields
          </button>
        ) : null}
        <button type="submit" class="btn primary" disabled={busy || !draft.title.trim()}>
          Add task
        </button>
      </div>
    </form>
  );
}

/** The edit of one task: kept while the row lives, so Discard and Edit again shows it as it was left. */
function useTaskEdit(task: Task, onSaved: () => void) {
  const [draft, set] = useDraft({
    title: task.title,
    notes: task.notes,
    due: task.due ?? '',
    priority: task.priority,
  });
  const { error, submit } = useSubmit(async () => {
    await updateTask(task.id, {
      title: draft.title.trim(),
      notes: draft.notes,
      due: draft.due.trim() || null,
      priority: draft.priority,
    });
    onSaved();
  });

  return { draft, set, error, save: submit };
}

function TaskEditForm({
  task,
  edit,
  onDiscard,
}: {
  task: Task;
  edit: ReturnType<typeof useTaskEdit>;
  onDiscard: () => void;
}) {
  return (
    <EditForm label={`Edit task ${task.title}`} onSubmit={edit.save} onDiscard={onDiscard} error={edit.error}>
      <TaskFields prefix={`task-${task.id}`} {...edit.draft} set={edit.set} />
    </EditForm>
  );
}

function TaskRow({ task, onChanged }: { task: Task; onChanged: () => void }) {
  const [editing, setEditing] = useState(false);
  const edit = useTaskEdit(task, () => {
    setEditing(false);
    onChanged();
  });

  const toggle = () =>
    rowAction(() => updateTask(task.id, { status: task.status === 'done' ? 'open' : 'done' }), onChanged);
  const remove = async () => {
    if (confirm(`Delete the task “${task.title}”?`)) await rowAction(() => deleteTask(task.id), onChanged);
  };

  const overdue = task.status === 'open' && task.due && task.due.slice(0, 10) < dayOf(Date.now());
  return (
    <EditableRow
      class={task.status === 'done' ? 'task done' : 'task'}
      label={`task ${task.title}`}
      editing={editing}
      form={<TaskEditForm task={task} edit={edit} onDiscard={() => setEditing(false)} />}
      onEdit={() => setEditing(true)}
      removeText="Delete"
      onRemove={remove}
      lead={
        <label class="task-check">
          <input type="checkbox" checked={task.status === 'done'} onChange={toggle} />
          <span class="visually-hidden">Done: {task.title}</span>
        </label>
      }
    >
      <div class="row-title">{task.title}</div>
      <div class="row-meta">
        {task.priority !== 'normal' ? (
          <Badge tone={task.priority === 'high' ? 'bad' : 'muted'}>{task.priority}</Badge>
        ) : null}
        {task.due ? <Badge tone={overdue ? 'bad' : 'neutral'}>due {dueText(task.due)}</Badge> : null}
        {task.completedAt ? (
          <span>
            done <Time at={task.completedAt} />
          </span>
        ) : null}
      </div>
      {task.notes ? <p class="row-notes">{task.notes}</p> : null}
    </EditableRow>
  );
}

export function TasksPage() {
  const [filter, setFilter] = useState<TaskFilter>('open');
  const list = useList(() => listTasks(filter), [filter, liveEpoch.value]);

  return (
    <div class="page">
      <PageHeader title="Tasks" />
      <NewTask onAdded={list.load} />
      <ListSection
        id="task-list-title"
        title={<>{FILTERS.find((item) => item.id === filter)?.label} tasks</>}
        controls={
          <fieldset class="segmented">
            <legend class="visually-hidden">Show</legend>
            {FILTERS.map((item) => (
              <label key={item.id} class={filter === item.id ? 'selected' : ''}>
                <input
                  type="radio"
                  name="task-filter"
                  value={item.id}
                  checked={filter === item.id}
                  onChange={() => setFilter(item.id)}
                />
                {item.label}
              </label>
            ))}
          </fieldset>
        }
        items={list.items}
        error={list.error}
        onRetry={list.load}
        empty={
          <Empty title={filter === 'done' ? 'Nothing done yet' : 'No tasks yet'}>
            Add one above, or tell Wren: “add a task to renew my passport”.
          </Empty>
        }
        row={(task: Task) => (
          <TaskRow key={`${task.id}-${task.updatedAt}`} task={task} onChanged={list.load} />
        )}
      />
    </div>
  );
}
