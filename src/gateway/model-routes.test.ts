import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Hono } from 'hono';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FakeLlmServer, startFakeLlmServer } from '../../test/fakes/fake-llm-server.js';
import { loadConfig, resolveEndpoints } from '../config/load-config.js';
import { EndpointPool } from '../llm/endpoint-pool.js';
import { type ModelRouteOptions, modelRoutes } from './model-routes.js';

/** Keys that must never reach an answer: one written literally in config.yaml, two through `${VAR}`. */
const LITERAL_KEY = 'sk-literal-0123456789abcdef';
const ENV_KEY = 'sk-from-dotenv-fedcba9876543210';
const WRONG_KEY = 'sk-wrong-key-5555aaaa5555';

let openai: FakeLlmServer;
let anthropic: FakeLlmServer;
beforeAll(async () => {
  openai = await startFakeLlmServer({ apiKey: LITERAL_KEY });
  anthropic = await startFakeLlmServer({ apiKey: ENV_KEY });
});
afterAll(async () => {
  await openai.close();
  await anthropic.close();
});
const cleanups: Array<() => void> = [];
afterEach(() => {
  openai.reset();
  anthropic.reset();
  for (const cleanup of cleanups.splice(0)) cleanup();
});

type Model = Record<string, unknown> & { name: string; state: string };
type Body = Record<string, unknown> & { error?: { code: string; message: string }; models?: Model[] };

/** A real home: config.yaml with the three kinds of key, .env with the variables, the pool built from it. */
function setup(extra: Partial<ModelRouteOptions> = {}) {
  const home = mkdtempSync(join(tmpdir(), 'wren-models-'));
  cleanups.push(() => rmSync(home, { recursive: true, force: true }));
  writeFileSync(
    join(home, 'config.yaml'),
    `models:
  - name: main
    protocol: openai
    base_url: ${openai.baseUrls.openai}/
    api_key: ${LITERAL_KEY}
    model: fake-model
  - name: claude
    protocol: anthropic
    base_url: ${anthropic.baseUrls.anthropic}
    api_key: \${ANTHROPIC_TEST_KEY}
    model: fake-claude
    tags: [default, small]
    priority: 1
  - name: broken
    protocol: openai
    base_url: ${openai.baseUrls.openai}
    api_key: \${WRONG_TEST_KEY}
    model: fake-model
    tags: [spare]
    priority: 2
  - name: cloud
    provider: openai
    model: gpt-4.1-mini
    enabled: false
`,
  );
  writeFileSync(join(home, '.env'), `ANTHROPIC_TEST_KEY=${ENV_KEY}\nWRONG_TEST_KEY=${WRONG_KEY}\n`);
  const config = loadConfig(home, {});
  const endpoints = resolveEndpoints(config);
  const pool = new EndpointPool({ endpoints, retry: { attempts: 1 } });
  const app = new Hono();
  app.route(
    '/',
    modelRoutes({
      endpoints: () => endpoints,
      pool,
      providerOf: (name) => config.models.find((model) => model.name === name)?.provider,
      ...extra,
    }),
  );
  const send = async (method: string, path: string) => {
    const response = await app.request(path, { method });
    const text = await response.text();
    return { status: response.status, text, body: JSON.parse(text) as Body };
  };
  const model = async (name: string) =>
    (await send('GET', '/api/models')).body.models?.find((entry) => entry.name === name);
  return { send, pool, model };
}

/** Runs one call through the pool to its end. */
async function call(pool: EndpointPool, tag: string) {
  for await (const event of pool.stream({ system: [], messages: [{ role: 'user', content: 'hi' }], tag })) {
    if (event.type === 'done') return event.result;
  }
  throw new Error('the stream ended without done');
}

const expectNoKeys = (text: string) => {
  for (const key of [LITERAL_KEY, ENV_KEY, WRONG_KEY]) expect(text).not.toContain(key);
};

