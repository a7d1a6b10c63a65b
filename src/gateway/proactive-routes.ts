import { type Handler, Hono } from 'hono';
import { z } from 'zod';
import type { JobService } from '../services/job-service.js';
import type { ReminderService } from '../services/reminder-service.js';
import type * as Api from './api-types.js';
import { SESSION_ID } from './chat-routes.js';
import { problem } from './problem.js';
import { limitBody } from './route-input.js';

/** What the proactive routes need of the app. */
export interface ProactiveRouteOptions {
  /** The reminders (their times parsed in the owner's zone at the service's clock). */
  reminders: ReminderService;
  /** The feed of what scheduled runs delivered. */
  jobs: Pick<JobService, 'feed'>;
  /** Ticks the scheduler now. */
  wake: () => void;
  /** Targets a reminder added here gets when the request names neither targets nor a session (`proactive.deliver_to`). */
  defaultTargets: () => readonly string[];
}

const reminderBody = z
  .object({
    text: z.string().min(1).max(2000),
    when: z.string().min(1).max(200),
    mode: z.enum(['notify', 'agent']).optional(),
    deliverTo: z.array(z.string()).max(10).optional(),
    session: z.string().regex(SESSION_ID, 'session must be 1-128 letters, digits, _ . : -').optional(),
  })
  .strict();

const reminderChanges = z
  .object({
    text: z.string().min(1).max(2000).optional(),
    when: z.string().min(1).max(200).optional(),
    mode: z.enum(['notify', 'agent']).optional(),
  })
  .strict()
  .refine(
    (changes) => Object.values(changes).some((value) => value !== undefined),
    'give text, when or mode to change',
  );

/** `PATCH /api/reminders/:id`: changes an active reminder (see proactiveRoutes). */
function editReminderHandler(options: ProactiveRouteOptions): Handler {
  return async (c) => {
    const given = c.req.param('id') ?? '';
    const id = /^\d{1,15}$/.test(given) ? Number(given) : Number.NaN;
    if (!(id > 0)) return c.json(problem('not_found', `No active reminder ${given}.`), 404);
    let raw: unknown;
    try {
      raw = await c.req.json();
    } catch {
      return c.json(problem('bad_request', 'The body must be a JSON object.'), 400);
    }
    const parsed = reminderChanges.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return c.json(problem('bad_request', `${issue?.path.join('.') || 'body'}: ${issue?.message}`), 400);
    }
    const edited = await options.reminders.edit(id, parsed.data);
    if (!edited.ok)
      return edited.code === 'not_found'
        ? c.json(problem('not_found', edited.error), 404)
        : c.json(problem('bad_request', edited.error), 400);
    options.wake();
    return c.json({ reminder: edited.reminder, description: edited.description } satisfies Api.ReminderSaved);
  };
}

/** `POST /api/reminders`: a reminder delivered, unless it names targets, to its API session or `proactive.deliver_to`. */
function addReminderHandler(options: ProactiveRouteOptions): Handler {
  return async (c) => {
    const parsed = reminderBody.safeParse(await c.req.json().catch(() => undefined));
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return c.json(problem('bad_request', `${issue?.path.join('.') || 'body'}: ${issue?.message}`), 400);
    }
    const { text, when, mode, deliverTo, session } = parsed.data;
    const added = await options.reminders.add(
      {
        text,
        when,
        ...(mode ? { mode } : {}),
        ...(deliverTo ? { deliverTo } : {}),
        ...(session ? { sessionId: session } : {}),
      },
      session ? [`api:${session}`] : options.defaultTargets(),
    );
    if (!added.ok) return c.json(problem('bad_request', added.error), 400);
    options.wake();
    return c.json(
      { reminder: added.reminder, description: added.description } satisfies Api.ReminderSaved,
      201,
    );
  };
}

/**
 * `GET /api/reminders` (`?all=1` for done and cancelled), `POST /api/reminders` `{text, when, mode?,
 * deliverTo?, session?}` (`when` as people write it: "in 20m", "tomorrow at 9", "every weekday at 7:30"),
 * `PATCH /api/reminders/:id` `{text?, when?, mode?}` (`when` parsed as POST parses it; targets stay),
 * `DELETE /api/reminders/:id`, `GET /api/feed` (newest first; `?before=ID&limit=N`), `POST /api/tick` (the
 * scheduler runs what is due now — for hosts that sleep).
 */
export function proactiveRoutes(options: ProactiveRouteOptions): Hono {
  const app = new Hono();
  app.get('/api/reminders', (c) =>
    c.json({
      reminders: options.reminders.list(c.req.query('all') ? 'all' : 'active'),
    } satisfies Api.ReminderList),
  );
  app.post('/api/reminders', addReminderHandler(options));
  app.patch('/api/reminders/:id', limitBody(), editReminderHandler(options));
  app.delete('/api/reminders/:id', (c) => {
    const id = Number(c.req.param('id'));
    if (!options.reminders.cancel(id).ok)
      return c.json(problem('not_found', `No active reminder ${c.req.param('id')}.`), 404);
    options.wake();
    return c.json({ cancelled: id } satisfies Api.ReminderCancelled);
  });
  app.get('/api/feed', (c) => {
    const number = (name: string) => {
      const text = c.req.query(name);
      return text !== undefined && /^\d+$/.test(text) ? Number(text) : undefined;
    };
    const feed = options.jobs.feed(number('limit'), number('before'));
    return c.json({ feed } satisfies Api.FeedPage);
  });
  app.post('/api/tick', (c) => {
    options.wake();
    return c.json({ ok: true });
  });
  return app;
}
