import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROVIDER_PRESETS } from '../../src/llm/provider-presets.js';
import { type FakeCopilotServer, startFakeCopilotServer } from '../fakes/fake-copilot-server.js';
import { runInPty } from '../support/pty-session.js';
import { CLI, cliEnv, makeHome } from '../support/wren-home.js';

const DOWN = '\u001b[B';
const ENTER = '\r';
/** Copilot's place in the provider list (no local model server runs where the tests run). */
const COPILOT_ROW = PROVIDER_PRESETS.findIndex((preset) => preset.name === 'copilot');

let copilot: FakeCopilotServer;
beforeAll(async () => {
  copilot = await startFakeCopilotServer({ interval: 0, polls: ['authorization_pending'] });
});
afterAll(() => copilot.close());

describe('wren onboard with GitHub Copilot', () => {
  it('signs in with the device flow, tests the model, and saves it with the token in .env', async () => {
    const home = makeHome('# my settings\n');
    const env = cliEnv(home, {
      WREN_COPILOT_GITHUB_URL: copilot.url,
      WREN_COPILOT_TOKEN_URL: copilot.tokenUrl,
    });
    copilot.llm.script({ text: 'ok' });
    const result = await runInPty(`${process.execPath} ${CLI} onboard`, env, [
      [/Which model provider\?/, DOWN.repeat(COPILOT_ROW) + ENTER],
      [/Model id/, ENTER],
      [/Name for this model/, ENTER],
      [/Would you like a morning briefing\?/, ENTER],
    ]);
    expect(result.screen).toContain('WREN-1234');
    expect(result.screen).toContain(`${copilot.url}/login/device`);
    expect(result.screen).toMatch(/It answered in \d+ ms/);
    expect(result.code).toBe(0);
    for (const secret of [copilot.githubToken, ...copilot.apiTokens])
      expect(result.screen).not.toContain(secret);
    const config = readFileSync(join(home, 'config.yaml'), 'utf8');
    expect(config).toMatch(/provider: copilot/);
    expect(config).toMatch(/model: gpt-4\.1/);
    expect(config).not.toContain(copilot.githubToken);
    expect(readFileSync(join(home, '.env'), 'utf8')).toBe(
      `WREN_COPILOT_GITHUB_TOKEN=${copilot.githubToken}\n`,
    );
    expect(statSync(join(home, '.env')).mode & 0o777).toBe(0o600);
    // The test call went to the chat API the exchange named, with an API token, not the GitHub token.
    expect(copilot.chats.at(-1)).toMatchObject({ path: '/api/chat/completions', status: 200 });
    expect(copilot.chats.at(-1)?.token).toBe(copilot.apiTokens.at(-1));
  });
});