describe('model routes', () => {
  it('lists every endpoint with what the pool knows, and no key however it was written', async () => {
    const { send } = setup();
    const listed = await send('GET', '/api/models');
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({
      models: [
        {
          name: 'main',
          provider: 'custom',
          protocol: 'openai',
          model: 'fake-model',
          baseUrl: openai.baseUrls.openai,
          tags: ['default'],
          priority: 0,
          enabled: true,
          state: 'ready',
        },
        expect.objectContaining({ name: 'claude', protocol: 'anthropic', tags: ['default', 'small'] }),
        expect.objectContaining({ name: 'broken', state: 'ready' }),
        expect.objectContaining({
          name: 'cloud',
          provider: 'openai',
          baseUrl: 'https://api.openai.com/v1',
          enabled: false,
          state: 'disabled',
        }),
      ],
    });
    expectNoKeys(listed.text);
  });

  it('tests one model with a tiny request and remembers the latency', async () => {
    const { send, model } = setup();
    const tested = await send('POST', '/api/models/main/test');
    expect(tested.status).toBe(200);
    expect(tested.body).toEqual({ ok: true, latencyMs: expect.any(Number) });
    expect(openai.lastRequest?.lastUserText).toBe('Reply with: ok');
    expect(openai.lastRequest?.apiKey).toBe(LITERAL_KEY);
    expect(await model('main')).toMatchObject({
      state: 'ready',
      latencyMs: tested.body['latencyMs'],
      testedAt: expect.any(Number),
    });
    const claude = await send('POST', '/api/models/claude/test');
    expect(claude.body).toMatchObject({ ok: true });
    expect(anthropic.lastRequest?.apiKey).toBe(ENV_KEY);
  });

  it('reports a refused key without the key, also when the server echoes it, and marks the model failing', async () => {
    const { send, model } = setup();
    const tested = await send('POST', '/api/models/broken/test');
    expect(tested.status).toBe(200);
    expect(tested.body).toMatchObject({ ok: false, error: expect.stringContaining('HTTP 401') });
    expectNoKeys(tested.text);
    const listed = await send('GET', '/api/models');
    expectNoKeys(listed.text);
    expect(await model('broken')).toMatchObject({
      state: 'failing',
      lastError: expect.stringContaining('HTTP 401'),
      lastErrorAt: expect.any(Number),
    });
    expect((await model('broken'))?.['latencyMs']).toBeUndefined();
  });

  it('shows cool-downs after a rate limit and failures of real calls until a call succeeds', async () => {
    const { send, pool, model } = setup();
    anthropic.script({ status: 429, retryAfter: '120' });
    const before = Date.now();
    expect(await call(pool, 'small')).toMatchObject({ stopReason: 'error', endpoint: 'claude' });
    const claude = await model('claude');
    expect(claude).toMatchObject({ state: 'cooling', lastError: expect.stringContaining('429') });
    expect(claude?.['cooldownUntil']).toBeGreaterThanOrEqual(before + 119_000);

    openai.script({ status: 500, errorMessage: 'upstream broke' });
    expect(await call(pool, 'default')).toMatchObject({ stopReason: 'error' });
    expect(await model('main')).toMatchObject({
      state: 'failing',
      lastError: expect.stringContaining('HTTP 500'),
    });
    openai.script({ text: 'fine' });
    expect(await call(pool, 'default')).toMatchObject({ stopReason: 'stop', endpoint: 'main' });
    // Ready again; the last failure stays on show with its time.
    expect(await model('main')).toMatchObject({
      state: 'ready',
      lastError: expect.stringContaining('HTTP 500'),
    });
    expectNoKeys((await send('GET', '/api/models')).text);
  });

  it('answers 404 for a model that is not configured', async () => {
    const { send } = setup();
    for (const path of ['/api/models/nope/test', '/api/models/..%2Fmain/test', '/api/models/%20/test']) {
      const answer = await send('POST', path);
      expect(answer.status, path).toBe(404);
      expect(answer.body.error?.code).toBe('not_found');
    }
    expect(openai.requests).toHaveLength(0);
  });

  it('says how to add a model when there is none, or what the app says about its fallback', async () => {
    const empty = new Hono();
    empty.route('/', modelRoutes({ endpoints: () => [], pool: new EndpointPool({ endpoints: [] }) }));
    const answer = await empty.request('/api/models');
    expect(await answer.json()).toEqual({ models: [], note: expect.stringMatching(/onboarding/) });

    const { send } = setup({ note: () => 'Using ollama at 127.0.0.1:11434 for this run.' });
    expect((await send('GET', '/api/models')).body['note']).toBe(
      'Using ollama at 127.0.0.1:11434 for this run.',
    );
  });
});
