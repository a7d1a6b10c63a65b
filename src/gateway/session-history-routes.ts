import { Hono } from 'hono';
import type * as Api from './api-types.js';
import type { GatewayOptions } from './gateway-options.js';
import { problem } from './problem.js';

/**
 * The stored conversations: `GET /api/sessions` (the newest 100, with their titles where the store keeps
 * them) and `GET /api/sessions/:id/messages` (a session's whole history; 404 for an unknown session).
 */
export function sessionHistoryRoutes(store: GatewayOptions['sessions']): Hono {
  const app = new Hono();
  app.get('/api/sessions', async (c) => {
    const sessions = await store.listSessions(100);
    const titles = store.sessionTitles?.(sessions.map((session) => session.id)) ?? new Map();
    return c.json({
      sessions: sessions.map((session) => {
        const title = titles.get(session.id);
        return title ? { ...session, title } : session;
      }),
    } satisfies Api.SessionList);
  });

  app.get('/api/sessions/:id/messages', async (c) => {
    const id = c.req.param('id');
    if (!(await store.getSession(id))) return c.json(problem('not_found', `No session ${id}.`), 404);
    const messages = await store.recentMessages(id, Number.MAX_SAFE_INTEGER);
    return c.json({ session: id, messages } satisfies Api.SessionMessages);
  });
  return app;
}
