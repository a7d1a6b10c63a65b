import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeLlmServer, startFakeLlmServer } from '../fakes/fake-llm-server.js';
import { cliEnv, makeHome, runCli, startWren } from '../support/wren-home.js';

let llm: FakeLlmServer;
const KEY = 'sk-test-SECRET-1234567890';
const PROTOCOLS = ['openai', 'anthropic', 'gemini'] as const;

const config = (protocol: 'openai' | 'anthropic' | 'gemini' = 'openai') => `
models:
  - name: main
    protocol: ${protocol}
    base_url: \${FAKE_BASE}
    api_key: \${TEST_KEY}
    model: fake-model
`;

function env(home: string, protocol: 'openai' | 'anthropic' | 'gemini' = 'openai') {
  return cliEnv(home, { FAKE_BASE: llm.baseUrls[protocol], TEST_KEY: KEY });
}

beforeAll(async () => {
  llm = await startFakeLlmServer({ apiKey: KEY });
});
afterAll(() => llm.close());
beforeEach(() => llm.reset());

describe('wren chat -m', () => {
  for (const protocol of ['openai', 'anthropic', 'gemini'] as const) {
    it(`prints the reply and exits 0 (${protocol})`, async () => {
      const home = makeHome(config(protocol));
      llm.script({ text: `Hello from ${protocol}!` });
      const result = await runCli(['chat', '-m', 'hi'], env(home, protocol));
      expect(result.stderr).toBe('');
      expect(result.stdout).toBe(`Hello from ${protocol}!\n`);
      expect(result.code).toBe(0);
      expect(llm.lastRequest?.protocol).toBe(protocol);
      expect(llm.lastRequest?.lastUserText).toMatch(/\nhi$/);
      expect(llm.lastRequest?.toolNames).toEqual([
        'read_file',
        'write_file',
        'edit_file',
        'list_dir',
        'exec',
        'web_search',
        'web_fetch',
        'memory_search',
        'use_tools',
      ]);
    });
  }

  it.each(PROTOCOLS)(
    'prints JSON with reply, session and usage, and continues a session (%s)',
    async (protocol) => {
      const home = makeHome(config(protocol));
      llm.script({ text: 'first answer', usage: { input: 120, output: 7 } }, { text: 'second answer' });
      const first = await runCli(['chat', '-m', 'remember the word kiwi', '--json'], env(home, protocol));
      expect(first.code).toBe(0);
      const body = JSON.parse(first.stdout) as {
        reply: string;
        session: string;
        usage: { inputTokens: number; outputTokens: number };
      };
      expect(body.reply).toBe('first answer');
      expect(body.usage).toMatchObject({ inputTokens: 120, outputTokens: 7 });
      const second = await runCli(
        ['chat', '-m', 'what word?', '--session', body.session, '--json'],
        env(home, protocol),
      );
      expect(JSON.parse(second.stdout)).toMatchObject({ reply: 'second answer', session: body.session });
      const sent = JSON.stringify(llm.lastRequest?.body);
      expect(sent).toContain('remember the word kiwi');
      expect(sent).toContain('first answer');
    },
    40_000, // two runs of the CLI
  );

  // Gemini's wire carries arguments as a JSON object, not text: such a call cannot even be encoded there.
  for (const protocol of ['openai', 'anthropic'] as const) {
    it(`answers a turn whose tool call nests 200,000 levels deep with a tool error, not a crash (${protocol})`, async () => {
      const home = makeHome(config(protocol));
      const deep = `{"path": ${'['.repeat(200_000)}${']'.repeat(200_000)}}`;
      llm.script({ toolCalls: [{ name: 'read_file', arguments: deep }] }, { text: 'that call was refused' });
      const result = await runCli(['chat', '-m', 'go'], env(home, protocol));
      expect(result.stderr).toBe('');
      expect(result.stdout).toBe('that call was refused\n');
      expect(result.code).toBe(0);
      expect(JSON.stringify(llm.lastRequest?.body)).toContain('more than 64 levels deep');
    });
  }

  it.each(PROTOCOLS)(
    'runs a tool round trip against the workspace (%s)',
    async (protocol) => {
      const home = makeHome(config(protocol));
      const first = await runCli(['chat', '-m', 'warm up'], env(home, protocol));
      expect(first.code).toBe(0);
      writeFileSync(join(home, 'workspace', 'plan.md'), 'Buy oat milk on Tuesday.');
      llm.script(
        { toolCalls: [{ name: 'read_file', arguments: { path: 'plan.md' } }] },
        { text: 'You plan to buy oat milk.' },
      );
      const result = await runCli(['chat', '-m', 'what is in plan.md?'], env(home, protocol));
      expect(result.stdout).toBe('You plan to buy oat milk.\n');
      expect(JSON.stringify(llm.lastRequest?.body)).toContain('Buy oat milk on Tuesday.');
    },
    40_000,
  ); // two runs of the CLI

  it.each(PROTOCOLS)(
    'fails with exit 1 and one line naming the problem, never the key (%s)',
    async (protocol) => {
      const home = makeHome(config(protocol), '');
      const result = await runCli(
        ['chat', '-m', 'hi'],
        cliEnv(home, { FAKE_BASE: llm.baseUrls[protocol], TEST_KEY: 'sk-wrong-key-ABCDEF' }),
      );
      expect(result.code).toBe(1);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toContain('rejected the API key');
      expect(result.stderr + result.stdout).not.toContain('sk-wrong-key-ABCDEF');
    },
  );

  it('tells the owner when Gemini blocks the prompt, in one line, exit 1', async () => {
    const home = makeHome(config('gemini'));
    llm.script({ blockReason: 'PROHIBITED_CONTENT' });
    const result = await runCli(['chat', '-m', 'something Gemini refuses'], env(home, 'gemini'));
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain(
      'blocked the request before answering (block reason "PROHIBITED_CONTENT"',
    );
    expect(result.stderr).toContain('Rephrase the request or use another model.');
  });

  it('stops with exit 2 and the key path on an invalid config', async () => {
    const home = makeHome(`${config()}\nagent:\n  max_roundz: 3\n`);
    const result = await runCli(['chat', '-m', 'hi'], env(home));
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/agent\.max_roundz/);
    expect(result.stderr).toMatch(/max_rounds/);
  });

  it('stops with exit 2 naming a missing ${VAR}', async () => {
    const home = makeHome(config());
    const result = await runCli(['chat', '-m', 'hi'], cliEnv(home, { FAKE_BASE: llm.baseUrls.openai }));
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/TEST_KEY/);
    expect(result.stderr).toMatch(/models\[0\]\.api_key/);
  });

  it('refuses a corrupt database with a clear message', async () => {
    const home = makeHome(config());
    writeFileSync(join(home, 'wren.db'), Buffer.alloc(8192, 0x5a));
    const result = await runCli(['chat', '-m', 'hi'], env(home));
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/wren\.db/);
    expect(result.stderr).toMatch(/not a SQLite database|damaged/);
  });

  it('rejects a malformed --session id', async () => {
    const home = makeHome(config());
    const result = await runCli(['chat', '-m', 'hi', '--session', '../etc'], env(home));
    expect(result.code).toBe(2);
  });
});

