import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeLlmServer, startFakeLlmServer } from '../fakes/fake-llm-server.js';
import { cliEnv, makeHome, runCli, startWren, waitFor } from '../support/wren-home.js';

let llm: FakeLlmServer;
const TOKEN = 'subagent-test-token-0123456789';
beforeAll(async () => {
  llm = await startFakeLlmServer();
});
afterAll(() => llm.close());

const config = () =>
  `models:\n  - name: main\n    protocol: openai\n    base_url: ${llm.baseUrls.openai}\n    model: m\n`;

describe('subagents through the gateway and the CLI', () => {
  it('spawns one from a chat, lists it with `wren subagents`, cancels it with `wren subagents cancel`', async () => {
    const home = makeHome(config());
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
      // No token and no URL: the command finds this home's gateway through gateway.json.
      const plain = cliEnv(home);
      const listed = await runCli(['subagents', '--json'], plain);
      expect(listed.code).toBe(0);
      const [agent] = JSON.parse(listed.stdout) as Array<{ id: string; state: string; task: string }>;
      expect(agent).toMatchObject({ state: 'running', task: 'dig through the logs' });
      const cancelled = await runCli(['subagents', 'cancel', agent!.id], plain);
      expect(cancelled.stdout).toContain(`Cancelling subagent ${agent!.id}`);
      await waitFor(async () =>
        (await runCli(['subagents', '--json'], plain)).stdout.includes('"cancelled"'),
      );
      expect((await runCli(['subagents', 'cancel', 'nope'], plain)).code).toBe(1);
    } finally {
      await wren.stop();
      llm.setHandler();
    }
    const after = await runCli(['subagents'], cliEnv(home));
    expect(after.code).toBe(1);
    expect(after.stderr).toMatch(/no gateway runs for this home/);
  });

  it('never sends the token to something else answering at the recorded address', async () => {
    const home = makeHome(config());
    const seen: string[] = [];
    const impostor = createServer((request, response) => {
      seen.push(`${request.url} ${request.headers.authorization ?? 'no-auth'}`);
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ ok: true, version: '0.1.0', proof: 'ab'.repeat(32) }));
    });
    await new Promise<void>((resolve) => impostor.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(impostor.address() as AddressInfo).port}`;
    // A live process (this test's) with a record pointing at the impostor: a port taken over by another program.
    writeFileSync(
      join(home, 'gateway.json'),
      JSON.stringify({
        pid: process.pid,
        start: '',
        url,
        version: '0.1.0',
        startedAt: Date.now(),
        secret: 'the-real-secret',
        localToken: 'wren_local_must_not_leak',
      }),
      { mode: 0o600 },
    );
    try {
      for (const args of [['subagents'], ['status']]) {
        const result = await runCli(args, cliEnv(home));
        expect(result.stdout + result.stderr).toMatch(/not this home.s gateway/);
      }
      expect(seen.length).toBeGreaterThan(0);
      expect(
        seen.every((line) => line.endsWith('no-auth') && line.startsWith('/api/health?challenge=')),
      ).toBe(true);
    } finally {
      await new Promise((resolve) => impostor.close(resolve));
    }
  });
});
