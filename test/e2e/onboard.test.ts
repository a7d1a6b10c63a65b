import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeLlmServer, startFakeLlmServer } from '../fakes/fake-llm-server.js';
import { runInPty } from '../support/pty-session.js';
import { CLI, cliEnv, makeHome } from '../support/wren-home.js';

const UP = '\u001b[A';
const ENTER = '\r';

const onboard = (home: string, steps: Array<[RegExp, string]>) =>
  runInPty(`${process.execPath} ${CLI} onboard`, cliEnv(home), steps);

let llm: FakeLlmServer;
beforeAll(async () => {
  llm = await startFakeLlmServer({ apiKey: 'sk-onboard-KEY-4242' });
});
afterAll(() => llm.close());

describe('wren onboard', () => {
  it('tests a custom endpoint, then saves it with the key in .env and a placeholder in config.yaml', async () => {
    const home = makeHome('# my settings\n');
    const result = await onboard(home, [
      [/Which model provider\?/, UP + ENTER],
      [/Wire protocol/, ENTER],
      [/Base URL/, `${llm.baseUrls.openai}${ENTER}`],
      [/Model id/, `fake-model${ENTER}`],
      [/API key/, `sk-onboard-KEY-4242${ENTER}`],
      [/Name for this model/, ENTER],
    ]);
    expect(result.screen).toMatch(/It answered in \d+ ms/);
    expect(result.code).toBe(0);
    const config = readFileSync(join(home, 'config.yaml'), 'utf8');
    expect(config).toMatch(/name: main/);
    expect(config).toMatch(/api_key: \$\{WREN_CUSTOM_API_KEY\}/);
    expect(config).not.toContain('sk-onboard-KEY-4242');
    expect(readFileSync(join(home, '.env'), 'utf8')).toContain('WREN_CUSTOM_API_KEY=sk-onboard-KEY-4242');
    expect(statSync(join(home, '.env')).mode & 0o777).toBe(0o600);
    expect(llm.lastRequest?.apiKey).toBe('sk-onboard-KEY-4242');
  });

  it('shows the exact error of a failing endpoint and saves nothing when told not to', async () => {
    const home = makeHome('# my settings\n');
    const result = await onboard(home, [
      [/Which model provider\?/, UP + ENTER],
      [/Wire protocol/, ENTER],
      [/Base URL/, `${llm.baseUrls.openai}${ENTER}`],
      [/Model id/, `fake-model${ENTER}`],
      [/API key/, `sk-wrong${ENTER}`],
      [/Name for this model/, ENTER],
      [/Save it anyway\?/, `n${ENTER}`],
      [/Try another provider or model\?/, `n${ENTER}`],
    ]);
    expect(result.screen).toMatch(/It failed: .*401/);
    expect(result.screen).not.toContain('sk-wrong');
    expect(result.code).toBe(1);
    expect(readFileSync(join(home, 'config.yaml'), 'utf8')).not.toMatch(/fake-model/);
  });
});
