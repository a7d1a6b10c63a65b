import { Hono } from 'hono';
import type { PairingService } from '../services/pairing-service.js';
import type * as Api from './api-types.js';
import { problem } from './problem.js';

/**
 * `GET /api/pairings` (pending codes and approved senders, newest first), `POST /api/pairings/:code/approve`
 * (admits the sender who got the code), `DELETE /api/pairings/:code` (forgets a code or an approval): what
 * `wren pairing` does, for the web app.
 */
export function pairingRoutes(pairings: PairingService): Hono {
  const app = new Hono();
  app.get('/api/pairings', (c) => c.json({ pairings: pairings.list() } satisfies Api.PairingList));
  app.post('/api/pairings/:code/approve', (c) => {
    const approved = pairings.approve(c.req.param('code'));
    return approved.ok
      ? c.json({ pairing: approved.pairing } satisfies Api.PairingApproved)
      : c.json(problem('not_found', approved.error), 404);
  });
  app.delete('/api/pairings/:code', (c) => {
    const code = c.req.param('code');
    const revoked = pairings.revokeCode(code);
    return revoked.ok
      ? c.json({ revoked: code.toUpperCase() } satisfies Api.Revoked)
      : c.json(problem('not_found', revoked.error), 404);
  });
  return app;
}
