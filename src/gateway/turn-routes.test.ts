import { afterEach, describe, expect, it } from 'vitest';
import { gatedGateway } from '../../test/support/gated-gateway.js';
import { gatedRuntime, recordingTool, until } from '../../test/support/gated-runtime.js';
import { ScriptedModel } from '../../test/support/scripted-model.js';
import type { ChatModel, ModelEvent } from '../llm/types.js';

const SECRET = 'pw-0123456789';
const closers: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

function setup(chatModel?: ChatModel) {
  const model = new ScriptedModel();
  const lookup = recordingTool('lookup', 'safe');
  const email = recordingTool('send_email', 'sensitive', {
    assess: (args) => ({ target: String(args['to']).split('@')[1]! }),
  });
  const runtime = gatedRuntime({ model: chatModel ?? model, tools: [lookup.tool, email.tool] });
  closers.push(runtime.close);
  const { call } = gatedGateway(runtime, { redact: (text) => text.replaceAll(SECRET, '[secret]') });
  const chat = (body: Record<string, unknown>) =>
    call('/api/chat', {
      method: 'POST',
      headers: { accept: 'text/event-stream' },
      body: JSON.stringify(body),
    });
  const turn = async (session: string) =>
    ((await (await call(`/api/sessions/${session}/turn`)).json()) as { turn: Record<string, unknown> | null })
      .turn;
  return { ...runtime, model, lookup, call, chat, turn };
}

/** Reads an SSE response until `enough` holds for what has arrived (or the stream ends). */
async function readUntil(response: Response, enough: (text: string) => boolean) {
  const reader = response.body!.getReader();
  let text = '';
  while (!enough(text)) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  return { text, reader };
}

