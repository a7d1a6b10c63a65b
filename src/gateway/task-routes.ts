import { Hono } from 'hono';
import { z } from 'zod';
import type { TaskService } from '../services/task-service.js';
import type * as Api from './api-types.js';
import { failureResponse } from './failure-response.js';
import { problem } from './problem.js';
import { badId, limitBody, positiveId, validBody } from './route-input.js';

/** Tasks one list answer holds at most. */
const LIST_LIMIT = 500;

// The body's shape only: the task service checks the title, notes and due date.
const priority = z.enum(['low', 'normal', 'high']);
/** `YYYY-MM-DD` or `YYYY-MM-DD HH:MM` in the owner's zone; `null` or '' means none (clears it on PATCH). */
const due = z.string().max(40).nullable();

const newTask = z
  .object({
    title: z.string(),
    notes: z.string().optional(),
    due: due.optional(),
    priority: priority.optional(),
  })
  .strict();

const taskChanges = z
  .object({
    title: z.string().optional(),
    notes: z.string().optional(),
    due: due.optional(),
    priority: priority.optional(),
    status: z.enum(['open', 'done']).optional(),
  })
  .strict();

const STATUS_FILTERS = ['open', 'done', 'all'] as const;

/**
 * The owner's to-dos over HTTP, through the task service the `task` tool and `wren task` use (so the open
 * ones reach the next prompt the same way):
 *
 * - `GET /api/tasks?status=open|done|all` (default open) → `{tasks}`: open ones soonest due first, done
 *   ones most recently completed first;
 * - `POST /api/tasks` `{title, notes?, due?, priority?}` → `201 {task}`;
 * - `PATCH /api/tasks/:id` `{title?, notes?, due?, priority?, status?}` → `{task}` (`due: null` or ''
 *   clears it; `status` done/open completes or reopens);
 * - `DELETE /api/tasks/:id` → `{deleted: id}`.
 *
 * A refusal of the service answers 400 (invalid input, e.g. `due: Invalid due date …`) or 404 (no such task).
 */
export function taskRoutes(tasks: TaskService): Hono {
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
    const created = tasks.create(parsed.value);
    if (!created.ok) return failureResponse(c, created);
    return c.json({ task: created.task } satisfies Api.TaskSaved, 201);
  });

  app.patch('/api/tasks/:id', async (c) => {
    const id = positiveId(c);
    if (id === undefined) return badId(c, 'task');
    const parsed = await validBody(c, taskChanges);
    if (!parsed.ok) return parsed.response;
    const saved = tasks.update(id, parsed.value);
    if (!saved.ok) return failureResponse(c, saved);
    return c.json({ task: saved.task } satisfies Api.TaskSaved);
  });

  app.delete('/api/tasks/:id', (c) => {
    const id = positiveId(c);
    if (id === undefined) return badId(c, 'task');
    const deleted = tasks.delete(id);
    return deleted.ok ? c.json({ deleted: id } satisfies Api.Deleted) : failureResponse(c, deleted);
  });
  return app;
}
