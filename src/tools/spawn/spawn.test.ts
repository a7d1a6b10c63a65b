import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ScriptedModel } from '../../../test/support/scripted-model.js';
import { AgentRuntime } from '../../agent/agent-runtime.js';
import { ContextBuilder } from '../../agent/context-builder.js';
import { MemorySessionStore } from '../../agent/memory-session-store.js';
import type { Tool } from '../../agent/tool.js';
import { ToolRegistry } from '../../agent/tool-registry.js';
import { MessageBus } from '../../bus/message-bus.js';
import type { OutboundMessage } from '../../bus/messages.js';
import type { ModelRequest } from '../../llm/types.js';
import { createSpawnTool, createSubagentsCommand } from './spawn-tool.js';
import { type SubagentLimits, SubagentManager } from './subagent-manager.js';

const count: Tool = {
  name: 'count_files',
  description: 'Count files',
  parameters: { type: 'object', properties: {}, additionalProperties: false },
  risk: 'safe',
  async execute() {
    return { content: '3 files' };
  },
};
const secret: Tool = { ...count, name: 'secret_tool', description: 'Not for subagents' };

const isSubagent = (request: ModelRequest) => request.system[0]!.text.startsWith('You are a Wren subagent');

const limits = (overrides: Partial<SubagentLimits> = {}): (() => SubagentLimits) => {
  const value: SubagentLimits = {
    maxDepth: 1,
    perSession: 3,
    perSessionHourly: 20,
    maxQueued: 10,
    maxConcurrent: 2,
    maxRounds: 4,
    ...overrides,
  };
  return () => value;
};

function setup(overrides: Partial<SubagentLimits> = {}) {
  const workspace = mkdtempSync(join(tmpdir(), 'wren-spawn-'));
  const bus = new MessageBus();
  const store = new MemorySessionStore();
  const model = new ScriptedModel();
  const registry = new ToolRegistry().register(count).register(secret);
  const manager = new SubagentManager({
    model,
    registry,
    store,
    bus,
    defaultTools: ['count_files'],
    limits: limits(overrides),
  });
  registry.register(createSpawnTool(manager));
  new AgentRuntime({
    bus,
    store,
    model,
    registry,
    context: new ContextBuilder({ workspace }),
    workspace: () => workspace,
    settings: () => ({
      maxRounds: 5,
      maxConcurrency: 4,
      maxToolResultChars: 2000,
      repeatLimit: 3,
      historyReserveTokens: 50,
    }),
    commands: { subagents: createSubagentsCommand(manager) },
  }).start();
  const outbound: OutboundMessage[] = [];
  bus.subscribeOutbound((message) => {
    outbound.push(message);
  });
  const send = (id: string, text: string) =>
    bus.request({ id, channel: 'test', senderId: 'owner', fromOwner: true, chatId: 'c', text });
  return { bus, store, model, manager, outbound, send };
}

async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('spawn', () => {
  it('runs the task in the background with restricted tools and reports back to the parent session', async () => {
    const { model, send, outbound } = setup();
    let subagentTools: string[] = [];
    let stage = 0;
    model.script(
      ...Array.from({ length: 6 }, () => (request: ModelRequest) => {
        if (isSubagent(request)) {
          subagentTools = request.tools!.map((tool) => tool.name);
          const called = request.messages.some((message) => message.role === 'tool');
          return called
            ? { text: 'The folder has 3 files.' }
            : { toolCalls: [{ name: 'count_files', arguments: {} }] };
        }
        stage++;
        if (stage === 1) return { toolCalls: [{ name: 'spawn', arguments: { task: 'count the files' } }] };
        if (stage === 2) return { text: 'A subagent is on it.' };
        return {
          text: `Report received: ${String(request.messages.at(-1)?.content).includes('3 files') ? '3 files' : '?'}`,
        };
      }),
    );
    const first = await send('m1', 'how many files?');
    expect(first.text).toBe('A subagent is on it.');
    await until(() => outbound.some((message) => message.text === 'Report received: 3 files'));
    const report = outbound.find((message) => message.text === 'Report received: 3 files')!;
    expect(report.sessionId).toBe(first.sessionId);
    expect(subagentTools).toEqual(['count_files']);
  });

  it('never gives a subagent spawn or tools outside the allowed set', async () => {
    const { manager } = setup();
    const info = manager.spawn('x', ctx(), ['spawn', 'secret_tool', 'nope', 'count_files']);
    expect(info.tools).toEqual(['count_files']);
    manager.cancelAll();
  });

  it('bounds concurrency, lists and cancels; a cancelled subagent reports nothing', async () => {
    const model = new ScriptedModel();
    model.gate = new Promise(() => {});
    const bus = new MessageBus();
    const inbound: string[] = [];
    bus.consumeInbound((message) => inbound.push(message.text));
    const registry = new ToolRegistry().register(count);
    const store = new MemorySessionStore();
    const manager = new SubagentManager({
      model,
      registry,
      store,
      bus,
      defaultTools: ['count_files'],
      limits: limits({ maxConcurrent: 1, maxRounds: 2 }),
    });
    const a = manager.spawn('first', ctx());
    const b = manager.spawn('second', ctx());
    await until(() => manager.list().some((info) => info.state === 'running'));
    expect(manager.list().map((info) => [info.id, info.state])).toEqual([
      [a.id, 'running'],
      [b.id, 'queued'],
    ]);
    expect(manager.cancel(b.id)).toBe(true);
    expect(manager.cancel(a.id)).toBe(true);
    expect(manager.cancel('nope')).toBe(false);
    await until(() => manager.list().every((info) => info.state === 'cancelled'));
    expect(inbound).toEqual([]);
  });

  it('/subagents lists them', async () => {
    const { send, manager, model } = setup();
    model.gate = new Promise(() => {});
    manager.spawn('look around', ctx());
    model.gate = undefined;
    expect((await send('c1', '/subagents')).text).toMatch(/look around/);
    manager.cancelAll();
  });
});

