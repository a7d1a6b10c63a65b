import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeLlmServer, startFakeLlmServer } from '../fakes/fake-llm-server.js';
import { cliEnv, makeHome, runCli, startWren, waitFor } from '../support/wren-home.js';

let llm: FakeLlmServer;
const TOKEN = 'subagent-test-token-0123456789';
beforeAll(async () => {
  llm = await startFakeLlmServer();
});
afterAll(() => llm.close());

describe('subagents through the gateway and the CLI', () => {
  it('spawns one from a chat, lists it with `wren subagents`, cancels it with `wren subagents cancel`', async () => {
    const home = makeHome(
      `models:\n  - name: main\n    protocol: openai\n    base_url: ${llm.baseUrls.openai}\n    model: m\n`,
    );
    const env = cliEnv(home, { WREN_GATEWAY_TOKEN: TOKEN });
    const wren = await startWren(env);
    try {
      let spawned = false;
      llm.setHandler((request) => {
        if (request.system.startsWith('You are a Wren subagent')) return { text: 'never', delayMs: 20_000 };
        if (!spawned) {
          spawned = true;
          return { toolCalls: [{ name: 'spawn', arguments: { task: 'dig through the logs' } }] };
        }
        return { text: 'A subagent is on it.' };
      });
      const reply = await fetch(`${wren.url}/api/chat`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'check the logs in the background' }),
      });
      expect(((await reply.json()) as { reply: string }).reply).toBe('A subagent is on it.');
      const listed = await runCli(['subagents', '--json', '--url', wren.url], env);
      expect(listed.code).toBe(0);
      const [agent] = JSON.parse(listed.stdout) as Array<{ id: string; state: string; task: string }>;
      expect(agent).toMatchObject({ state: 'running', task: 'dig through the logs' });
      const cancelled = await runCli(['subagents', 'cancel', agent!.id, '--url', wren.url], env);
      expect(cancelled.stdout).toContain(`Cancelling subagent ${agent!.id}`);
      await waitFor(async () =>
        (await runCli(['subagents', '--json', '--url', wren.url], env)).stdout.includes('"cancelled"'),
      );
      expect((await runCli(['subagents', 'cancel', 'nope', '--url', wren.url], env)).code).toBe(1);
      expect((await runCli(['subagents'], cliEnv(home))).stderr).toMatch(/--token or WREN_GATEWAY_TOKEN/);
    } finally {
      await wren.stop();
      llm.setHandler();
    }
  });
});
