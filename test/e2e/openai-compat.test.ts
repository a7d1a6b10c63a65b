import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeLlmServer, startFakeLlmServer } from '../fakes/fake-llm-server.js';
import { cliEnv, makeHome, type RunningWren, startWren, waitFor } from '../support/wren-home.js';

const TOKEN = 'test-gateway-token-123';
let llm: FakeLlmServer;
const running: RunningWren[] = [];

beforeAll(async () => {
  llm = await startFakeLlmServer();
});
afterAll(() => llm.close());
beforeEach(() => llm.reset());
afterEach(async () => {
  await Promise.all(running.splice(0).map((wren) => wren.stop()));
});

const config = (extra = '') => `
models:
  - name: main
    protocol: openai
    base_url: ${llm.baseUrls.openai}
    model: fake-model
tools:
  exec: { sandbox: none }
${extra}`;

async function start(extra = '') {
  const home = makeHome(config(extra));
  const wren = await startWren(cliEnv(home, { WREN_GATEWAY_TOKEN: TOKEN }));
  running.push(wren);
  const openai = new OpenAI({ apiKey: TOKEN, baseURL: `${wren.url}/v1`, maxRetries: 0 });
  return { home, wren, openai };
}

const ask = (content: string, user?: string) => ({
  model: 'wren',
  messages: [{ role: 'user' as const, content }],
  ...(user ? { user } : {}),
});

describe('wren start as an OpenAI-compatible model', () => {
  it('answers the openai client, streamed and not, in the session `user` names; denies what needs approval', async () => {
    const { home, openai } = await start();
    llm.script({ text: 'Noted: apples.' });
    const first = await openai.chat.completions.create(ask('remember apples', 'kitchen'));
    expect(first.choices[0]!.message.content).toBe('Noted: apples.');
    expect(first.usage!.prompt_tokens).toBeGreaterThan(0);

    llm.script({ text: 'You said apples.' });
    const stream = await openai.chat.completions.create({
      ...ask('what did I say?', 'kitchen'),
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('You said apples.');
    expect(JSON.stringify(llm.lastRequest?.body)).toContain('remember apples');

    // gate.mode ask (the default): exec needs approval, which this client cannot give.
    llm.script(
      { toolCalls: [{ name: 'exec', arguments: { command: 'echo hi > made.txt' } }] },
      { text: 'I could not run it.' },
    );
    const denied = await openai.chat.completions.create(ask('make a file', 'kitchen'));
    expect(denied.choices[0]!.message.content).toMatch(
      /^I could not run it\.\n\n\(Wren did not run `exec`: the call needs your approval/,
    );
    expect(existsSync(join(home, 'workspace', 'made.txt'))).toBe(false);
  }, 60_000);

  it('with gateway.openai_compat.approvals: wait, holds the call until it is approved over the API', async () => {
    const { home, wren, openai } = await start('gateway:\n  openai_compat:\n    approvals: wait\n');
    llm.script(
      { toolCalls: [{ name: 'exec', arguments: { command: 'echo hi > made.txt' } }] },
      { text: 'Made it.' },
    );
    const reply = openai.chat.completions.create(ask('make a file'));
    const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
    let id = '';
    await waitFor(async () => {
      const body = (await (await fetch(`${wren.url}/api/approvals`, { headers: auth })).json()) as {
        pending: Array<{ id: string; tool: string; sessionId: string }>;
      };
      const held = body.pending.find((request) => request.tool === 'exec');
      if (held) {
        expect(held.sessionId).toBe('openai');
        id = held.id;
      }
      return held !== undefined;
    });
    expect(existsSync(join(home, 'workspace', 'made.txt'))).toBe(false);
    const answer = await fetch(`${wren.url}/api/approvals/${id}`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ answer: 'once' }),
    });
    expect(answer.status).toBe(200);
    expect((await reply).choices[0]!.message.content).toBe('Made it.');
    expect(readFileSync(join(home, 'workspace', 'made.txt'), 'utf8')).toBe('hi\n');
  }, 60_000);
});