describe('spawn limits', () => {
  it('a report cannot spawn again: a model that always spawns makes one subagent, not thousands', async () => {
    const { model, send, manager, outbound } = setup();
    let mainCalls = 0;
    // A runaway model: every main-agent request spawns again; every subagent answers at once.
    model.script(
      ...Array.from({ length: 40 }, () => (request: ModelRequest) => {
        if (isSubagent(request)) return { text: 'sub report' };
        mainCalls++;
        const last = request.messages.at(-1)!;
        return last.role === 'tool'
          ? { text: `main saw: ${String(last.content).slice(0, 200)}` }
          : { toolCalls: [{ name: 'spawn', arguments: { task: 'again' } }] };
      }),
    );
    await send('m1', 'go');
    await until(() => outbound.some((message) => message.text.includes('may not lead to more than 1')));
    await until(() => manager.list().every((info) => info.state === 'done'));
    expect(manager.list()).toHaveLength(1);
    expect(manager.list()[0]!.depth).toBe(1);
    // The owner's turn (spawn + reply) and the report's turn (refused spawn + reply): four main calls.
    expect(mainCalls).toBe(4);
  });

  it('refuses past the per-session, hourly and global limits with a reason the model can act on', async () => {
    let now = 0;
    const model = new ScriptedModel();
    model.gate = new Promise(() => {});
    const bus = new MessageBus();
    bus.consumeInbound(() => {});
    const manager = new SubagentManager({
      model,
      registry: new ToolRegistry().register(count),
      store: new MemorySessionStore(),
      bus,
      defaultTools: ['count_files'],
      limits: limits({ perSession: 2, maxQueued: 3, perSessionHourly: 3, maxConcurrent: 1 }),
      clock: () => now,
    });
    const cancelled = async () => {
      manager.cancelAll();
      await until(() => manager.list().every((info) => info.state === 'cancelled'));
    };
    manager.spawn('a', ctx());
    manager.spawn('b', ctx());
    expect(() => manager.spawn('c', ctx())).toThrow(/agent\.subagents\.per_session is 2/);
    manager.spawn('d', { ...ctx(), sessionId: 'other' });
    expect(() => manager.spawn('e', { ...ctx(), sessionId: 'third' })).toThrow(/max_queued is 3/);
    await cancelled();
    // Two started in this hour, so one more is allowed, then the hourly quota holds …
    manager.spawn('f', ctx());
    await cancelled();
    expect(() => manager.spawn('g', ctx())).toThrow(/per_session_hourly is 3/);
    now += 3_600_001; // … until the hour has passed.
    manager.spawn('h', ctx());
    await cancelled();
  });

  it('max_depth 0 turns spawning off', () => {
    const { manager } = setup({ maxDepth: 0 });
    expect(() => manager.spawn('x', ctx())).toThrow(/turned off/);
  });
});

describe('spawn and the gate', () => {
  it('charges taint, redaction and usage to the parent session', async () => {
    const model = new ScriptedModel();
    model.script(
      (request) =>
        request.messages.some((message) => message.role === 'tool')
          ? { text: 'done' }
          : { toolCalls: [{ name: 'count_files', arguments: {} }] },
      () => ({ text: 'done' }),
    );
    const bus = new MessageBus();
    bus.consumeInbound(() => {});
    const seen: string[] = [];
    const usage: string[] = [];
    const manager = new SubagentManager({
      model,
      registry: new ToolRegistry().register(count),
      store: new MemorySessionStore(),
      bus,
      defaultTools: ['count_files'],
      limits: limits({ maxConcurrent: 1, maxRounds: 3 }),
      afterToolCall: (_tool, _args, _result, context) =>
        seen.push(`${context.sessionId}/${context.interactive}`),
      onUsage: (sessionId) => usage.push(sessionId),
    });
    manager.spawn('count', ctx());
    await until(() => manager.list()[0]?.state === 'done');
    expect(seen).toEqual(['parent/false']);
    expect(usage).toEqual(['parent']);
  });
});

function ctx() {
  return {
    sessionId: 'parent',
    channel: 'test',
    chatId: 'c',
    senderId: 'owner',
    isOwner: true,
    interactive: false,
    workspace: '/tmp',
  };
}
