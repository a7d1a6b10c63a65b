import { useEffect, useState } from 'preact/hooks';
import { createTask, deleteTask, listTasks, type TaskFilter, updateTask } from '../api';
import { CodeText } from '../components/code-text';
import { Badge, Empty, ErrorNote, Loading, PageHeader, Time } from '../components/common';
import { dayOf, dueText } from '../format';
import { liveEpoch } from '../live';
import { errorText, toast } from '../state';
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
        <div class="field grow">
          <label for={`${prefix}-title`} class="field-label">
            Title
          </label>
          <input
            id={`${prefix}-title`}
            value={title}
            required
            maxLength={500}
            onInput={(event) => set('title', event.currentTarget.value)}
          />
        </div>
        <div class="field">
          <label for={`${prefix}-due`} class="field-label">
            Due
          </label>
          <input
            id={`${prefix}-due`}
            value={due}
            placeholder="YYYY-MM-DD [HH:MM]"
            onInput={(event) => set('due', event.currentTarget.value)}
          />
        </div>
        <div class="field">
          <label for={`${prefix}-priority`} class="field-label">
            Priority
          </label>
          <select
            id={`${prefix}-priority`}
            value={priority}
            onChange={(event) => set('priority', event.currentTarget.value)}
          >
            <option value="low">Low</option>
            <option value="normal">Normal</option>
            <option value="high">High</option>
          </select>
        </div>
      </div>
      <div class="field">
        <label for={`${prefix}-notes`} class="field-label">
          Notes
        </label>
        <textarea
          id={`${prefix}-notes`}
          rows={2}
          value={notes}
          onInput={(event) => set('notes', event.currentTarget.value)}
        />
      </div>
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
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    if (!draft.title.trim()) return;
    setBusy(true);
    setError(null);
    try {
      await createTask({
        title: draft.title.trim(),
        ...(draft.notes.trim() ? { notes: draft.notes.trim() } : {}),
        ...(draft.due.trim() ? { due: draft.due.trim() } : {}),
        priority: draft.priority,
      });
      setDraft(EMPTY);
      onAdded();
    } catch (failure) {
      setError(errorText(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="card form-card" onSubmit={submit} aria-labelledby="new-task-title">
      <h2 id="new-task-title">New task</h2>
      {open ? (
        <TaskFields prefix="task-new" {...draft} set={set} />
      ) : (
        <div class="field-row">
          <div class="field grow">
            <label for="task-new-title" class="field-label">
              Title
            </label>
            <input
              id="task-new-title"
              value={draft.title}
              maxLength={500}
              placeholder="Renew passport"
              onInput={(event) => set('title', event.currentTarget.value)}
            />
          </div>
        </div>
      )}
      {error ? (
        <p class="field-error" role="alert">
          <CodeText text={error} />
        </p>
      ) : null}
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
  const [error, setError] = useState<string | null>(null);

  const save = async (event: Event) => {
    event.preventDefault();
    setError(null);
    try {
      await updateTask(task.id, {
        title: draft.title.trim(),
        notes: draft.notes,
        due: draft.due.trim() || null,
        priority: draft.priority,
      });
      onSaved();
    } catch (failure) {
      setError(errorText(failure));
    }
  };

  return { draft, set, error, save };
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
    <form class="row-form" onSubmit={edit.save} aria-label={`Edit task ${task.title}`}>
      <TaskFields prefix={`task-${task.id}`} {...edit.draft} set={edit.set} />
      {edit.error ? (
        <p class="field-error" role="alert">
          <CodeText text={edit.error} />
        </p>
      ) : null}
      <div class="form-actions">
        <button type="button" class="btn ghost" onClick={onDiscard}>
          Discard
        </button>
        <button type="submit" class="btn primary">
          Save
        </button>
      </div>
    </form>
  );
}

function TaskRow({ task, onChanged }: { task: Task; onChanged: () => void }) {
  const [editing, setEditing] = useState(false);
  const edit = useTaskEdit(task, () => {
    setEditing(false);
    onChanged();
  });

  const toggle = async () => {
    try {
      await updateTask(task.id, { status: task.status === 'done' ? 'open' : 'done' });
      onChanged();
    } catch (failure) {
      toast(errorText(failure), 'error');
    }
  };

  const remove = async () => {
    if (!confirm(`Delete the task “${task.title}”?`)) return;
    try {
      await deleteTask(task.id);
      onChanged();
    } catch (failure) {
      toast(errorText(failure), 'error');
    }
  };

  if (editing) {
    return (
      <li class="row editing">
        <TaskEditForm task={task} edit={edit} onDiscard={() => setEditing(false)} />
      </li>
    );
  }

  const overdue = task.status === 'open' && task.due && task.due.slice(0, 10) < dayOf(Date.now());
  return (
    <li class={`row task${task.status === 'done' ? ' done' : ''}`}>
      <label class="task-check">
        <input type="checkbox" checked={task.status === 'done'} onChange={toggle} />
        <span class="visually-hidden">Done: {task.title}</span>
      </label>
      <div class="row-main">
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
      </div>
      <div class="row-actions">
        <button
          type="button"
          class="btn small"
          aria-label={`Edit task ${task.title}`}
          onClick={() => setEditing(true)}
        >
          Edit
        </button>
        <button
          type="button"
          class="btn small danger-outline"
          aria-label={`Delete task ${task.title}`}
          onClick={remove}
        >
          Delete
        </button>
      </div>
    </li>
  );
}

export function TasksPage() {
  const [filter, setFilter] = useState<TaskFilter>('open');
  const [tasks, setTasks] = useState<Task[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = () =>
    listTasks(filter).then(
      (list) => {
        setTasks(list);
        setError(null);
      },
      (failure) => setError(errorText(failure)),
    );
  useEffect(() => {
    void load();
  }, [filter, liveEpoch.value]);

  return (
    <div class="page">
      <PageHeader title="Tasks" />
      <NewTask onAdded={load} />
      <section class="section" aria-labelledby="task-list-title">
        <div class="section-head">
          <h2 id="task-list-title">{FILTERS.find((item) => item.id === filter)?.label} tasks</h2>
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
        </div>
        <ErrorNote message={error} onRetry={load} />
        {tasks === null && !error ? <Loading /> : null}
        {tasks?.length === 0 ? (
          <Empty title={filter === 'done' ? 'Nothing done yet' : 'No tasks yet'}>
            Add one above, or tell Wren: “add a task to renew my passport”.
          </Empty>
        ) : null}
        {tasks?.length ? (
          <ul class="rows">
            {tasks.map((task) => (
              <TaskRow key={`${task.id}-${task.updatedAt}`} task={task} onChanged={load} />
            ))}
          </ul>
        ) : null}
      </section>
    </div>
  );
}
