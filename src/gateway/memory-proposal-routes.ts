import { type Context, Hono } from 'hono';
import type { MemoryProposalService, ProposalDecision } from '../services/memory-proposal-service.js';
import type * as Api from './api-types.js';
import { failureResponse } from './failure-response.js';
import { problem } from './problem.js';

export interface MemoryProposalRouteOptions {
  proposals: MemoryProposalService;
  /** The workspace folder an accepted line is moved in (read per request: a config reload may move it). */
  workspace: () => string;
}

/** The path's id as a number, or undefined when it is not a positive whole number. */
function idParam(c: Context): number | undefined {
  const text = c.req.param('id') ?? '';
  return /^\d{1,15}$/.test(text) && Number(text) > 0 ? Number(text) : undefined;
}

/** A decision's answer: the proposal; 404 for an unknown id, 409 for one decided already. */
function decided(c: Context, decision: ProposalDecision): Response {
  if (decision.ok) return c.json({ proposal: decision.proposal } satisfies Api.MemoryProposalDecided);
  if (decision.code === 'refused') return c.json(problem('conflict', decision.error), 409);
  return failureResponse(c, decision);
}

/**
 * Dream's memory proposals (see docs/memory.md, Proposals), the rules `wren memory proposals|accept|dismiss`
 * and `/memory` follow:
 *
 * - `GET /api/memory/proposals` → `{proposals}`, the pending ones oldest first; `?all=1` every one;
 * - `POST /api/memory/proposals/:id/accept` moves the line from MEMORY.md to its file → `{proposal}`;
 * - `POST /api/memory/proposals/:id/dismiss` leaves the files; the line is never proposed there again.
 *
 * 400 for an id that is not a positive whole number, 404 for an unknown one, 409 for one decided already.
 */
export function memoryProposalRoutes(options: MemoryProposalRouteOptions): Hono {
  const app = new Hono();
  app.get('/api/memory/proposals', (c) => {
    const all = c.req.query('all');
    return c.json({
      proposals: options.proposals.list(all === '1' || all === 'true' ? 'all' : 'pending'),
    } satisfies Api.MemoryProposalList);
  });

  for (const decision of ['accept', 'dismiss'] as const) {
    app.post(`/api/memory/proposals/:id/${decision}`, async (c) => {
      const id = idParam(c);
      if (id === undefined)
        return c.json(problem('bad_request', 'The proposal id must be a positive whole number.'), 400);
      return decided(
        c,
        decision === 'accept'
          ? await options.proposals.accept(options.workspace(), id)
          : options.proposals.dismiss(id),
      );
    });
  }
  return app;
}
