import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeLlmServer, startFakeLlmServer } from '../fakes/fake-llm-server.js';
import { cliEnv, makeHome, type RunningWren, runCli, startWren, waitFor } from '../support/wren-home.js';

let llm: FakeLlmServer;
const TOKEN = 'test-gateway-token-123';
const running: RunningWren[] = [];

const twoModels = `
models:
  - name: primary
    protocol: openai
    base_url: \${FAKE_BASE}
    model: model-a
    priority: 0
  - name: backup
    protocol: anthropic
    base_url: \${FAKE_ANTHROPIC}
    model: model-b
    priority: 1
`;

function env(home: string, extra: Record<string, string> = {}) {
  return cliEnv(home, {
    FAKE_BASE: llm.baseUrls.openai,
    FAKE_ANTHROPIC: llm.baseUrls.anthropic,
    WREN_GATEWAY_TOKEN: TOKEN,
    ...extra,
  });
}

async function start(home: string, extra: Record<string, string> = {}, args: string[] = []) {
  const wren = await startWren(env(home, extra), args);
  running.push(wren);
  return wren;
}

function chat(wren: RunningWren, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${wren.url}/api/chat`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

beforeAll(async () => {
  llm = await startFakeLlmServer();
});
afterAll(() => llm.close());
beforeEach(() => llm.reset());
afterEach(async () => {
  await Promise.all(running.splice(0).map((wren) => wren.stop()));
});

describe('wren start (HTTP gateway)', () => {
  it('serves health without auth and refuses the API without the token', async () => {
    const wren = await start(makeHome(twoModels));
    const health = await fetch(`${wren.url}/api/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ ok: true });
    const anonymous = await fetch(`${wren.url}/api/chat`, { method: 'POST', body: '{}' });
    expect(anonymous.status).toBe(401);
    const wrong = await chat(wren, { message: 'hi' }, { authorization: 'Bearer nope' });
    expect(wrong.status).toBe(401);
    expect(llm.requests).toHaveLength(0);
  });

  it('answers POST /api/chat as JSON and continues the session', async () => {
    const wren = await start(makeHome(twoModels));
    llm.setHandler((request) => ({ text: `you said: ${request.lastUserText.split('\n').at(-1)}` }));
    const first = await chat(wren, { message: 'apples' });
    expect(first.status).toBe(200);
    const body = (await first.json()) as { reply: string; session: string; usage: { inputTokens: number } };
    expect(body.reply).toBe('you said: apples');
    expect(body.usage.inputTokens).toBeGreaterThan(0);
    const second = await chat(wren, { message: 'pears', session: body.session });
    expect(await second.json()).toMatchObject({ reply: 'you said: pears', session: body.session });
    expect(JSON.stringify(llm.lastRequest?.body.messages)).toContain('apples');
  });

  it('streams deltas, tool events and a final done event over SSE', async () => {
    const home = makeHome(twoModels);
    const wren = await start(home);
    writeFileSync(join(home, 'workspace', 'note.txt'), 'the code is 4711');
    llm.script(
      { toolCalls: [{ name: 'read_file', arguments: { path: 'note.txt' } }] },
      { text: 'The code is 4711.', chunks: ['The ', 'code ', 'is 4711.'] },
    );
    const response = await chat(wren, { message: 'what is the code?' }, { accept: 'text/event-stream' });
    expect(response.headers.get('content-type')).toMatch(/text\/event-stream/);
    const text = await response.text();
    const events = [...text.matchAll(/event: (\S+)\ndata: (.*)\n/g)].map((match) => ({
      event: match[1],
      data: JSON.parse(match[2]!),
    }));
    const names = events.map((event) => event.event);
    expect(names).toContain('tool');
    expect(events.find((event) => event.event === 'tool')?.data).toMatchObject({
      phase: 'start',
      name: 'read_file',
    });
    const deltas = events
      .filter((event) => event.event === 'delta')
      .map((event) => event.data.text)
      .join('');
    expect(deltas).toBe('The code is 4711.');
    expect(events.at(-1)).toMatchObject({ event: 'done', data: { reply: 'The code is 4711.' } });
  });

  it('rejects bad bodies with a clear 400 and oversized ones with 413', async () => {
    const wren = await start(makeHome(twoModels));
    const notJson = await chat(wren, 'not json');
    expect(notJson.status).toBe(400);
    const missing = await chat(wren, { text: 'hi' });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ error: { code: 'bad_request' } });
    const huge = await chat(wren, { message: 'x'.repeat(1_000_001) });
    expect(huge.status).toBe(413);
    expect(llm.requests).toHaveLength(0);
  });

  it('fails over to the next endpoint on 429 and skips the cooling one until Retry-After passes', async () => {
    const wren = await start(makeHome(twoModels));
    llm.script({ status: 429, retryAfter: '120', match: { model: 'model-a' } });
    llm.setHandler((request) => ({ text: `answered by ${request.model}` }));
    const first = await chat(wren, { message: 'one' });
    expect(await first.json()).toMatchObject({ reply: 'answered by model-b' });
    const second = await chat(wren, { message: 'two' });
    expect(await second.json()).toMatchObject({ reply: 'answered by model-b' });
    expect(llm.requests.map((request) => request.model)).toEqual(['model-a', 'model-b', 'model-b']);
  });

  it('keeps concurrent sessions apart, each with its own history', async () => {
    const wren = await start(makeHome(twoModels));
    llm.setHandler((request) => ({ text: `echo ${request.lastUserText.split('\n').at(-1)}`, delayMs: 150 }));
    const colors = ['red', 'green', 'blue'];
    const firsts = await Promise.all(
      colors.map(
        async (color) =>
          (await (await chat(wren, { message: `${color} one` })).json()) as { session: string },
      ),
    );
    llm.requests.length = 0;
    const seconds = await Promise.all(
      colors.map(
        async (color, index) =>
          (await (await chat(wren, { message: `${color} two`, session: firsts[index]!.session })).json()) as {
            reply: string;
          },
      ),
    );
    expect(seconds.map((reply) => reply.reply)).toEqual(['echo red two', 'echo green two', 'echo blue two']);
    expect(llm.requests).toHaveLength(3);
    for (const request of llm.requests) {
      const color = request.lastUserText.split('\n').at(-1)!.split(' ')[0]!;
      const sent = JSON.stringify(request.body.messages);
      expect(sent).toContain(`${color} one`);
      for (const other of colors.filter((candidate) => candidate !== color))
        expect(sent).not.toContain(`${other} one`);
    }
  });

  it('cancels the turn when an SSE client disconnects', async () => {
    const wren = await start(makeHome(twoModels));
    llm.script({ chunks: Array.from({ length: 20 }, (_, i) => `word${i} `), chunkDelayMs: 400 });
    const inFlight = async () =>
      (
        (await (
          await fetch(`${wren.url}/api/status`, { headers: { authorization: `Bearer ${TOKEN}` } })
        ).json()) as {
          turnsInFlight: number;
        }
      ).turnsInFlight;
    const response = await chat(wren, { message: 'talk slowly' }, { accept: 'text/event-stream' });
    const reader = response.body!.getReader();
    await reader.read();
    // The turn is seen running first (20 words at 400 ms: 8 s), so the 0 below is the cancel's doing.
    await waitFor(() => llm.requests.length === 1, 4000);
    expect(await inFlight()).toBe(1);
    await reader.cancel();
    await waitFor(async () => (await inFlight()) === 0, 4000);
  });

  it('applies config edits live and keeps the last good config on an invalid edit', async () => {
    const home = makeHome(twoModels);
    const wren = await start(home);
    await chat(wren, { message: 'before' });
    expect(llm.lastRequest?.model).toBe('model-a');
    const path = join(home, 'config.yaml');
    writeFileSync(path, readFileSync(path, 'utf8').replace('model: model-a', 'model: model-c'));
    await waitFor(async () => {
      await chat(wren, { message: 'probe' });
      return llm.lastRequest?.model === 'model-c';
    });
    writeFileSync(path, `${readFileSync(path, 'utf8')}\nbogus_section: 1\n`);
    // The rejection, logged and printed where the gateway runs, proves the edit was read; then the old one holds.
    await waitFor(() => readFileSync(join(home, 'logs', 'wren.log'), 'utf8').includes('bogus_section'));
    await waitFor(() => wren.stderr().includes('config edit rejected'));
    const after = await chat(wren, { message: 'after' });
    expect(after.status).toBe(200);
    expect(llm.lastRequest?.model).toBe('model-c');
    // Shown by `wren status` with the gateway's state.
    expect(wren.stderr()).toMatch(/bogus_section: unknown key/);
    const broken = await runCli(['status'], env(home));
    expect(broken.code).toBe(2);
    expect(broken.stdout).toMatch(/gateway {3}running at http/);
    expect(broken.stdout).toMatch(/config {4}INVALID.*bogus_section/);
    // Reverted to the config in force: valid again, nothing left to report.
    writeFileSync(path, readFileSync(path, 'utf8').replace('\nbogus_section: 1\n', '\n'));
    await waitFor(async () => {
      const fixed = await runCli(['status'], env(home));
      return fixed.code === 0 && !fixed.stdout.includes('REJECTED');
    });
  });

  it('refuses a second start on the same home', async () => {
    const home = makeHome(twoModels);
    await start(home);
    const second = await runCli(['start', '--port', '0'], env(home));
    expect(second.code).toBe(2);
    expect(second.stderr).toMatch(/is in use by Wren process \d+/);
  });

  it('refuses a configured token that is too short or could never authenticate', async () => {
    const home = makeHome(twoModels);
    const short = await runCli(['start', '--port', '0'], env(home, { WREN_GATEWAY_TOKEN: 'abc' }));
    expect(short.code).toBe(2);
    expect(short.stderr).toMatch(/shorter than 16 characters/);
    const odd = await runCli(
      ['start', '--port', '0'],
      env(home, { WREN_GATEWAY_TOKEN: 'has spaces in it, and commas!' }),
    );
    expect(odd.code).toBe(2);
    expect(odd.stderr).toMatch(/characters a bearer token cannot carry/);
  });

  it('refuses a non-loopback address without a configured token', async () => {
    const home = makeHome(twoModels);
    const result = await runCli(
      ['start', '--host', '0.0.0.0', '--port', '0'],
      cliEnv(home, { FAKE_BASE: llm.baseUrls.openai, FAKE_ANTHROPIC: llm.baseUrls.anthropic }),
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/refusing to listen on 0\.0\.0\.0/);
  });

  it('generates a token once, shows it once, and accepts it after a restart', async () => {
    const home = makeHome(twoModels);
    const noToken = { WREN_GATEWAY_TOKEN: '' };
    const first = await start(home, noToken);
    const token = first.stdout().match(/gateway token[^:]*: (wren_\S+)/)?.[1];
    expect(token).toBeDefined();
    await first.stop();
    running.length = 0;
    const second = await start(home, noToken);
    expect(second.stdout()).not.toMatch(/wren_/);
    const ok = await fetch(`${second.url}/api/status`, { headers: { authorization: `Bearer ${token}` } });
    expect(ok.status).toBe(200);
    expect(readFileSync(join(home, 'wren.db')).includes(Buffer.from(token!))).toBe(false);
  });

  it('drains an in-flight turn on SIGTERM, then exits 0', async () => {
    const wren = await start(makeHome(twoModels));
    llm.script({ text: 'slow answer', delayMs: 1500 });
    const pending = chat(wren, { message: 'take your time' });
    await waitFor(() => llm.requests.length === 1);
    wren.child.kill('SIGTERM');
    const response = await pending;
    expect(await response.json()).toMatchObject({ reply: 'slow answer' });
    expect(await wren.exited).toBe(0);
  });
});

