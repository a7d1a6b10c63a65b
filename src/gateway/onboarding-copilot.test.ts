import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Hono } from 'hono';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FakeCopilotServer, startFakeCopilotServer } from '../../test/fakes/fake-copilot-server.js';
import { loadConfig, resolveEndpoints } from '../config/load-config.js';
import { STARTER_CONFIG } from '../config/starter-config.js';
import { onboardingRoutes } from './onboarding-routes.js';

let copilot: FakeCopilotServer;
beforeAll(async () => {
  copilot = await startFakeCopilotServer();
});
afterAll(() => copilot.close());
const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

type Body = Record<string, unknown> & {
  error?: { message: string };
  presets?: Array<Record<string, unknown>>;
};

function setup(dotEnv?: string) {
  const home = mkdtempSync(join(tmpdir(), 'wren-onboard-copilot-'));
  homes.push(home);
  writeFileSync(join(home, 'config.yaml'), STARTER_CONFIG, { mode: 0o600 });
  if (dotEnv !== undefined) writeFileSync(join(home, '.env'), dotEnv, { mode: 0o600 });
  const env = { WREN_COPILOT_TOKEN_URL: copilot.tokenUrl };
  const app = new Hono();
  app.route('/', onboardingRoutes({ home, env }));
  const send = async (method: string, body?: unknown) => {
    const response = await app.request('/api/onboarding', {
      method,
      ...(body === undefined
        ? {}
        : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    });
    const text = await response.text();
    return { status: response.status, text, body: JSON.parse(text) as Body };
  };
  return { home, env, send };
}

describe('onboarding API with GitHub Copilot', () => {
  it('lists Copilot as needing no key, with a note to sign in from the terminal', async () => {
    const { send } = setup();
    const { body } = await send('GET');
    const preset = body.presets?.find((entry) => entry.id === 'copilot');
    expect(preset).toMatchObject({ label: 'GitHub Copilot', needsKey: false, local: false });
    expect(preset?.keyVar).toBeUndefined();
    expect(preset?.docs).toContain('wren models login copilot');
  });

  it('asks to sign in first when no GitHub token is saved, and refuses a pasted key', async () => {
    const { send, home } = setup();
    const missing = await send('POST', { preset: 'copilot' });
    expect(missing.status).toBe(400);
    expect(missing.body.error?.message).toContain('wren models login copilot');
    const pasted = await send('POST', { preset: 'copilot', key: 'ghp_pastedPersonalToken123' });
    expect(pasted.status).toBe(400);
    expect(pasted.text).not.toContain('ghp_pastedPersonalToken123');
    expect(readFileSync(join(home, 'config.yaml'), 'utf8')).not.toContain('copilot');
  });

  it('tests and saves a Copilot model with the token saved by `wren models login copilot`', async () => {
    const { send, home, env } = setup(`WREN_COPILOT_GITHUB_TOKEN=${copilot.githubToken}\n`);
    const before = copilot.chats.length;
    const { status, body, text } = await send('POST', { preset: 'copilot' });
    expect(status).toBe(200);
    expect(body).toMatchObject({ ok: true, saved: true, model: 'main', test: { ok: true } });
    for (const secret of [copilot.githubToken, ...copilot.apiTokens]) expect(text).not.toContain(secret);
    // No base_url given: the test call went where the exchange pointed.
    expect(copilot.chats.slice(before).map((chat) => [chat.path, chat.status])).toEqual([
      ['/api/chat/completions', 200],
    ]);
    const config = readFileSync(join(home, 'config.yaml'), 'utf8');
    expect(config).toMatch(/provider: copilot/);
    expect(config).not.toContain(copilot.githubToken);
    const [endpoint] = resolveEndpoints(loadConfig(home, env));
    expect(endpoint).toMatchObject({ model: 'gpt-4.1', apiKey: copilot.githubToken });
    expect(endpoint?.copilot).toEqual({ tokenUrl: copilot.tokenUrl, useTokenApiBase: true });
  });
});
