import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentRuntime } from '../../src/agent/agent-runtime.js';
import { ContextBuilder } from '../../src/agent/context-builder.js';
import { MemorySessionStore } from '../../src/agent/memory-session-store.js';
import { ToolRegistry } from '../../src/agent/tool-registry.js';
import { MessageBus } from '../../src/bus/message-bus.js';
import type { ChatModel } from '../../src/llm/types.js';

/**
 * An agent runtime with no tools and no gate on a bus of its own, sessions in memory and a fresh workspace,
 * started: what a test of a face (the gateway, a remote bus) needs behind it.
 */
export function plainRuntime(model: ChatModel, prefix = 'wren-plain-') {
  const workspace = mkdtempSync(join(tmpdir(), prefix));
  const bus = new MessageBus();
  const store = new MemorySessionStore();
  const runtime = new AgentRuntime({
    bus,
    store,
    model,
    registry: new ToolRegistry(),
    context: new ContextBuilder({ workspace }),
    workspace: () => workspace,
    settings: () => ({
      maxRounds: 3,
      maxConcurrency: 2,
      maxToolResultChars: 1000,
      repeatLimit: 2,
      historyReserveTokens: 10,
    }),
  });
  runtime.start();
  return { workspace, bus, store, runtime };
}
