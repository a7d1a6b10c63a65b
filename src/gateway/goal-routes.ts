import { type Context, Hono } from 'hono';
import { z } from 'zod';
import { TARGET } from '../proactive/proactive-config.js';
import { GOAL_STATUSES, GoalError, type GoalService, STEP_STATUSES } from '../services/goal-service.js';
import type * as Api from './api-types.js';
import { problem } from './problem.js';
import { validBody } from './route-input.js';

const step = z
  .object({
    title: z.string().min(1),
    status: z.enum(STEP_STATUSES).optional(),
    notes: z.string().optional(),
  })
  .strict();

const newGoal = z
  .object({
    title: z.string().min(1),
    why: z.string().optional(),
    dueDate: z.string().optional(),
    checkinCron: z.string().optional(),
    timezone: z.string().optional(),
    deliverTo: z.array(z.string().regex(TARGET, 'use channel:chat or webhook:name')).optional(),
    steps: z.array(step).optional(),
  })
  .strict();

const goalChanges = z
  .object({
    title: z.string().min(1).optional(),
    why: z.string().nullable().optional(),
    status: z.enum(GOAL_STATUSES).optional(),
    dueDate: z.string().nullable().optional(),
    checkinCron: z.string().nullable().optional(),
    timezone: z.string().optional(),
  })
  .strict();

const stepChanges = z
  .object({
    title: z.string().min(1).optional(),
    status: z.enum(STEP_STATUSES).optional(),
    notes: z.string().optional(),
  })
  .strict();

const LIST_FILTERS = ['open', 'all', ...GOAL_STATUSES] as const;

/** Drops keys whose value is undefined (zod keeps them; the repository reads absent as "unchanged"). */
function defined<T extends object>(value: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as {
    [K in keyof T]: Exclude<T[K], undefined>;
  };
}

/** A GoalError's code as the API's problem code and HTTP status (the same codes as every other route). */
const PROBLEM = {
  not_found: ['not_found', 404],
  invalid: ['bad_request', 400],
  conflict: ['conflict', 409],
} as const;

/** Runs `work`; a GoalError becomes its JSON problem (404 not found, 400 bad request, 409 conflict). */
function answer(c: Context, work: () => Response): Response {
  try {
    return work();
  } catch (error) {
    if (!(error instanceof GoalError)) throw error;
    const [code, status] = PROBLEM[error.code];
    return c.json(problem(code, error.message), status);
  }
}

/** A path parameter as an id, or undefined when it is not a positive whole number. */
function idParam(c: Context, name: string): number | undefined {
  const text = c.req.param(name) ?? '';
  return /^\d+$/.test(text) && Number(text) > 0 ? Number(text) : undefined;
}

const badId = (c: Context, name: string) =>
  c.json(problem('bad_request', `The ${name} id must be a positive whole number.`), 400);

/**
 * Goals over HTTP: list, show, create, change, steps, and the owner's decision on proposals (accept replaces
 * the plan in one transaction; dismiss leaves it). Bodies are validated; errors are `problem()` JSON.
 */
export function goalRoutes(
  goals: GoalService,
  options: {
    /** Tells the scheduler a goal's check-ins or status changed (it ticks now rather than within 30 s). */
    wake?: () => void;
  } = {},
): Hono {
  const app = new Hono();
  const changed = <T>(value: T): T => {
    options.wake?.();
    return value;
  };

  app.get('/api/goals', (c) => {
    const filter = c.req.query('status') ?? 'open';
    if (!(LIST_FILTERS as readonly string[]).includes(filter))
      return c.json(problem('bad_request', `status must be one of ${LIST_FILTERS.join(', ')}.`), 400);
    return c.json({ goals: goals.list(filter as (typeof LIST_FILTERS)[number], 500) } satisfies Api.GoalList);
  });

  app.get('/api/goals/:id', (c) => {
    const id = idParam(c, 'id');
    if (id === undefined) return badId(c, 'goal');
    const goal = goals.get(id);
    return goal
      ? c.json(goal satisfies Api.GoalDetail)
      : c.json(problem('not_found', `There is no goal #${id}.`), 404);
  });

  app.post('/api/goals', async (c) => {
    const parsed = await validBody(c, newGoal);
    if (!parsed.ok) return parsed.response;
    return answer(c, () =>
      c.json(changed(goals.create(defined(parsed.value))) satisfies Api.GoalDetail, 201),
    );
  });

  app.patch('/api/goals/:id', async (c) => {
    const id = idParam(c, 'id');
    if (id === undefined) return badId(c, 'goal');
    const parsed = await validBody(c, goalChanges);
    if (!parsed.ok) return parsed.response;
    return answer(c, () => c.json(changed(goals.update(id, defined(parsed.value))) satisfies Api.GoalDetail));
  });

  app.post('/api/goals/:id/steps', async (c) => {
    const id = idParam(c, 'id');
    if (id === undefined) return badId(c, 'goal');
    const parsed = await validBody(c, step);
    if (!parsed.ok) return parsed.response;
    return answer(c, () => c.json(goals.addStep(id, defined(parsed.value)) satisfies Api.GoalStep, 201));
  });

  app.patch('/api/goals/:id/steps/:step', async (c) => {
    const id = idParam(c, 'id');
    const stepId = idParam(c, 'step');
    if (id === undefined || stepId === undefined) return badId(c, id === undefined ? 'goal' : 'step');
    const parsed = await validBody(c, stepChanges);
    if (!parsed.ok) return parsed.response;
    return answer(c, () =>
      c.json(goals.updateStep(id, stepId, defined(parsed.value)) satisfies Api.GoalStep),
    );
  });

  app.post('/api/goals/proposals/:id/accept', (c) => {
    const id = idParam(c, 'id');
    if (id === undefined) return badId(c, 'proposal');
    return answer(c, () => c.json(goals.accept(id)));
  });

  app.post('/api/goals/proposals/:id/dismiss', (c) => {
    const id = idParam(c, 'id');
    if (id === undefined) return badId(c, 'proposal');
    return answer(c, () => c.json(goals.dismiss(id)));
  });
  return app;
}
