import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentRuntime } from '../../src/agent/agent-runtime.js';
import { ContextBuilder } from '../../src/agent/context-builder.js';
import { MemorySessionStore } from '../../src/agent/memory-session-store.js';
import type { Risk, Tool, ToolResult } from '../../src/agent/tool.js';
import { ToolRegistry } from '../../src/agent/tool-registry.js';
import { MessageBus } from '../../src/bus/message-bus.js';
import { createGate } from '../../src/gate/create-gate.js';
import { gateSectionSchema, toGateConfig } from '../../src/gate/gate-config.js';
import type { ChatModel } from '../../src/llm/types.js';
import { openStores } from '../../src/store/open-stores.js';
import { gateDatabase } from './gate-database.js';

export interface GatedRuntimeOptions {
  model: ChatModel;
  tools?: Tool[];
  /** The `gate:` section as written in config.yaml. */
  gate?: Record<string, unknown>;
}

/**
 * The runtime as app.ts will wire it, composed by hand: bus, in-memory sessions, a real SQLite file for the
 * gate, the gate's hooks on the runtime. `close()` stops everything.
 */
export function gatedRuntime(options: GatedRuntimeOptions) {
  const workspace = mkdtempSync(join(tmpdir(), 'wren-gated-'));
  const bus = new MessageBus();
  const db = gateDatabase();
  const config = toGateConfig(gateSectionSchema.parse(options.gate ?? {}));
  const gate = createGate({ config: () => config, stores: openStores(db), bus });
  const registry = new ToolRegistry();
  for (const tool of options.tools ?? []) registry.register(tool);
  const store = new MemorySessionStore();
  const runtime = new AgentRuntime({
    bus,
    store,
    model: options.model,
    registry,
    context: new ContextBuilder({ workspace }),
    workspace: () => workspace,
    settings: () => ({
      maxRounds: 5,
      maxConcurrency: 2,
      maxToolResultChars: 4000,
      repeatLimit: 3,
      historyReserveTokens: 10,
    }),
    beforeToolCall: gate.beforeToolCall,
    afterToolCall: gate.afterToolCall,
  });
  runtime.start();
  return {
    bus,
    db,
    gate,
    store,
    registry,
    runtime,
    workspace,
    async close() {
      gate.close();
      await runtime.stop(1000);
      db.close();
    },
  };
}

/** A tool for tests: records each call's arguments and answers `done` (or what `answer` returns). */
export function recordingTool(
  name: string,
  risk: Risk,
  extra: Partial<Tool> & {
    answer?: (args: Record<string, unknown>) => ToolResult | Promise<ToolResult>;
  } = {},
) {
  const calls: Array<Record<string, unknown>> = [];
  const { answer, ...rest } = extra;
  const tool: Tool = {
    name,
    description: `${name} (test tool)`,
    parameters: { type: 'object', additionalProperties: true },
    risk,
    core: true,
    async execute(args) {
      calls.push(structuredClone(args));
      return answer ? answer(args) : { content: 'done' };
    },
    ...rest,
  };
  return { tool, calls };
}

/** Polls until `check` holds (no fixed sleeps). */
export async function until(check: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
