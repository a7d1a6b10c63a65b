import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeLlmServer, startFakeLlmServer } from '../../test/fakes/fake-llm-server.js';
import { makeHome, waitFor } from '../../test/support/wren-home.js';
import { createApp, type WrenApp } from './create-app.js';
import { settingsPageRoutes } from './settings-page-routes.js';

const KEY = 'sk-app-wiring-0123456789abcdef';

let llm: FakeLlmServer;
let app: WrenApp;
const gateway = new Hono();
beforeAll(async () => {
  llm = await startFakeLlmServer({ apiKey: KEY });
  app = await createApp({
    home: makeHome('# no model yet\nmodels: []\n'),
    env: { PATH: process.env['PATH'] },
    probeLocalModels: false,
    watch: true,
  });
  for (const routes of settingsPageRoutes(app)) gateway.route('/', routes);
});
afterAll(async () => {
  await app?.close(1000);
  await llm.close();
});

const texts: string[] = [];
async function send(method: string, path: string, body?: unknown) {
  const response = await gateway.request(path, {
    method,
    ...(body === undefined
      ? {}
      : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  });
  const text = await response.text();
  texts.push(text);
  return { status: response.status, body: JSON.parse(text) as Record<string, unknown> };
}

describe('settingsPageRoutes over a running app', () => {
  it('onboards a model, which the app loads, lists and tests; settings apply by the app’s reload', async () => {
    expect((await send('GET', '/api/onboarding')).body['needed']).toBe(true);
    expect((await send('GET', '/api/models')).body).toEqual({ models: [], note: expect.any(String) });

    const onboarded = await send('POST', '/api/onboarding', {
      preset: 'openai',
      key: KEY,
      model: 'fake-model',
      baseUrl: llm.baseUrls.openai,
    });
    expect(onboarded).toMatchObject({ status: 200, body: { ok: true, saved: true, model: 'main' } });
    await waitFor(() => app.endpoints().some((endpoint) => endpoint.name === 'main'));
    expect((await send('GET', '/api/models')).body).toEqual({
      models: [expect.objectContaining({ name: 'main', provider: 'openai', state: 'ready' })],
    });
    expect((await send('POST', '/api/models/main/test')).body).toMatchObject({ ok: true });

    const patched = await send('PATCH', '/api/settings', { gateMode: 'strict', quietHours: '22:00-07:00' });
    expect(patched.body['settings']).toMatchObject({ gateMode: 'strict', quietHours: '22:00-07:00' });
    await waitFor(() => app.config().gate.mode === 'strict');
    expect(app.config().proactive.quietHours).toEqual({ start: 22 * 60, end: 7 * 60 });

    expect(await send('GET', '/api/mcp')).toEqual({ status: 200, body: { servers: [] } });
    for (const text of texts) expect(text).not.toContain(KEY);
  });
});
