import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeLlmServer, startFakeLlmServer } from '../fakes/fake-llm-server.js';
import { runInPty } from '../support/pty-session.js';
import { CLI, cliEnv, makeHome } from '../support/wren-home.js';

const UP = '\u001b[A';
const DOWN = '\u001b[B';
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
      [/API key/, `sk-onboard-KEY-4242${ENTER}`],
      [/Which model\?/, ENTER],
      [/Name for this model/, ENTER],
      // The optional step after the model: Enter skips it, and nothing is written for it.
      [/Would you like a morning briefing\? Time \(e\.g\. 07:30\) or Enter to skip/, ENTER],
    ]);
    expect(result.screen).toMatch(/It answered in \d+ ms/);
    expect(result.code).toBe(0);
    expect(result.screen).not.toMatch(/On which days\?/);
    const config = readFileSync(join(home, 'config.yaml'), 'utf8');
    expect(config).not.toMatch(/^briefing:/m);
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
      [/API key/, `sk-wrong${ENTER}`],
      [/Which model\?/, ENTER],
      [/Name for this model/, ENTER],
      [/Save it anyway\?/, `n${ENTER}`],
      [/Try another provider or model\?/, `n${ENTER}`],
    ]);
    expect(result.screen).toMatch(/It failed: .*401/);
    expect(result.screen).not.toContain('sk-wrong');
    expect(result.code).toBe(1);
    expect(readFileSync(join(home, 'config.yaml'), 'utf8')).not.toMatch(/fake-model/);
  });

  it('another server: no key needed, its models listed to pick from', async () => {
    const local = await startFakeLlmServer({ models: ['llama-3.1-8b', 'qwen2.5-7b'] });
    try {
      const home = makeHome('# my settings\n');
      const result = await onboard(home, [
        [/Which model provider\?/, UP + ENTER],
        [/Wire protocol/, ENTER],
        [/Base URL/, `${local.baseUrls.openai}${ENTER}`],
        [/API key, if the server needs one/, ENTER],
        [/Which model\?/, DOWN + ENTER],
        [/Name for this model/, ENTER],
        [/Would you like a morning briefing\?/, ENTER],
      ]);
      expect(result.screen).toMatch(/serves 2 models/);
      expect(result.screen).toMatch(/It answered in \d+ ms/);
      expect(result.code).toBe(0);
      const config = readFileSync(join(home, 'config.yaml'), 'utf8');
      expect(config).toMatch(/model: qwen2\.5-7b/);
      expect(config).not.toMatch(/api_key/);
      expect(existsSync(join(home, '.env')) ? readFileSync(join(home, '.env'), 'utf8') : '').not.toMatch(
        /WREN_CUSTOM_API_KEY/,
      );
      expect(local.lastRequest?.apiKey).toBeUndefined();
      expect(local.lastRequest?.body['model']).toBe('qwen2.5-7b');
    } finally {
      await local.close();
    }
  });

  it('another server without a model list: says why and asks for the model id', async () => {
    const home = makeHome('# my settings\n');
    const result = await onboard(home, [
      [/Which model provider\?/, UP + ENTER],
      [/Wire protocol/, ENTER],
      [/Base URL/, `${llm.url}/no-list/v1${ENTER}`],
      [/API key, if the server needs one/, `sk-onboard-KEY-4242${ENTER}`],
      [/Model id/, `fake-model${ENTER}`],
      [/Name for this model/, ENTER],
      [/Would you like a morning briefing\?/, ENTER],
    ]);
    expect(result.screen).toMatch(/No model list at .*\/no-list\/v1\/models \(HTTP 404\)/);
    expect(result.code).toBe(0);
    expect(readFileSync(join(home, 'config.yaml'), 'utf8')).toMatch(/api_key: \$\{WREN_CUSTOM_API_KEY\}/);
  });

  it('turns on a morning briefing after the model: a bad time is asked again, then the days', async () => {
    const local = await startFakeLlmServer({ models: ['llama-3.1-8b'] });
    try {
      const home = makeHome('# my settings\n');
      const result = await onboard(home, [
        [/Which model provider\?/, UP + ENTER],
        [/Wire protocol/, ENTER],
        [/Base URL/, `${local.baseUrls.openai}${ENTER}`],
        [/API key, if the server needs one/, ENTER],
        [/Which model\?/, ENTER],
        [/Name for this model/, ENTER],
        [/Would you like a morning briefing\?/, `25:00${ENTER}`],
        [/a time like 07:30, or empty/, `${'\u007f'.repeat(5)}7:30${ENTER}`],
        [/On which days\?/, DOWN + ENTER],
      ]);
      expect(result.code).toBe(0);
      expect(result.screen).toMatch(/Saved "main" and a morning briefing \(every day at 07:30\)/);
      const config = readFileSync(join(home, 'config.yaml'), 'utf8');
      expect(config).toContain('# my settings');
      expect(config).toMatch(/model: llama-3\.1-8b/);
      expect(config).toMatch(/^briefing:\n {2}at: "?07:30"?\n {2}days: daily$/m);
    } finally {
      await local.close();
    }
  });
});
