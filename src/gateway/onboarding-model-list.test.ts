import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeLlmServer, startFakeLlmServer } from '../../test/fakes/fake-llm-server.js';
import { STARTER_CONFIG } from '../config/starter-config.js';
import { onboardingRoutes } from './onboarding-routes.js';

/** `POST /api/onboarding/models`: the models a server the owner typed in lists, for the setup's picker. */

const KEY = 'sk-list-0123456789abcdef';
let local: FakeLlmServer;
let home: string;
const app = new Hono();

beforeAll(async () => {
  local = await startFakeLlmServer({ models: ['qwen3:8b', 'llama3.2'] });
  home = mkdtempSync(join(tmpdir(), 'wren-onboard-list-'));
  writeFileSync(join(home, 'config.yaml'), STARTER_CONFIG, { mode: 0o600 });
  app.route('/', onboardingRoutes({ home, env: {} }));
});

afterAll(async () => {
  await local.close();
  rmSync(home, { recursive: true, force: true });
});

async function list(body: unknown) {
  const response = await app.request('/api/onboarding/models', {
    method: 'POST',
    body: typeof body === 'string' ? body : JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });
  const text = await response.text();
  return { status: response.status, text, body: JSON.parse(text) as { models?: string[]; error?: unknown } };
}

describe('onboarding: the models a server lists', () => {
  it('lists the models of a local server that needs no key, writing nothing', async () => {
    const answer = await list({ baseUrl: local.baseUrls.openai });
    expect(answer).toMatchObject({ status: 200, body: { models: ['qwen3:8b', 'llama3.2'] } });
    expect(readFileSync(join(home, 'config.yaml'), 'utf8')).toBe(STARTER_CONFIG);
    expect(readdirSync(home)).toEqual(['config.yaml']);
  });

  it('answers 200 with no models and the reason when the server cannot be asked', async () => {
    const answer = await list({ baseUrl: 'http://127.0.0.1:9/v1', key: KEY });
    expect(answer.status).toBe(200);
    expect(answer.body.models).toEqual([]);
    expect(answer.body.error).toMatch(/Could not reach 127\.0\.0\.1:9/);
    expect(answer.text).not.toContain(KEY);
  });

  it('refuses non-http(s) URLs, ${VAR}s and malformed bodies with 400, asking no server', async () => {
    const before = local.requests.length;
    const cases: unknown[] = [
      { baseUrl: 'file:///etc/passwd' },
      { baseUrl: 'gopher://127.0.0.1:70/' },
      { baseUrl: 'javascript:alert(1)//' },
      { baseUrl: '${WREN_GATEWAY_TOKEN}' },
      { baseUrl: `http://127.0.0.1/${'a'.repeat(3000)}` },
      { baseUrl: local.baseUrls.openai, key: 'has spaces in it' },
      { baseUrl: local.baseUrls.openai, extra: true },
      { baseUrl: '' },
      '{"baseUrl": ',
      '[]',
    ];
    for (const body of cases) {
      const answer = await list(body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.text).not.toContain('has spaces in it');
    }
    expect(local.requests.length).toBe(before);
  });
});
