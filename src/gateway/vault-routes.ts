import { Hono } from 'hono';
import { z } from 'zod';
import { VaultError, type VaultService } from '../vault/vault-service.js';
import { problem } from './problem.js';
import { limitBody, validBody } from './route-input.js';

const list = z.array(z.string().max(253)).max(50).optional();
const putSchema = z.strictObject({
  value: z.string(),
  bindings: z.strictObject({ hosts: list, programs: list, mcp: list }).optional(),
});

const VALUE_BODY_BYTES = 64 * 1024;

/**
 * The vault over HTTP, for the web app's Settings:
 * - `GET /api/vault` → `{secrets: [{name, bindings, createdAt, updatedAt, usedAt?}]}`, never a value;
 * - `PUT /api/vault/:name` with `{value, bindings?}` → `{secret}` (the entry, no value), `400 bad_request` for
 *   a bad name, a value the vault refuses (too short, too long, a line break) or a bad body;
 * - `DELETE /api/vault/:name` → 204, or `404 not_found`.
 * A value is never echoed, in an answer or in an error.
 */
export function vaultRoutes(vault: VaultService): Hono {
  const app = new Hono();
  app.get('/api/vault', (c) => c.json({ secrets: vault.list() }));
  app.put('/api/vault/:name', limitBody(VALUE_BODY_BYTES), async (c) => {
    const body = await validBody(c, putSchema);
    if (!body.ok) return body.response;
    try {
      const secret = vault.set(c.req.param('name'), body.value.value, body.value.bindings ?? {});
      return c.json({ secret });
    } catch (error) {
      if (error instanceof VaultError) return c.json(problem('bad_request', error.message), 400);
      throw error;
    }
  });
  app.delete('/api/vault/:name', (c) => {
    const name = c.req.param('name');
    if (!vault.remove(name))
      return c.json(problem('not_found', `No vault secret named ${name.slice(0, 80)}.`), 404);
    return c.body(null, 204);
  });
  return app;
}
