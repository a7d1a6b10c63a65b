import { Hono } from 'hono';
import type { GatewayOptions } from './gateway-options.js';
import { problem } from './problem.js';

/**
 * What the process is doing, behind the token check: `GET /api/status` (the caller's facts), `GET
 * /api/subagents` (none when the gateway has no subagents) and `DELETE /api/subagents/:id` (404 when no such
 * subagent runs).
 */
export function statusRoutes(options: Pick<GatewayOptions, 'status' | 'subagents'>): Hono {
  const app = new Hono();
  app.get('/api/status', (c) => c.json(options.status()));
  app.get('/api/subagents', (c) => c.json({ subagents: options.subagents?.list() ?? [] }));
  app.delete('/api/subagents/:id', (c) => {
    const id = c.req.param('id');
    return options.subagents?.cancel(id)
      ? c.json({ cancelled: id })
      : c.json(problem('not_found', `No running subagent ${id}.`), 404);
  });
  return app;
}
