import { AgentRuntime, type AgentSettings } from '../agent/agent-runtime.js';
import { ContextBuilder } from '../agent/context-builder.js';
import type { ToolRegistry } from '../agent/tool-registry.js';
import type { MessageBus } from '../bus/message-bus.js';
import type { ChannelManager } from '../channels/channel-manager.js';
import type { WrenConfig } from '../config/wren-config.js';
import { createGate, type Gate } from '../gate/create-gate.js';
import { redactingSessionStore } from '../gate/redacting-session-store.js';
import type { Redactor } from '../gate/redactor.js';
import type { ChatModel, Usage } from '../llm/types.js';
import { createMemory, type Memory } from '../memory/create-memory.js';
import type { Stores } from '../store/open-stores.js';
import { createMessageTools } from '../tools/message/message-tools.js';
import { createSpawnTool, createSubagentsCommand } from '../tools/spawn/spawn-tool.js';
import { SubagentManager } from '../tools/spawn/subagent-manager.js';
import type { Logger } from '../util/logger.js';
import { createHomeVault } from '../vault/vault-service.js';
import { secretValues } from './built-in-registry.js';
import { continueAfterRestart } from './continue-after-restart.js';
import { wireSemanticSearch } from './wire-semantic-search.js';

/** Subagents start with these tools unless the call names others … */
const SUBAGENT_DEFAULT_TOOLS = ['read_file', 'list_dir', 'web_search', 'web_fetch', 'memory_search'];
/** … and may be given only these (no messaging, no spawning, no memory writes). */
const SUBAGENT_ALLOWED_TOOLS = [
  'read_file',
  'list_dir',
  'write_file',
  'edit_file',
  'exec',
  'web_search',
  'web_fetch',
  'memory_search',
  'weather',
];

export interface AgentWiringDeps {
  home: string;
  env: NodeJS.ProcessEnv;
  config: () => WrenConfig;
  stores: Stores;
  bus: MessageBus;
  channels: ChannelManager;
  registry: ToolRegistry;
  model: ChatModel;
  redactor: Redactor;
  logger: Logger;
  /** Records a model call's token usage (calls that used none are not recorded). */
  recordUsage: (sessionId: string | undefined, usage: Usage, endpoint: string | undefined) => void;
}

/** The agent and what surrounds each of its turns: the gate, memory, subagents, messaging, the runtime. */
export interface AgentWiring {
  gate: Gate;
  semantic: ReturnType<typeof wireSemanticSearch>;
  memory: Memory;
  subagents: SubagentManager;
  runtime: AgentRuntime;
  /** Rebuilds the system prompt's builder from a new configuration (a live edit). */
  reloadContext(config: WrenConfig): void;
}

/** `NAME (hosts a, b; programs c)` for each vault secret, by name: what the prompt names (no values). */
function vaultNames(vault: Stores['vault']): string[] {
  return vault.list().map((secret) => {
    const where = Object.entries(secret.bindings)
      .filter(([, list]) => Array.isArray(list) && list.length > 0)
      .map(([kind, list]) => `${kind} ${(list as string[]).join(', ')}`);
    return where.length > 0 ? `${secret.name} (${where.join('; ')})` : secret.name;
  });
}

/**
 * Part of the composition root: builds the gate over the stores, memory (its tools registered), subagents,
 * the message tools and the agent runtime, and starts the runtime on the bus.
 */
export function wireAgent(deps: AgentWiringDeps): AgentWiring {
  const { config, stores, bus, registry, model, logger } = deps;
  const gate = createGate({
    config: () => config().gate,
    stores,
    bus,
    onResumedAnswer: (request, result) => continueAfterRestart(bus, request, result),
    extraSecrets: () => secretValues(deps.home, config(), deps.env),
    redactor: deps.redactor,
    vault: createHomeVault(deps),
  });
  const semantic = wireSemanticSearch({ stores, config, logger });
  const memory = createMemory({
    stores,
    semantic,
    store: stores.sessions,
    model,
    workspace: () => config().workspace,
    config: () => config().memory,
    historyBudget: () => {
      const limits = model.limits();
      return limits.contextWindow - limits.maxOutputTokens - config().agent.historyReserveTokens;
    },
    timezone: () => config().agent.timezone,
    onUsage: ({ sessionId, usage, endpoint }) => deps.recordUsage(sessionId, usage, endpoint),
    onError: (error, sessionId) =>
      logger.warn({ err: error, sessionId }, 'memory consolidation failed; will retry'),
  });
  for (const tool of memory.tools) registry.register(tool);
  const subagents = new SubagentManager({
    model,
    registry,
    store: stores.sessions,
    bus,
    defaultTools: SUBAGENT_DEFAULT_TOOLS,
    allowedTools: SUBAGENT_ALLOWED_TOOLS,
    limits: () => config().agent.subagents,
    beforeToolCall: gate.beforeToolCall,
    afterToolCall: gate.afterToolCall,
    onUsage: (sessionId, usage, endpoint) => deps.recordUsage(sessionId, usage, endpoint),
  });
  registry.register(createSpawnTool(subagents));
  for (const tool of createMessageTools({
    bus,
    roots: () => [config().workspace, ...config().tools.extraRoots],
    channels: () => bus.deliveringChannels(),
    ownerChat: (name) => deps.channels.ownerChat(name),
  }))
    registry.register(tool);
  const contextFor = (current: WrenConfig) =>
    new ContextBuilder({
      workspace: current.workspace,
      timezone: current.agent.timezone,
      ...memory.contextOptions(),
      guestSkills: () => memory.skills.guestSection(current.gate.nonOwner.skills),
      vaultNames: () => vaultNames(stores.vault),
    });
  let context = contextFor(config());
  const runtime = new AgentRuntime({
    bus,
    store: redactingSessionStore(stores.sessions, deps.redactor),
    model,
    registry,
    get context() {
      return context;
    },
    workspace: () => config().workspace,
    // The agent section carries every AgentSettings field (and more the runtime ignores).
    settings: (): AgentSettings => config().agent,
    beforeToolCall: gate.beforeToolCall,
    afterToolCall: gate.afterToolCall,
    // A non-owner's words (or a trigger's untrusted content) taint the session before anything else happens:
    // consolidation then holds back its facts instead of writing them into the owner's MEMORY.md.
    onTurnStart: ({ session, message }) => {
      if (message.fromOwner !== true)
        gate.taint.markUntrusted(session.id, `a message from ${message.senderId}`);
    },
    onTurnEnd: ({ session, usage, endpoint }) => {
      memory.afterTurn(session);
      deps.recordUsage(session.id, usage, endpoint);
    },
    beforeNewSession: (old) => memory.beforeNewSession(old),
    commands: { ...memory.commands, subagents: createSubagentsCommand(subagents) },
    onError: (error) => logger.error({ err: error }, 'turn failed'),
  });
  runtime.start();
  return {
    gate,
    semantic,
    memory,
    subagents,
    runtime,
    reloadContext: (next) => {
      context = contextFor(next);
    },
  };
}
