import { Hono } from 'hono';
import { z } from 'zod';
import type { TaskStore } from '../store/ports.js';
import { normalizeDue } from '../store/task-repository.js';
import type * as Api from './api-types.js';
import { problem } from './problem.js';
import { badId, limitBody, positiveId, validBody } from './route-input.js';

/** Longest title and notes the API stores (the `task` tool has no cap; a title is one line of a list). */
export const MAX_TASK_TITLE_CHARS = 500;
export const MAX_TASK_NOTES_CHARS = 20_000;
/** Tasks one list answer holds at most. */
const LIST_LIMIT = 500;

const priority = z.enum(['low', 'normal', 'high']);
const title = z
  .string()
  .max(MAX_TASK_TITLE_CHARS)
  .refine((text) => text.trim() !== '', 'title must not be empty');
const notes = z.string().max(MAX_TASK_NOTES_CHARS);
/** `YYYY-MM-DD` or `YYYY-MM-DD HH:MM` in the owner's zone; `null` or '' means none (clears it on PATCH). */
const due = z.string().max(40).nullable();

const newTask = z
  .object({ title, notes: notes.optional(), due: due.optional(), priority: priority.optional() })
  .strict();

const taskChanges = z
  .object({
    title: title.optional(),
    notes: notes.optional(),
    due: due.optional(),
    priority: priority.optional(),
    status: z.enum(['open', 'done']).optional(),
  })
  .strict();

const STATUS_FILTERS = ['open', 'done', 'all'] as const;

/** A due date as stored: null for none, else normalised; or the message saying what to write instead. */
function dueDate(text: string | null): { ok: true; due: string | null } | { ok: false; error: string } {
  if (text === null || text.trim() === '') return { ok: true, due: null };
  try {
    return { ok: true, due: normalizeDue(text) };
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
}

/**
 * The owner's to-dos over HTTP, on the repository the `task` tool and `wren task` use (so the open ones
 * reach the next prompt the same way):
 *
 * - `GET /api/tasks?status=open|done|all` (default open) → `{tasks}`: open ones soonest due first, done
 *   ones most recently completed first;
 * - `POST /api/tasks` `{title, notes?, due?, priority?}` → `201 {task}`;
 * - `PATCH /api/tasks/:id` `{title?, notes?, due?, priority?, status?}` → `{task}` (`due: null` or ''
 *   clears it; `status` done/open completes or reopens);
 * - `DELETE /api/tasks/:id` → `{deleted: id}`.
 */
export function taskRoutes(tasks: TaskStore): Hono {
  const app = new Hono();
  app.use('/api/tasks', limitBody());
  app.use('/api/tasks/*', limitBody());

  app.get('/api/tasks', (c) => {
    const status = c.req.query('status') ?? 'open';
    if (!(STATUS_FILTERS as readonly string[]).includes(status))
      return c.json(problem('bad_request', `status must be one of ${STATUS_FILTERS.join(', ')}.`), 400);
    return c.json({
      tasks: tasks.list(status as (typeof STATUS_FILTERS)[number], LIST_LIMIT),
    } satisfies Api.TaskList);
  });

  app.post('/api/tasks', async (c) => {
    const parsed = await validBody(c, newTask);
    if (!parsed.ok) return parsed.response;
    const { title, notes, priority } = parsed.value;
    const when = dueDate(parsed.value.due ?? null);
    if (!when.ok) return c.json(problem('bad_request', `due: ${when.error}`), 400);
    const task = tasks.create({
      title,
      ...(notes !== undefined ? { notes } : {}),
      ...(when.due ? { due: when.due } : {}),
      ...(priority ? { priority } : {}),
    });
    return c.json({ task } satisfies Api.TaskSaved, 201);
  });

  app.patch('/api/tasks/:id', async (c) => {
    const id = positiveId(c);
    if (id === undefined) return badId(c, 'task');
    const parsed = await validBody(c, taskChanges);
    if (!parsed.ok) return parsed.response;
    const { title, notes, priority, status } = parsed.value;
    // Everything is checked before anything is written, so a bad due date changes nothing.
    const when = parsed.value.due === undefined ? undefined : dueDate(parsed.value.due);
    if (when && !when.ok) return c.json(problem('bad_request', `due: ${when.error}`), 400);
    if (!tasks.get(id)) return c.json(problem('not_found', `There is no task #${id}.`), 404);
    let task = tasks.update(id, {
      ...(title !== undefined ? { title } : {}),
      ...(notes !== undefined ? { notes } : {}),
      ...(when ? { due: when.due } : {}),
      ...(priority ? { priority } : {}),
    });
    if (status === 'done') task = tasks.complete(id);
    else if (status === 'open') task = tasks.reopen(id);
    // Deleted meanwhile (another process: `wren task delete`).
    if (!task) return c.json(problem('not_found', `There is no task #${id}.`), 404);
    return c.json({ task } satisfies Api.TaskSaved);
  });

  app.delete('/api/tasks/:id', (c) => {
    const id = positiveId(c);
    if (id === undefined) return badId(c, 'task');
    return tasks.delete(id)
      ? c.json({ deleted: id } satisfies Api.Deleted)
      : c.json(problem('not_found', `There is no task #${id}.`), 404);
  });
  return app;
}