describe('crash safety', () => {
  it('survives kill -9 mid-turn: the lock is taken over, the database is consistent, what ran is in the history', async () => {
    const home = makeHome(twoModels);
    const first = await start(home);
    llm.script({ text: 'kept', usage: { input: 10, output: 2 } });
    const kept = (await (await chat(first, { message: 'a finished turn' })).json()) as { session: string };
    llm.script(
      { toolCalls: [{ name: 'write_file', arguments: { path: 'did-run.txt', content: 'written' } }] },
      { hang: true },
    );
    const pending = chat(first, { message: 'a turn that never finishes', session: kept.session }).catch(
      () => undefined,
    );
    await waitFor(() => llm.requests.length === 3);
    first.child.kill('SIGKILL');
    await first.exited;
    await pending;
    running.length = 0;

    const second = await start(home);
    const auth = { authorization: `Bearer ${TOKEN}` };
    const stored = (await (
      await fetch(`${second.url}/api/sessions/${kept.session}/messages`, { headers: auth })
    ).json()) as {
      messages: Array<{ seq: number; message: { role: string; content: string } }>;
    };
    // The killed turn's question, the model's call and the call's result were stored as they happened.
    expect(stored.messages.map((item) => [item.seq, item.message.role])).toEqual([
      [1, 'user'],
      [2, 'assistant'],
      [3, 'user'],
      [4, 'assistant'],
      [5, 'tool'],
    ]);
    expect(readFileSync(join(home, 'workspace', 'did-run.txt'), 'utf8')).toBe('written');
    llm.script({ text: 'back again' });
    expect(
      await (await chat(second, { message: 'still there?', session: kept.session })).json(),
    ).toMatchObject({
      reply: 'back again',
    });
    // The next request shows the model what already ran.
    const history = JSON.stringify(llm.lastRequest?.body.messages);
    expect(history).toContain('did-run.txt');
    expect(history).toContain('a turn that never finishes');
    const doctor = await runCli(['doctor', '--json'], env(home));
    const checks = (JSON.parse(doctor.stdout) as { checks: Array<{ id: string; status: string }> }).checks;
    expect(checks.find((check) => check.id === 'database.ok')?.status).toBe('ok');
  });
});
