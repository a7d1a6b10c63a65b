import { describe, expect, it } from 'vitest';
import { jsonSender, routeHarness } from '../../test/support/route-harness.js';
import { Redactor } from '../gate/redactor.js';
import { VaultRepository } from '../store/vault-repository.js';
import { createVaultService } from '../vault/vault-service.js';
import { vaultRoutes } from './vault-routes.js';

const harness = routeHarness();
const VALUE = 'web-set-secret-9911';

type Body = Record<string, unknown> & { error?: { code: string; message: string } };

function setup() {
  const { db } = harness.database('wren-vaultapi-');
  const redactor = new Redactor();
  const vault = createVaultService({
    store: new VaultRepository(db),
    key: () => Buffer.alloc(32, 5),
    redactor,
  });
  const app = vaultRoutes(vault);
  return { vault, redactor, app, send: jsonSender<Body>(app) };
}

describe('vault routes', () => {
  it('PUT stores a secret without echoing it, GET lists names and bindings, DELETE removes it', async () => {
    const { send, vault, redactor, app } = setup();
    const saved = await send('PUT', '/api/vault/API_TOKEN', {
      value: VALUE,
      bindings: { hosts: ['api.example.com'] },
    });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({
      secret: { name: 'API_TOKEN', bindings: { hosts: ['api.example.com'] } },
    });
    expect(JSON.stringify(saved.body)).not.toContain(VALUE);
    expect(vault.open('API_TOKEN')).toBe(VALUE);
    expect(redactor.text(VALUE)).toBe('[redacted]');
    const listed = await send('GET', '/api/vault');
    expect(listed.body).toMatchObject({ secrets: [{ name: 'API_TOKEN' }] });
    expect(JSON.stringify(listed.body)).not.toContain(VALUE);
    expect(JSON.stringify(listed.body)).not.toContain('sealed');
    expect((await app.request('/api/vault/API_TOKEN', { method: 'DELETE' })).status).toBe(204);
    const gone = await send('DELETE', '/api/vault/API_TOKEN');
    expect(gone.status).toBe(404);
    expect(gone.body.error?.code).toBe('not_found');
  });

  it('answers 400 for a bad name, a refused value or a bad body, never with the value', async () => {
    const { send } = setup();
    const badName = await send('PUT', '/api/vault/api-token', { value: VALUE });
    expect(badName.status).toBe(400);
    expect(badName.body.error?.message).toMatch(/not a vault name/);
    const lines = await send('PUT', '/api/vault/OK', { value: `${VALUE}\nmore` });
    expect(lines.status).toBe(400);
    expect(JSON.stringify(lines.body)).not.toContain(VALUE);
    expect((await send('PUT', '/api/vault/OK', { value: 'abc' })).status).toBe(400);
    expect((await send('PUT', '/api/vault/OK', { secret: VALUE })).status).toBe(400);
    expect((await send('GET', '/api/vault')).body).toEqual({ secrets: [] });
  });
});