/** Polls `GET /api/sessions/:id/turn` until the turn is in `state`. */
async function untilState(
  turn: (session: string) => Promise<Record<string, unknown> | null>,
  session: string,
  state: string,
): Promise<void> {
  const deadline = Date.now() + 5000;
  while ((await turn(session))?.['state'] !== state) {
    if (Date.now() > deadline) throw new Error(`turn of ${session} never became ${state}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A turn that says "Part one.", calls `lookup`, then is held by the model until `release()`. */
function heldTurn(model: ScriptedModel) {
  let release = () => {};
  const hold = new Promise<void>((resolve) => {
    release = resolve;
  });
  model.script({ text: 'Part one.', toolCalls: [{ name: 'lookup', arguments: { key: SECRET } }] }, () => {
    model.gate = hold;
    return { text: 'Part two.' };
  });
  return { release };
}

describe('turns that outlive their request', () => {
  it('keepRunning: a client that goes away does not cancel; the turn finishes and is readable', async () => {
    const { model, chat, turn, store } = setup();
    const { release } = heldTurn(model);
    const response = await chat({ message: 'go', session: 'keep1', keepRunning: true });
    const { reader } = await readUntil(response, (text) => text.includes('Part'));
    await reader.cancel();
    await until(() => model.requests.length === 2, 'the held second step');
    expect(await turn('keep1')).toMatchObject({ state: 'running', message: 'go' });
    release();
    await untilState(turn, 'keep1', 'done');
    expect(await turn('keep1')).toMatchObject({ result: { text: 'Part two.', kind: 'reply' } });
    const stored = await store.recentMessages('keep1', 100);
    expect(stored.at(-1)?.message).toMatchObject({ role: 'assistant', content: 'Part two.' });
  });

  it('keepRunning also holds for a JSON request whose client gives up; without it the turn is cancelled', async () => {
    const { model, call, turn } = setup();
    for (const keepRunning of [true, false]) {
      const { release } = heldTurn(model);
      const before = model.requests.length;
      const client = new AbortController();
      const session = `json-${keepRunning}`;
      const answered = Promise.resolve(
        call('/api/chat', {
          method: 'POST',
          body: JSON.stringify({ message: 'go', session, keepRunning }),
          signal: client.signal,
        }),
      ).catch(() => undefined);
      await until(() => model.requests.length === before + 2, 'the held second step');
      client.abort();
      if (keepRunning) {
        expect(await turn(session)).toMatchObject({ state: 'running' });
        release();
        await untilState(turn, session, 'done');
      } else {
        await untilState(turn, session, 'stopped');
        release();
      }
      await answered;
      model.gate = undefined;
    }
  });

  it('without keepRunning a client that goes away still cancels its turn', async () => {
    const { model, chat, turn, store } = setup();
    heldTurn(model);
    const response = await chat({ message: 'go', session: 'gone1' });
    const { reader } = await readUntil(response, (text) => text.includes('Part'));
    await until(() => model.requests.length === 2, 'the held second step');
    await reader.cancel();
    await untilState(turn, 'gone1', 'stopped');
    const stored = await store.recentMessages('gone1', 100);
    expect(
      stored.some((item) => item.message.role === 'assistant' && item.message.content === 'Part two.'),
    ).toBe(false);
  });

  it('re-attaches: the text and tool calls so far (redacted), then the rest live, ending with done', async () => {
    const { model, chat, call } = setup();
    const { release } = heldTurn(model);
    const first = await chat({ message: 'go', session: 'again1', keepRunning: true });
    await (await readUntil(first, (text) => text.includes('Part'))).reader.cancel();
    await until(() => model.requests.length === 2, 'the held second step');
    const attached = await call('/api/sessions/again1/turn', { headers: { accept: 'text/event-stream' } });
    expect(attached.headers.get('content-type')).toContain('text/event-stream');
    const { text: head, reader } = await readUntil(attached, (text) => text.includes('event: turn\n'));
    const snapshot = JSON.parse(/event: turn\ndata: (.*)\n/.exec(head)![1]!) as {
      state: string;
      segments: Array<Record<string, unknown>>;
    };
    expect(snapshot.state).toBe('running');
    expect(snapshot.segments).toMatchObject([
      { type: 'text', text: 'Part one.' },
      { type: 'tool', name: 'lookup', running: false, args: '{"key":"[secret]"}' },
    ]);
    expect(head).not.toContain(SECRET);
    release();
    let rest = head;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      rest += new TextDecoder().decode(value);
    }
    expect(rest).toContain('event: delta');
    expect(rest).toMatch(/event: done\ndata: .*"reply":"Part two\."/);
    expect(rest).toContain('"state":"done"');
    expect(rest).not.toContain(SECRET);
    // After the end, the same call gives the ended turn and its answer at once.
    const later = await call('/api/sessions/again1/turn', { headers: { accept: 'text/event-stream' } });
    expect(await later.text()).toMatch(/event: turn\n[\s\S]*"state":"done"[\s\S]*event: done/);
  });

  it('re-attaches mid-sentence: text streamed but not yet stored is in the snapshot, the rest follows', async () => {
    let release = () => {};
    const hold = new Promise<void>((resolve) => {
      release = resolve;
    });
    let streaming = false;
    // A model that stops in the middle of its answer until the test lets it go on.
    const midSentence: ChatModel = {
      limits: () => ({ contextWindow: 32_000, maxOutputTokens: 1_000 }),
      async *stream(): AsyncIterable<ModelEvent> {
        yield { type: 'text-delta', text: 'The first half ' };
        streaming = true;
        await hold;
        yield { type: 'text-delta', text: 'and the second half.' };
        const usage = { inputTokens: 1, outputTokens: 1 };
        yield {
          type: 'done',
          result: { text: 'The first half and the second half.', toolCalls: [], stopReason: 'stop', usage },
        };
      },
    };
    const { chat, call, store } = setup(midSentence);
    const first = await chat({ message: 'go', session: 'mid1', keepRunning: true });
    await (await readUntil(first, (text) => text.includes('first half'))).reader.cancel();
    await until(() => streaming, 'the model mid-answer');
    expect(await store.recentMessages('mid1', 100)).toHaveLength(1);
    const attached = await call('/api/sessions/mid1/turn', { headers: { accept: 'text/event-stream' } });
    const { text: head, reader } = await readUntil(attached, (text) => text.includes('event: turn\n'));
    expect(head).toContain('"segments":[{"type":"text","text":"The first half "}]');
    release();
    let rest = head;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      rest += new TextDecoder().decode(value);
    }
    expect(rest).toMatch(/event: delta\ndata: \{"text":"and the second half\."\}/);
    expect(rest).toContain('event: done');
  });

  it('shows the approval a turn waits for, and the turn goes on once it is answered', async () => {
    const { model, chat, turn, call } = setup();
    model.script(
      { toolCalls: [{ name: 'send_email', arguments: { to: 'ann@example.org' } }] },
      { text: 'Sent.' },
    );
    const response = await chat({ message: 'mail Ann', session: 'ask1', keepRunning: true });
    await (await readUntil(response, (text) => text.includes('event: approval\n'))).reader.cancel();
    const waiting = (await turn('ask1')) as { approvals: Array<{ id: string; tool: string }> };
    expect(waiting.approvals).toHaveLength(1);
    expect(waiting.approvals[0]).toMatchObject({ tool: 'send_email' });
    const answered = await call(`/api/approvals/${waiting.approvals[0]!.id}`, {
      method: 'POST',
      body: JSON.stringify({ answer: 'once' }),
    });
    expect(answered.status).toBe(200);
    await untilState(turn, 'ask1', 'done');
    expect(await turn('ask1')).toMatchObject({ approvals: [], result: { text: 'Sent.' } });
  });

  it('DELETE stops the running turn; nothing running is 404', async () => {
    const { model, chat, call, turn } = setup();
    heldTurn(model);
    const response = await chat({ message: 'go', session: 'stop1', keepRunning: true });
    const { reader } = await readUntil(response, (text) => text.includes('Part'));
    await until(() => model.requests.length === 2, 'the held second step');
    const stopped = await call('/api/sessions/stop1/turn', { method: 'DELETE' });
    expect(stopped.status).toBe(200);
    let rest = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      rest += new TextDecoder().decode(value);
    }
    expect(rest).toContain('event: done');
    expect(await turn('stop1')).toMatchObject({ state: 'stopped' });
    expect((await call('/api/sessions/stop1/turn', { method: 'DELETE' })).status).toBe(404);
    expect((await call('/api/sessions/never/turn', { method: 'DELETE' })).status).toBe(404);
  });

  it('refuses hostile input: unknown fields, a non-boolean keepRunning, bad session ids; no turn is null', async () => {
    const { call, turn } = setup();
    const post = (body: unknown) => call('/api/chat', { method: 'POST', body: JSON.stringify(body) });
    expect((await post({ message: 'x', keep_running: true })).status).toBe(400);
    expect((await post({ message: 'x', keepRunning: 'yes' })).status).toBe(400);
    for (const bad of ['..%2F..', '-x', 'a'.repeat(129), '%00']) {
      expect((await call(`/api/sessions/${bad}/turn`)).status).toBe(400);
    }
    expect(await turn('nothing-here')).toBeNull();
    const unauthenticated = await createGatewayless();
    expect(unauthenticated).toBe(401);
  });
});

/** The turn routes sit behind the token like the rest of the API. */
async function createGatewayless(): Promise<number> {
  const runtime = gatedRuntime({ model: new ScriptedModel() });
  closers.push(runtime.close);
  const { app } = gatedGateway(runtime);
  return (await app.request('/api/sessions/x/turn')).status;
}
