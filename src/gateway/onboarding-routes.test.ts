import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Hono } from 'hono';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FakeLlmServer, startFakeLlmServer } from '../../test/fakes/fake-llm-server.js';
import { loadConfig, resolveEndpoints } from '../config/load-config.js';
import { STARTER_CONFIG } from '../config/starter-config.js';
import { modelRoutes } from './model-routes.js';
import { onboardingRoutes } from './onboarding-routes.js';

const KEY = 'sk-onboard-0123456789abcdefXYZ';

let keyed: FakeLlmServer;
let open: FakeLlmServer;
beforeAll(async () => {
  keyed = await startFakeLlmServer({ apiKey: KEY });
  open = await startFakeLlmServer();
});
afterAll(async () => {
  await keyed.close();
  await open.close();
});
const cleanups: Array<() => void> = [];
afterEach(() => {
  keyed.reset();
  open.reset();
  for (const cleanup of cleanups.splice(0)) cleanup();
});

type Body = Record<string, unknown> & {
  error?: { code: string; message: string };
  test?: { ok: boolean; latencyMs: number; error?: string };
  presets?: Array<Record<string, unknown>>;
};

/** A temp home with the starter config.yaml; `env` is the process environment the app would have. */
function setup(options: { env?: Record<string, string>; config?: string; dotEnv?: string } = {}) {
  const home = mkdtempSync(join(tmpdir(), 'wren-onboard-'));
  cleanups.push(() => rmSync(home, { recursive: true, force: true }));
  writeFileSync(join(home, 'config.yaml'), options.config ?? STARTER_CONFIG, { mode: 0o600 });
  if (options.dotEnv !== undefined) writeFileSync(join(home, '.env'), options.dotEnv, { mode: 0o600 });
  const log: string[] = [];
  const logger = pino({ level: 'trace' }, { write: (line: string) => void log.push(line) });
  const env = options.env ?? {};
  const app = new Hono();
  app.route('/', onboardingRoutes({ home, env, logger }));
  const texts: string[] = [];
  const send = async (method: string, body?: unknown) => {
    const response = await app.request('/api/onboarding', {
      method,
      ...(body === undefined
        ? {}
        : {
            body: typeof body === 'string' ? body : JSON.stringify(body),
            headers: { 'content-type': 'application/json' },
          }),
    });
    const text = await response.text();
    texts.push(text);
    return { status: response.status, body: JSON.parse(text) as Body };
  };
  const read = (name: string) => {
    try {
      return readFileSync(join(home, name), 'utf8');
    } catch {
      return undefined;
    }
  };
  /** Nothing the routes said or logged, nor config.yaml, ever holds the key. */
  const expectKeyNowhere = () => {
    for (const text of [...texts, ...log, read('config.yaml') ?? '']) expect(text).not.toContain(KEY);
  };
  return { home, env, send, read, log, expectKeyNowhere };
}

