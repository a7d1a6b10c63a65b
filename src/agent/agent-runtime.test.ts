import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { until } from '../../test/support/gated-runtime.js';
import { ScriptedModel } from '../../test/support/scripted-model.js';
import { MessageBus } from '../bus/message-bus.js';
import type { AgentEvent, InboundMessage, OutboundMessage } from '../bus/messages.js';
import { estimateRequestTokens } from '../llm/token-estimate.js';
import { AgentRuntime, type AgentSettings } from './agent-runtime.js';
import { ContextBuilder } from './context-builder.js';
import { MemorySessionStore } from './memory-session-store.js';
import { ToolRegistry } from './tool-registry.js';
import { ensureWorkspaceFiles } from './workspace-files.js';

const settings: AgentSettings = {
  maxRounds: 5,
  maxConcurrency: 4,
  maxToolResultChars: 1000,
  repeatLimit: 3,
  historyReserveTokens: 100,
};

function setup(model = new ScriptedModel(), overrides: Partial<AgentSettings> = {}) {
  const workspace = mkdtempSync(join(tmpdir(), 'wren-runtime-'));
  ensureWorkspaceFiles(workspace);
  const bus = new MessageBus();
  const store = new MemorySessionStore();
  const registry = new ToolRegistry();
  const runtime = new AgentRuntime({
    bus,
    store,
    model,
    registry,
    context: new ContextBuilder({ workspace, timezone: 'UTC', now: () => new Date('2026-11-30T10:00:00Z') }),
    workspace: () => workspace,
    settings: () => ({ ...settings, ...overrides }),
  });
  runtime.start();
  let n = 0;
  const send = (text: string, chatId = 'chat', extra: Partial<InboundMessage> = {}) =>
    bus.request({ id: `m${++n}`, channel: 'test', senderId: 'owner', chatId, text, ...extra });
  return { bus, store, runtime, model, send, registry };
}

/** Lets every pending promise continuation run (the in-memory store does no I/O): no timed sleep. */
const drained = () => new Promise((resolve) => setImmediate(resolve));

