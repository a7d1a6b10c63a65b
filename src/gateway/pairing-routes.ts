import { Hono } from 'hono';
import type { ChannelStore } from '../store/ports.js';
import type * as Api from './api-types.js';
import { problem } from './problem.js';

/**
 * `GET /api/pairings` (pending codes and approved senders, newest first), `POST /api/pairings/:code/approve`
 * (admits the sender who got the code), `DELETE /api/pairings/:code` (forgets a code or an approval): what
 * `wren pairing` does, for the web app.
 */
export function pairingRoutes(
  pairings: Pick<ChannelStore, 'listPairings' | 'approvePairing' | 'revokePairing'>,
  clock: () => number = Date.now,
): Hono {
  const app = new Hono();
  app.get('/api/pairings', (c) =>
    c.json({ pairings: pairings.listPairings(clock()) } satisfies Api.PairingList),
  );
  app.post('/api/pairings/:code/approve', (c) => {
    const code = c.req.param('code');
    const pairing = pairings.approvePairing(code, clock());
    return pairing
      ? c.json({ pairing } satisfies Api.PairingApproved)
      : c.json(
          problem('not_found', `No pending pairing code ${code.toUpperCase()} (codes expire after an hour).`),
          404,
        );
  });
  app.delete('/api/pairings/:code', (c) => {
    const code = c.req.param('code');
    return pairings.revokePairing({ code })
      ? c.json({ revoked: code.toUpperCase() } satisfies Api.Revoked)
      : c.json(problem('not_found', `No pairing ${code.toUpperCase()}.`), 404);
  });
  return app;
}
