import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeLlmServer, startFakeLlmServer } from '../fakes/fake-llm-server.js';
import { type FakeTelegram, startFakeTelegram } from '../fakes/fake-telegram-server.js';
import { cliEnv, makeHome, runCli, startWren, waitFor } from '../support/wren-home.js';

const KEY = 'sk-test-SECRET-1234567890';
const BOT_TOKEN = '777000:CLI-test_token-abcdefghij';
const OWNER = 31337;
const FRIEND = 5150;
let llm: FakeLlmServer;
let telegram: FakeTelegram;

beforeAll(async () => {
  llm = await startFakeLlmServer({ apiKey: KEY });
  telegram = await startFakeTelegram({ token: BOT_TOKEN });
});
afterAll(async () => {
  await llm.close();
  await telegram.close();
});

const textsTo = (chat: number) =>
  telegram
    .sent()
    .filter((call) => Number(call.body['chat_id']) === chat)
    .map((call) => String(call.body['text']));

describe('Telegram with wren start', () => {
  it('starts with wren start, shows in wren status, and pairs a stranger approved from the shell', async () => {
    const home = makeHome(`
models:
  - name: main
    protocol: openai
    base_url: \${FAKE_BASE}
    api_key: \${TEST_KEY}
    model: fake-model
channels:
  telegram:
    token: \${TELEGRAM_BOT_TOKEN}
    owner: [${OWNER}]
    pairing: true
    api_root: ${telegram.apiRoot}
`);
    const env = cliEnv(home, {
      FAKE_BASE: llm.baseUrls.openai,
      TEST_KEY: KEY,
      TELEGRAM_BOT_TOKEN: BOT_TOKEN,
    });
    const wren = await startWren(env);
    try {
      await waitFor(async () =>
        (await runCli(['status'], env)).stdout.includes('channel   telegram: connected'),
      );
      llm.script({ text: 'Hi owner.' });
      telegram.pushMessage({ from: OWNER, text: 'hello' });
      await waitFor(() => textsTo(OWNER).includes('Hi owner.'));

      const modelCalls = llm.requests.length;
      telegram.pushMessage({ from: FRIEND, text: 'can we talk?' });
      await waitFor(() => textsTo(FRIEND).length === 1);
      const code = /pairing code is ([A-Z0-9]{8})/.exec(textsTo(FRIEND)[0]!)?.[1];
      expect(code).toBeDefined();
      expect(llm.requests.length).toBe(modelCalls);

      const listed = await runCli(['pairing', 'list'], env);
      expect(listed.stdout).toContain(`${code}  telegram:${FRIEND} (User${FRIEND})  pending`);
      const wrong = await runCli(['pairing', 'approve', 'AAAA2222'], env);
      expect(wrong.code).toBe(1);
      expect(wrong.stderr).toContain('no pending pairing code AAAA2222');
      const approved = await runCli(['pairing', 'approve', code!.toLowerCase()], env);
      expect(approved.stdout).toContain(`Approved telegram:${FRIEND}`);

      llm.script({ text: 'Hello friend.' });
      telegram.pushMessage({ from: FRIEND, text: 'and now?' });
      await waitFor(() => textsTo(FRIEND).includes('Hello friend.'));
      expect(wren.stdout()).not.toContain(BOT_TOKEN);
      expect(wren.stderr()).not.toContain(BOT_TOKEN);
    } finally {
      expect(await wren.stop()).toBe(0);
    }
    const after = await runCli(['status'], env);
    expect(after.stdout).toContain('channel   telegram: starts with `wren start`');
  });

  it('refuses a config naming a username instead of an id, saying why', async () => {
    const home = makeHome(`channels:\n  telegram:\n    token: "1:abc"\n    owner: ["@me"]\n`);
    const result = await runCli(['status'], cliEnv(home));
    expect(result.code).toBe(2);
    expect(result.stdout + result.stderr).toContain('"@me" is a username, not a Telegram user id');
  });
});