describe('onboarding routes', () => {
  it('says a model is needed while config.yaml names none, and lists the presets', async () => {
    const { send } = setup();
    const { status, body } = await send('GET');
    expect(status).toBe(200);
    expect(body['needed']).toBe(true);
    expect(body.presets).toContainEqual(
      expect.objectContaining({
        id: 'openai',
        label: 'OpenAI',
        needsKey: true,
        keyVar: 'OPENAI_API_KEY',
        baseUrl: 'https://api.openai.com/v1',
        defaultModel: expect.any(String),
      }),
    );
    const ollama = body.presets?.find((preset) => preset['id'] === 'ollama');
    expect(ollama).toMatchObject({ needsKey: false, local: true });
    expect(ollama?.['keyVar']).toBeUndefined();
    expect(body.presets?.at(-1)).toMatchObject({
      id: 'custom',
      needsKey: false,
      keyVar: 'WREN_CUSTOM_API_KEY',
    });

    const disabledOnly = setup({
      config: 'models:\n  - name: old\n    provider: openai\n    model: x\n    enabled: false\n',
    });
    expect((await disabledOnly.send('GET')).body['needed']).toBe(true);
  });

  it('tests the model, stores the key in .env (0600) and adds the model with ${VAR}, never the key', async () => {
    const { send, read, home, log, expectKeyNowhere } = setup();
    const answer = await send('POST', {
      preset: 'openai',
      key: KEY,
      model: 'fake-model',
      baseUrl: `${keyed.baseUrls.openai}/`,
    });
    expect(answer).toEqual({
      status: 200,
      body: { ok: true, saved: true, model: 'main', test: { ok: true, latencyMs: expect.any(Number) } },
    });
    expect(keyed.lastRequest?.apiKey).toBe(KEY);
    expect(read('.env')).toBe(`OPENAI_API_KEY=${KEY}\n`);
    expect(statSync(join(home, '.env')).mode & 0o777).toBe(0o600);
    const config = read('config.yaml')!;
    expect(config).toContain('api_key: ${OPENAI_API_KEY}');
    expect(config).toContain('# Wren configuration.');
    // What the app's reload will load.
    const loaded = loadConfig(home, {});
    expect(loaded.models).toMatchObject([
      { name: 'main', provider: 'openai', baseUrl: keyed.baseUrls.openai, apiKey: KEY, model: 'fake-model' },
    ]);
    expect((await send('GET')).body['needed']).toBe(false);
    expect(log.join('')).toContain('onboarding saved a model');
    // A second model gets the next free name.
    expect(
      (await send('POST', { preset: 'openai', key: KEY, baseUrl: keyed.baseUrls.openai })).body,
    ).toMatchObject({ ok: true, model: 'model-2' });
    expectKeyNowhere();
  });

  it('saves nothing when the test fails (unless forced), and never repeats the key the server echoed', async () => {
    const wrong = 'sk-wrong-but-well-formed-42';
    const { send, read, expectKeyNowhere } = setup();
    const failed = await send('POST', { preset: 'deepseek', key: wrong, baseUrl: keyed.baseUrls.openai });
    expect(failed.status).toBe(200);
    expect(failed.body).toMatchObject({ ok: false, saved: false, model: 'main', test: { ok: false } });
    expect(failed.body.test?.error).toContain('HTTP 401');
    expect(JSON.stringify(failed.body)).not.toContain(wrong);
    expect(read('.env')).toBeUndefined();
    expect(read('config.yaml')).toBe(STARTER_CONFIG);

    const forced = await send('POST', { preset: 'ollama', baseUrl: 'http://127.0.0.1:9/v1', force: true });
    expect(forced.body).toMatchObject({ ok: false, saved: true, model: 'main', test: { ok: false } });
    expect(read('config.yaml')).toContain('base_url: http://127.0.0.1:9/v1');
    expectKeyNowhere();
  });

  it.each([
    ['a line break', `${KEY}\nEVIL=1`],
    ['a carriage return', `${KEY}\r`],
    ['a space', `${KEY} x`],
    ['a tab', `\t${KEY}`],
    ['a NUL', `${KEY}\u0000`],
    ['quotes', `${KEY}'"`],
    ['a backslash', `${KEY}\\n`],
    ['non-ASCII', `${KEY}é`],
    ['too few characters', 'sk-1'],
  ])('refuses a key with %s with 400, without echoing it, and writes nothing', async (_what, key) => {
    const { send, read, log } = setup();
    const answer = await send('POST', { preset: 'openai', key, baseUrl: keyed.baseUrls.openai });
    expect(answer.status).toBe(400);
    expect(answer.body.error?.code).toBe('bad_request');
    expect(answer.body.error?.message).toMatch(/^key: /);
    expect(JSON.stringify(answer.body)).not.toContain(key);
    expect(log.join('')).not.toContain(key);
    expect(keyed.requests).toHaveLength(0);
    expect(read('.env')).toBeUndefined();
    expect(read('config.yaml')).toBe(STARTER_CONFIG);
  });

  it('refuses bad requests with 400 and writes nothing', async () => {
    const { send, read, expectKeyNowhere } = setup();
    const cases: Array<[unknown, RegExp]> = [
      ['{"preset": "openai", "key": ', /JSON/],
      ['[]', /expected object/],
      [{}, /^preset: /],
      [{ preset: 'skynet', key: KEY }, /^preset must be one of openai, anthropic, .*custom/],
      [{ preset: 42 }, /^preset: /],
      [{ preset: 'openai', key: 1234567890 }, /^key: /],
      [{ preset: 'openai', key: KEY, colour: 'red' }, /colour/],
      [{ preset: 'openai', key: KEY, force: 'yes' }, /^force: /],
      [{ preset: 'openai' }, /^key: OpenAI needs an API key \(it is stored in \.env as OPENAI_API_KEY\)/],
      [{ preset: 'ollama', key: KEY }, /^key: Ollama takes no API key/],
      [{ preset: 'custom', model: 'm' }, /^baseUrl: /],
      [{ preset: 'custom', baseUrl: open.baseUrls.openai }, /^model: /],
      [{ preset: 'ollama', baseUrl: 'ftp://127.0.0.1/v1' }, /^baseUrl: must be an http\(s\) URL/],
      [{ preset: 'ollama', baseUrl: 'http:// spaced/v1' }, /^baseUrl: /],
    ];
    for (const [body, message] of cases) {
      const answer = await send('POST', body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.error?.code).toBe('bad_request');
      expect(answer.body.error?.message, JSON.stringify(body)).toMatch(message);
    }
    expect(read('.env')).toBeUndefined();
    expect(read('config.yaml')).toBe(STARTER_CONFIG);
    expectKeyNowhere();
  });

  it('refuses ${ in model or baseUrl (config.yaml would expand it) before testing, and writes nothing', async () => {
    const secret = 'sk-process-only-secret-0123456789';
    const { home, env, send, read } = setup({ env: { OPENAI_API_KEY: secret } });
    const refusal =
      /^(model|baseUrl): `\$\{` is not allowed here: config\.yaml would read it as an environment variable/;
    const cases: unknown[] = [
      // The reported exploit: GET /api/models would then have shown the secret.
      {
        preset: 'custom',
        model: '${OPENAI_API_KEY}',
        baseUrl: 'http://127.0.0.1:9/${OPENAI_API_KEY}/v1',
        force: true,
      },
      {
        preset: 'custom',
        model: 'fake-model',
        baseUrl: `${open.baseUrls.openai}/\${OPENAI_API_KEY}`,
        force: true,
      },
      { preset: 'ollama', model: 'x-${OPENAI_API_KEY:-none}', baseUrl: open.baseUrls.openai, force: true },
      { preset: 'lmstudio', model: 'literal-$${OPENAI_API_KEY}', baseUrl: open.baseUrls.openai, force: true },
      { preset: 'openai', key: KEY, model: 'gpt-${', baseUrl: keyed.baseUrls.openai, force: true },
      { preset: 'openai', key: KEY, baseUrl: `http://\${OPENAI_API_KEY}.example.test/v1`, force: true },
    ];
    for (const body of cases) {
      const answer = await send('POST', body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.error?.code).toBe('bad_request');
      expect(answer.body.error?.message, JSON.stringify(body)).toMatch(refusal);
      expect(JSON.stringify(answer.body)).not.toContain(secret);
    }
    expect(open.requests).toHaveLength(0);
    expect(keyed.requests).toHaveLength(0);
    expect(read('config.yaml')).toBe(STARTER_CONFIG);
    expect(read('.env')).toBeUndefined();
    // What GET /api/models would answer after the reload: still no model, so nothing to show.
    const models = new Hono();
    models.route(
      '/',
      modelRoutes({
        endpoints: () => resolveEndpoints(loadConfig(home, env)),
        pool: { status: () => [], health: () => ({}) },
      }),
    );
    const listed = await (await models.request('/api/models')).text();
    expect(JSON.parse(listed)).toMatchObject({ models: [] });
    expect(listed).not.toContain(secret);
  });

  it('still saves ordinary values with a lone $ (only ${ expands), literally', async () => {
    const { home, env, send, read } = setup({ env: { OPENAI_API_KEY: 'sk-process-only-secret-0123456789' } });
    const answer = await send('POST', {
      preset: 'custom',
      model: 'fake-model',
      baseUrl: `${open.baseUrls.openai}/`,
    });
    expect(answer.body).toMatchObject({ ok: true, saved: true, model: 'main' });
    const forced = await send('POST', {
      preset: 'custom',
      model: 'price-$5-{tier}-$OPENAI_API_KEY',
      baseUrl: `${open.baseUrls.openai}/$OPENAI_API_KEY`,
      force: true,
    });
    expect(forced.body).toMatchObject({ saved: true, model: 'model-2' });
    expect(read('config.yaml')).toContain('model: price-$5-{tier}-$OPENAI_API_KEY');
    expect(loadConfig(home, env).models.map((model) => [model.model, model.baseUrl])).toEqual([
      ['fake-model', open.baseUrls.openai],
      ['price-$5-{tier}-$OPENAI_API_KEY', `${open.baseUrls.openai}/$OPENAI_API_KEY`],
    ]);
  });

  it('uses a key already in .env when none is given, and a local or custom server without one', async () => {
    const { send, read, home } = setup({ dotEnv: `GROQ_API_KEY=${KEY}\n` });
    const groq = await send('POST', { preset: 'groq', model: 'fake-model', baseUrl: keyed.baseUrls.openai });
    expect(groq.body).toMatchObject({ ok: true, saved: true, model: 'main' });
    expect(keyed.lastRequest?.apiKey).toBe(KEY);
    expect(read('.env')).toBe(`GROQ_API_KEY=${KEY}\n`);

    const local = await send('POST', { preset: 'lmstudio', model: 'qwen', baseUrl: open.baseUrls.openai });
    expect(local.body).toMatchObject({ ok: true, model: 'model-2' });
    expect(open.lastRequest?.apiKey).toBeUndefined();

    const custom = await send('POST', {
      preset: 'custom',
      key: 'custom-server-key-123',
      model: 'fake-model',
      baseUrl: open.baseUrls.openai,
    });
    expect(custom.body).toMatchObject({ ok: true, model: 'model-3' });
    expect(read('.env')).toContain('WREN_CUSTOM_API_KEY=custom-server-key-123');
    expect(loadConfig(home, {}).models.map((model) => [model.name, model.provider, model.apiKey])).toEqual([
      ['main', 'groq', KEY],
      ['model-2', 'lmstudio', undefined],
      ['model-3', undefined, 'custom-server-key-123'],
    ]);
    expect(read('config.yaml')).toContain('api_key: ${WREN_CUSTOM_API_KEY}');
  });

  it('refuses with 409 a key the environment would shadow, and a config.yaml that does not load', async () => {
    const shadowed = setup({ env: { OPENAI_API_KEY: 'sk-from-the-environment-1' } });
    const answer = await shadowed.send('POST', {
      preset: 'openai',
      key: KEY,
      baseUrl: keyed.baseUrls.openai,
    });
    expect(answer.status).toBe(409);
    expect(answer.body.error).toMatchObject({
      code: 'conflict',
      message: expect.stringContaining('OPENAI_API_KEY'),
    });
    expect(JSON.stringify(answer.body)).not.toContain('sk-from-the-environment-1');
    expect(shadowed.read('.env')).toBeUndefined();
    shadowed.expectKeyNowhere();

    const broken = `${STARTER_CONFIG}web:\n  search:\n    api_key: \${UNSET_SEARCH_KEY}\n`;
    const unloadable = setup({ config: broken });
    const refused = await unloadable.send('POST', {
      preset: 'openai',
      key: KEY,
      baseUrl: keyed.baseUrls.openai,
    });
    expect(refused.status).toBe(409);
    expect(refused.body.error?.message).toMatch(/^Fix config\.yaml first: .*UNSET_SEARCH_KEY/s);
    expect(keyed.requests).toHaveLength(0);
    expect(unloadable.read('config.yaml')).toBe(broken);
    expect(unloadable.read('.env')).toBeUndefined();
    unloadable.expectKeyNowhere();
  });
});