describe('wren chat with no model', () => {
  it('says the same thing with and without a running gateway, naming real commands, and exits 2', async () => {
    const home = makeHome('# no models yet\n');
    const alone = await runCli(['chat', '-m', 'hi'], cliEnv(home));
    const gateway = await startWren(cliEnv(home));
    try {
      const attached = await runCli(['chat', '-m', 'hi'], cliEnv(home));
      const interactive = await runCli(['chat'], cliEnv(home), 'hi\n');
      for (const result of [alone, attached, interactive]) {
        expect(result.code).toBe(2);
        expect(result.stdout).toBe('');
        expect(result.stderr).toMatch(/^wren: No model is configured/);
        expect(result.stderr).toContain('`./wren onboard`');
        expect(result.stderr).not.toContain('presets');
      }
      expect(attached.stderr).toBe(alone.stderr);
    } finally {
      await gateway.stop();
    }
  }, 40_000);
});

describe('wren chat (interactive, piped)', () => {
  it('answers each line and keeps one session', async () => {
    const home = makeHome(config());
    llm.script({ text: 'one' }, { text: 'two' });
    const result = await runCli(['chat'], env(home), 'first line\nsecond line\n');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('one\ntwo\n');
    expect(JSON.stringify(llm.lastRequest?.body.messages)).toContain('first line');
  });

  it('/help lists the commands', async () => {
    const home = makeHome(config());
    const result = await runCli(['chat'], env(home), '/help\n');
    expect(result.stdout).toMatch(/\/new/);
    expect(result.stdout).toMatch(/\/stop/);
    expect(llm.requests).toHaveLength(0);
  });
});
