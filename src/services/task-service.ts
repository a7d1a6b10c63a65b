import type { Stores } from '../store/open-stores.js';
import type { Task, TaskPriority, TaskStatus } from '../store/task-repository.js';
import type { ServiceContext } from './service-context.js';
import { invalid, notFound, type ServiceFailure } from './service-failure.js';

export type { ServiceFailure, Task, TaskPriority, TaskStatus };
export type TaskResult = { ok: true; task: Task } | ServiceFailure;

/** Longest title and notes kept, on every face (a title is one line of a list). */
export const MAX_TASK_TITLE_CHARS = 500;
export const MAX_TASK_NOTES_CHARS = 20_000;
export const TASK_PRIORITIES: readonly TaskPriority[] = ['low', 'normal', 'high'];

export interface TaskInput {
  title: string;
  notes?: string;
  /** `YYYY-MM-DD` or `YYYY-MM-DD HH:MM` in the owner's zone (see `normalizeDue`); null or blank: none. */
  due?: string | null;
  /** low, normal (the default) or high. */
  priority?: string;
}

export interface TaskChanges extends Partial<TaskInput> {
  /** done completes the task, open reopens it. */
  status?: TaskStatus;
}

/** The owner's to-dos: the one implementation the `task` tool, `wren task` and `/api/tasks` share. */
export interface TaskService {
  /** Adds a task. Never throws for bad input: says what to fix. */
  create(input: TaskInput): TaskResult;
  get(id: number): Task | undefined;
  /** Open tasks soonest due first, then by priority; done ones most recently completed first. */
  list(status?: TaskStatus | 'all', limit?: number): Task[];
  countOpen(): number;
  /** Checks every change before writing any (a bad due date changes nothing); `due` null or '' clears it. */
  update(id: number, changes: TaskChanges): TaskResult;
  /** Marks a task done (idempotent). */
  complete(id: number): TaskResult;
  /** Marks a done task open again (idempotent). */
  reopen(id: number): TaskResult;
  delete(id: number): { ok: true } | ServiceFailure;
}

/**
 * A due date as stored: `YYYY-MM-DD` or `YYYY-MM-DD HH:MM` (a `T` separator and seconds are accepted).
 * @throws Error with an actionable message for anything else or an impossible date.
 */
export function normalizeDue(text: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::\d{2})?)?$/.exec(text.trim());
  const fail = () =>
    new Error(`Invalid due date "${text}": use YYYY-MM-DD or YYYY-MM-DD HH:MM (e.g. 2026-12-24 18:00).`);
  if (!match) throw fail();
  const [, y, m, d, hh, mm] = match;
  const date = new Date(Date.UTC(Number(y), Number(m) - 1, Number(d)));
  if (date.getUTCMonth() !== Number(m) - 1 || date.getUTCDate() !== Number(d)) throw fail();
  if (hh !== undefined && (Number(hh) > 23 || Number(mm) > 59)) throw fail();
  return hh === undefined ? `${y}-${m}-${d}` : `${y}-${m}-${d} ${hh}:${mm}`;
}

/** The fields as the store takes them, every one checked; or why not. */
type Checked = {
  ok: true;
  fields: { title?: string; notes?: string; due?: string | null; priority?: TaskPriority };
};

function checkTitle(title: string): ServiceFailure | undefined {
  if (title.trim() === '') return invalid('A task needs a title.', 'title');
  if (title.length > MAX_TASK_TITLE_CHARS)
    return invalid(`Keep the title to at most ${MAX_TASK_TITLE_CHARS} characters.`, 'title');
  return undefined;
}

function checkFields(changes: Partial<TaskInput>): Checked | ServiceFailure {
  const refused = changes.title === undefined ? undefined : checkTitle(changes.title);
  if (refused) return refused;
  if (changes.notes !== undefined && changes.notes.length > MAX_TASK_NOTES_CHARS)
    return invalid(`Keep the notes to at most ${MAX_TASK_NOTES_CHARS} characters.`, 'notes');
  const priority = changes.priority;
  if (priority !== undefined && !(TASK_PRIORITIES as readonly string[]).includes(priority))
    return invalid(`The priority must be low, normal or high (got "${priority}").`, 'priority');
  let due: string | null | undefined;
  if (changes.due !== undefined) {
    try {
      due = changes.due === null || changes.due.trim() === '' ? null : normalizeDue(changes.due);
    } catch (error) {
      return invalid((error as Error).message, 'due');
    }
  }
  return {
    ok: true,
    fields: {
      ...(changes.title !== undefined ? { title: changes.title } : {}),
      ...(changes.notes !== undefined ? { notes: changes.notes } : {}),
      ...(due !== undefined ? { due } : {}),
      ...(priority !== undefined ? { priority: priority as TaskPriority } : {}),
    },
  };
}

const missing = (id: number) => notFound(`There is no task #${id}.`);
const found = (id: number, task: Task | undefined): TaskResult => (task ? { ok: true, task } : missing(id));

/** The task service over the home's task store (times are the store's; no context needed). */
export function createTaskService(stores: Pick<Stores, 'tasks'>, _context?: ServiceContext): TaskService {
  const tasks = stores.tasks;
  return {
    create(input) {
      const checked = checkFields(input);
      if (!checked.ok) return checked;
      const { due, ...fields } = checked.fields;
      return { ok: true, task: tasks.create({ ...fields, title: input.title, ...(due ? { due } : {}) }) };
    },
    get: (id) => tasks.get(id),
    list: (status, limit) => tasks.list(status, limit),
    countOpen: () => tasks.countOpen(),
    update(id, changes) {
      const checked = checkFields(changes);
      if (!checked.ok) return checked;
      if (!tasks.get(id)) return missing(id);
      let task = tasks.update(id, checked.fields);
      if (changes.status === 'done') task = tasks.complete(id);
      else if (changes.status === 'open') task = tasks.reopen(id);
      // Undefined when deleted meanwhile (another process: `wren task delete`).
      return found(id, task);
    },
    complete: (id) => found(id, tasks.complete(id)),
    reopen: (id) => found(id, tasks.reopen(id)),
    delete: (id) => (tasks.delete(id) ? { ok: true } : missing(id)),
  };
}