/** Waits until `count` sessions exist (a later message was routed to its own), then lets its queuing finish. */
async function routed(store: MemorySessionStore, count: number): Promise<void> {
  const deadline = Date.now() + 5000;
  while ((await store.listSessions(100)).length < count) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${count} sessions`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  await drained();
}

const lastUserText = (model: ScriptedModel, index: number) => {
  const user = model.requests[index]!.messages.filter((message) => message.role === 'user').at(-1);
  return typeof user?.content === 'string' ? user.content : '';
};

describe('AgentRuntime', () => {
  it('answers, stores the turn and keeps history in the session', async () => {
    const { send, model, store } = setup();
    model.script({ text: 'hello' }, { text: 'again' });
    const first = await send('hi');
    expect(first).toMatchObject({ kind: 'reply', text: 'hello', replyTo: 'm1' });
    const second = await send('second');
    expect(second.sessionId).toBe(first.sessionId);
    expect(model.requests[1]!.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    const stored = await store.recentMessages(first.sessionId, 1e9);
    expect(stored.map((item) => item.message.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(stored[0]!.message).toEqual({ role: 'user', content: 'hi' });
  });

  it('puts the time and channel in front of the newest user message only, keeping the system prompt stable', async () => {
    const { send, model } = setup();
    await send('one');
    await send('two');
    expect(lastUserText(model, 1)).toBe('[now: Mon 2026-11-30 10:00 UTC · via test]\ntwo');
    expect(model.requests[1]!.messages[0]).toEqual({ role: 'user', content: 'one' });
    expect(model.requests[0]!.system).toEqual(model.requests[1]!.system);
    expect(model.requests[0]!.system[0]!.text).toMatch(/You are Wren/);
  });

  it('queues a second message to a busy session behind the first', async () => {
    const { send, model } = setup();
    let release!: () => void;
    model.gate = new Promise((resolve) => {
      release = resolve;
    });
    model.script({ text: 'first' }, { text: 'second' });
    const a = send('a');
    const b = send('b');
    await until(() => model.requests.length === 1, 'the first turn at the model');
    await drained();
    expect(model.requests).toHaveLength(1);
    release();
    expect((await a).text).toBe('first');
    expect((await b).text).toBe('second');
    expect(lastUserText(model, 1)).toMatch(/\nb$/);
    expect(model.requests[1]!.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
  });

  it('runs different sessions concurrently and never mixes their histories', async () => {
    const { send, model } = setup();
    const echoLast = (request: { messages: Array<{ content: unknown }> }) => ({
      text: `echo ${String(request.messages.at(-1)?.content).split('\n').at(-1)}`,
    });
    model.script(echoLast, echoLast, echoLast);
    let release!: () => void;
    model.gate = new Promise((resolve) => {
      release = resolve;
    });
    const pending = [send('from x', 'x'), send('from y', 'y')];
    await until(() => model.requests.length === 2, 'both sessions at the model at once');
    expect(model.requests).toHaveLength(2);
    release();
    const [x, y] = await Promise.all(pending);
    expect(x!.text).toBe('echo from x');
    expect(y!.text).toBe('echo from y');
    expect(x!.sessionId).not.toBe(y!.sessionId);
    model.gate = undefined;
    const later = await send('x again', 'x');
    expect(later.sessionId).toBe(x!.sessionId);
    const history = JSON.stringify(model.requests.at(-1)!.messages);
    expect(history).toMatch(/from x/);
    expect(history).not.toMatch(/from y/);
  });

  it('caps concurrency across sessions', async () => {
    const { send, model, store } = setup(new ScriptedModel(), { maxConcurrency: 1 });
    let release!: () => void;
    model.gate = new Promise((resolve) => {
      release = resolve;
    });
    const a = send('a', 'one');
    const b = send('b', 'two');
    await until(() => model.requests.length === 1, 'one turn at the model');
    // The second session exists, so its turn has been routed and waits for the one slot.
    await routed(store, 2);
    expect(model.requests).toHaveLength(1);
    release();
    await Promise.all([a, b]);
    expect(model.requests).toHaveLength(2);
  });

  it('/stop cancels the running turn through its signal', async () => {
    const { send, model } = setup();
    model.gate = new Promise(() => {});
    const running = send('long task');
    await until(() => model.requests.length === 1, 'the turn at the model');
    const stopped = await send('/stop');
    expect(stopped).toMatchObject({ kind: 'notice', text: 'Stopping the running reply.' });
    expect(await running).toMatchObject({ kind: 'notice', text: 'Stopped.', stopReason: 'aborted' });
    expect(await send('/stop')).toMatchObject({ text: 'Nothing is running.' });
  });

  it('/new starts a fresh session with empty history', async () => {
    const { send, model } = setup();
    const first = await send('remember x');
    const fresh = await send('/new');
    expect(fresh.kind).toBe('notice');
    expect(fresh.sessionId).not.toBe(first.sessionId);
    const next = await send('hello');
    expect(next.sessionId).toBe(fresh.sessionId);
    expect(model.requests.at(-1)!.messages).toHaveLength(1);
  });

  it('reports a model failure as an error message; the question stays stored, with no answer', async () => {
    const { send, model, store } = setup();
    model.script({ stopReason: 'error' });
    const reply = await send('hi');
    expect(reply).toMatchObject({ kind: 'error', text: 'scripted failure' });
    const stored = await store.recentMessages(reply.sessionId, 1e9);
    expect(stored.map((item) => item.message)).toEqual([{ role: 'user', content: 'hi' }]);
  });

  it('stores each message as it happens: a turn that never ends leaves what already ran in the history', async () => {
    const { send, model, store, registry } = setup();
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    registry.register({
      name: 'fast',
      description: 'fast',
      parameters: { type: 'object', additionalProperties: true },
      risk: 'safe',
      execute: async () => ({ content: 'fast done' }),
    });
    registry.register({
      name: 'hang',
      description: 'hang',
      parameters: { type: 'object', additionalProperties: true },
      risk: 'safe',
      execute: async () => {
        await held;
        return { content: 'late' };
      },
    });
    model.script(
      {
        toolCalls: [
          { name: 'fast', arguments: {}, id: 'f1' },
          { name: 'hang', arguments: {}, id: 'h1' },
        ],
      },
      { text: 'all done' },
    );
    const reply = send('do both');
    // While the turn hangs on one call (as if the process were killed now), the store already shows the
    // question, the model's calls and the result of the call that finished.
    let stored: Awaited<ReturnType<typeof store.recentMessages>> = [];
    for (let tries = 0; tries < 500 && stored.length < 3; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      stored = await store.recentMessages((await store.listSessions(1))[0]?.id ?? '', 1e9);
    }
    expect(stored.map((item) => item.message.role)).toEqual(['user', 'assistant', 'tool']);
    expect(stored[2]!.message).toMatchObject({ toolCallId: 'f1', content: 'fast done' });
    release();
    expect((await reply).text).toBe('all done');
  });

  it('answers the next turn after an interrupted one: calls without a result are marked, nothing is lost', async () => {
    const { send, model, store } = setup();
    model.script({ text: 'first' });
    const first = await send('hello');
    // What a kill -9 in the middle of the next turn leaves: the question, the calls, one of two results.
    await store.appendMessages(first.sessionId, [
      { message: { role: 'user', content: 'write two files' }, tokens: 5 },
      {
        message: {
          role: 'assistant',
          content: '',
          toolCalls: [
            { id: 'w1', name: 'write_file', arguments: '{"path":"a"}' },
            { id: 'w2', name: 'write_file', arguments: '{"path":"b"}' },
          ],
        },
        tokens: 20,
      },
      {
        message: { role: 'tool', toolCallId: 'w1', toolName: 'write_file', content: 'Created a' },
        tokens: 5,
      },
    ]);
    model.script({ text: 'a was written; b may not have been' });
    await send('did it work?');
    const messages = model.requests.at(-1)!.messages;
    const results = messages.filter((message) => message.role === 'tool');
    expect(results.map((message) => message.role === 'tool' && message.toolCallId)).toEqual(['w1', 'w2']);
    expect(results[1]).toMatchObject({
      isError: true,
      content: expect.stringMatching(/may or may not have/),
    });
  });

  it('a turn marked withoutHistory sees none of its session’s earlier messages', async () => {
    const { send, model } = setup();
    model.script({ text: 'one' }, { text: 'two' });
    const first = await send('remember pears', 'hb', { sessionId: 'hb-1' });
    await send('check the list', 'hb', { sessionId: first.sessionId, withoutHistory: true });
    const messages = model.requests[1]!.messages;
    expect(messages).toHaveLength(1);
    expect(JSON.stringify(messages)).not.toContain('pears');
  });

  it('emits progress events for the turn', async () => {
    const { bus, model } = setup();
    model.script({ text: 'streamed text' });
    const events: AgentEvent[] = [];
    const reply: OutboundMessage = await bus.request(
      { id: 'e1', channel: 'test', senderId: 'o', chatId: 'c', text: 'go' },
      (event) => events.push(event),
    );
    expect(reply.text).toBe('streamed text');
    expect(events[0]!.type).toBe('turn-start');
    expect(events.at(-1)!.type).toBe('turn-end');
    const text = events.flatMap((event) => (event.type === 'text-delta' ? [event.text] : [])).join('');
    expect(text).toBe('streamed text');
  });

  it('keeps the request inside the context window however long the history', async () => {
    const model = new ScriptedModel({ contextWindow: 4000, maxOutputTokens: 500 });
    const { send, store } = setup(model);
    const first = await send('start');
    const filler = Array.from({ length: 400 }, (_, i) => ({
      message: { role: 'user' as const, content: `message ${i} ${'word '.repeat(50)}` },
      tokens: 60,
    }));
    await store.appendMessages(first.sessionId, filler);
    await send('latest', 'chat', { sessionId: first.sessionId });
    const request = model.requests.at(-1)!;
    expect(request.messages.length).toBeGreaterThan(5);
    expect(request.messages.length).toBeLessThan(100);
    expect(estimateRequestTokens(request)).toBeLessThanOrEqual(4000 - 500);
    expect(lastUserText(model, model.requests.length - 1)).toMatch(/latest$/);
  });

  it('shortens a message far larger than the window instead of sending it', async () => {
    const model = new ScriptedModel({ contextWindow: 4000, maxOutputTokens: 500 });
    const { send } = setup(model);
    await send(`HEAD ${'lorem ipsum '.repeat(200_000)} TAIL`);
    const text = lastUserText(model, 0);
    expect(text.length).toBeLessThan(12_000);
    expect(text).toMatch(/too long for the model's context window/);
  });

  it('serialises a session reached by id and by its routing key', async () => {
    const { send, model } = setup();
    const first = await send('hello');
    let release!: () => void;
    model.gate = new Promise((resolve) => {
      release = resolve;
    });
    const byKey = send('by key');
    const byId = send('by id', 'other-chat', { sessionId: first.sessionId });
    await until(() => model.requests.length === 2, 'the first queued turn at the model');
    await drained();
    expect(model.requests).toHaveLength(2);
    release();
    await Promise.all([byKey, byId]);
    expect(model.requests).toHaveLength(3);
    expect(JSON.stringify(model.requests[2]!.messages)).toContain('by key');
  });

  it('/stop cancels a turn still waiting for a concurrency slot', async () => {
    const { send, model, store } = setup(new ScriptedModel(), { maxConcurrency: 1 });
    model.gate = new Promise(() => {});
    const busy = send('occupies the only slot', 'one');
    const waiting = send('waits for a slot', 'two');
    await until(() => model.requests.length === 1, 'the busy turn at the model');
    await routed(store, 2);
    expect(await send('/stop', 'two')).toMatchObject({ text: 'Stopping the running reply.' });
    expect(await waiting).toMatchObject({ kind: 'notice', text: 'Stopped.' });
    expect(model.requests).toHaveLength(1);
    await send('/stop', 'one');
    await busy;
  });

  it('cancels a turn whose requester went away', async () => {
    const { bus, model } = setup();
    model.gate = new Promise(() => {});
    const controller = new AbortController();
    const request = bus.request(
      { id: 'gone', channel: 'test', senderId: 'o', chatId: 'c', text: 'hi' },
      undefined,
      controller.signal,
    );
    await until(() => model.requests.length === 1, 'the turn at the model');
    const ended = new Promise((resolve) =>
      bus.subscribeEvents((event) => event.type === 'turn-end' && resolve(event)),
    );
    controller.abort();
    await expect(request).rejects.toHaveProperty('name', 'AbortError');
    expect(await ended).toMatchObject({ stopReason: 'aborted' });
  });

  it('shutdown is bounded: queued turns are refused, a hung turn is cancelled after the grace period', async () => {
    const { send, model, runtime } = setup();
    model.gate = new Promise(() => {});
    const running = send('hangs');
    const queued = send('queued behind it');
    await until(() => model.requests.length === 1, 'the running turn at the model');
    await runtime.stop(50);
    expect(await running).toMatchObject({ kind: 'notice', text: 'Stopped.' });
    expect(await queued).toMatchObject({ kind: 'error', text: /shutting down/ });
  });

  it('/new on a pinned session answers with the new session id', async () => {
    const { send } = setup();
    const pinned = await send('hi', 'chat', { sessionId: 'pinned-1' });
    expect(pinned.sessionId).toBe('pinned-1');
    const fresh = await send('/new', 'chat', { sessionId: 'pinned-1' });
    expect(fresh.sessionId).not.toBe('pinned-1');
    expect(fresh.text).toContain(fresh.sessionId);
  });
});

describe('AgentRuntime commands', () => {
  it('runs plugged-in commands in turn order, lists them in /help, and calls beforeNewSession', async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'wren-cmd-'));
    const bus = new MessageBus();
    const model = new ScriptedModel();
    const seen: string[] = [];
    const runtime = new AgentRuntime({
      bus,
      store: new MemorySessionStore(),
      model,
      registry: new ToolRegistry(),
      context: new ContextBuilder({ workspace }),
      workspace: () => workspace,
      settings: () => settings,
      commands: {
        memory: {
          description: 'show what Wren remembers',
          run: async (args, { session }) => `memory of ${session.id} ${args}`,
        },
      },
      beforeNewSession: async (old) => {
        seen.push(old.id);
      },
    });
    runtime.start();
    const send = (id: string, text: string) =>
      bus.request({ id, channel: 't', senderId: 'o', fromOwner: true, chatId: 'c', text });
    const first = await send('1', 'hello');
    expect((await send('2', '/memory  cats ')).text).toBe(`memory of ${first.sessionId} cats`);
    expect((await send('3', '/help')).text).toMatch(/\/memory\s+show what Wren remembers/);
    // An unknown command is answered at once and never reaches the model; a path is not a command.
    expect(await send('4', '/unknown thing')).toMatchObject({
      kind: 'notice',
      text: 'Unknown command /unknown; /help lists the commands.',
    });
    expect((await send('4b', '/usr/bin/env is what?')).kind).toBe('reply');
    await send('5', '/new');
    expect(seen).toEqual([first.sessionId]);
    expect(model.requests).toHaveLength(2);
    const cliHelp = await bus.request({
      id: '5b',
      channel: 'cli',
      senderId: 'o',
      fromOwner: true,
      chatId: 'c',
      text: '/help',
    });
    expect(cliHelp.text).toMatch(/\/exit\s+leave the chat/);
    const stranger = await bus.request({
      id: '6',
      channel: 't',
      senderId: 'x',
      chatId: 'c',
      text: '/memory',
    });
    expect(stranger.text).toBe('That command is only available to the owner.');
    const strangerHelp = await bus.request({
      id: '7',
      channel: 't',
      senderId: 'x',
      chatId: 'c',
      text: '/help',
    });
    expect(strangerHelp.text).not.toMatch(/\/memory/);
  });
});
