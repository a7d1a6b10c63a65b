import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { AgentRuntime, type AgentSettings } from './agent/agent-runtime.js';
import { ContextBuilder } from './agent/context-builder.js';
import type { ToolRegistry } from './agent/tool-registry.js';
import { ensureWorkspaceFiles } from './agent/workspace-files.js';
import { createBuiltInRegistry, registerWebTools, secretValues } from './app-tools.js';
import { MessageBus } from './bus/message-bus.js';
import { ensureHome } from './config/home.js';
import { loadConfig, resolveEndpoints } from './config/load-config.js';
import { watchConfig } from './config/watch-config.js';
import type { WrenConfig } from './config/wren-config.js';
import { createGate, type Gate } from './gate/create-gate.js';
import type { Redactor } from './gate/redactor.js';
import type { EndpointConfig } from './llm/endpoint.js';
import { EndpointPool } from './llm/endpoint-pool.js';
import type { ChatModel } from './llm/types.js';
import { createMcpManager, type McpManager } from './mcp/mcp-manager.js';
import { createMemory, type Memory } from './memory/create-memory.js';
import { acquireHomeLock } from './store/home-lock.js';
import { McpPinRepository } from './store/mcp-pin-repository.js';
import { openDatabase } from './store/open-database.js';
import { SettingsRepository } from './store/settings-repository.js';
import { SqliteSessionStore } from './store/sqlite-session-store.js';
import { recordUsage } from './store/usage-repository.js';
import { createMessageTools } from './tools/message/message-tools.js';
import { createSpawnTool, createSubagentsCommand } from './tools/spawn/spawn-tool.js';
import { SubagentManager } from './tools/spawn/subagent-manager.js';
import { type Logger, silentLogger } from './util/logger.js';

export interface AppOptions {
  home: string;
  env?: NodeJS.ProcessEnv;
  logger?: Logger;
  /** Take the home lock (the long-running `wren start`); a second holder is refused. */
  lock?: boolean;
  /** Watch config.yaml and apply edits live. */
  watch?: boolean;
  /** Endpoints to use when config.yaml names none (a local server found by probing). */
  fallbackEndpoints?: EndpointConfig[];
  /** A model to use instead of the endpoint pool (benchmarks, tests). */
  model?: ChatModel;
  /** Redacts configured secret values from tool output (the logger should share it). */
  redactor?: Redactor;
}

export interface WrenApp {
  readonly home: string;
  readonly bus: MessageBus;
  readonly runtime: AgentRuntime;
  /** Every tool the model can get (built-in, memory, spawn, messaging, MCP). */
  readonly registry: ToolRegistry;
  readonly pool: EndpointPool;
  readonly sessions: SqliteSessionStore;
  readonly settings: SettingsRepository;
  readonly db: Database.Database;
  readonly gate: Gate;
  readonly memory: Memory;
  readonly mcp: McpManager;
  readonly subagents: SubagentManager;
  readonly logger: Logger;
  readonly startedAt: number;
  /** The configuration in force (changes on a valid live edit). */
  config(): WrenConfig;
  /** Folders file tools (and downloads) may reach: the workspace first. */
  fileRoots(): string[];
  /** Endpoints in force, config's or the fallback. */
  endpoints(): EndpointConfig[];
  /** Drains turns for up to `graceMs`, then closes the watcher, the database and the lock. Idempotent. */
  close(graceMs?: number): Promise<void>;
}

function agentSettings(config: WrenConfig): AgentSettings {
  const { maxRounds, maxConcurrency, maxParallelTools, maxToolResultChars, repeatLimit, historyReserveTokens } =
    config.agent;
  return {
    maxRounds,
    maxConcurrency,
    maxParallelTools,
    maxToolResultChars,
    repeatLimit,
    historyReserveTokens,
  };
}

/**
 * The composition root: builds every part from the home folder and wires them. Throws ConfigError or
 * StoreError (precise, user-facing) when the home cannot be used; nothing is left open when it throws.
 */
export function createApp(options: AppOptions): WrenApp {
  const { home } = options;
  const logger = options.logger ?? silentLogger();
  ensureHome(home);
  let config = loadConfig(home, options.env ?? process.env);
  const lock = options.lock ? acquireHomeLock(home) : undefined;
  let db: Database.Database;
  try {
    db = openDatabase(join(home, 'wren.db'));
  } catch (error) {
    lock?.release();
    throw error;
  }
  const endpointsFor = (current: WrenConfig) => {
    const configured = resolveEndpoints(current);
    return configured.length > 0 ? configured : (options.fallbackEndpoints ?? []);
  };
  let endpoints = endpointsFor(config);
  const pool = new EndpointPool({ endpoints });
  const sessions = new SqliteSessionStore(db);
  const settings = new SettingsRepository(db);
  ensureWorkspaceFiles(config.workspace);
  const fileRoots = () => [config.workspace, ...config.tools.extraRoots];
  const registry = createBuiltInRegistry(home, () => config);
  const bus = new MessageBus();
  const model = options.model ?? pool;
  const gate = createGate({
    config: () => config.gate,
    db,
    bus,
    extraSecrets: () => secretValues(home, config, options.env ?? process.env),
    ...(options.redactor ? { redactor: options.redactor } : {}),
  });
  const memory = createMemory({
    db,
    store: sessions,
    model,
    workspace: () => config.workspace,
    config: () => config.memory,
    historyBudget: () => {
      const limits = model.limits();
      return limits.contextWindow - limits.maxOutputTokens - config.agent.historyReserveTokens;
    },
    timezone: () => config.agent.timezone,
    onUsage: ({ sessionId, usage, endpoint }) => {
      if (usage.inputTokens + usage.outputTokens === 0) return;
      recordUsage(db, { ...(sessionId ? { sessionId } : {}), endpoint: endpoint ?? 'unknown', usage });
    },
    onError: (error, sessionId) =>
      logger.warn({ err: error, sessionId }, 'memory consolidation failed; will retry'),
  });
  for (const tool of memory.tools) registry.register(tool);
  const subagents = new SubagentManager({
    model,
    registry,
    store: sessions,
    bus,
    defaultTools: ['read_file', 'list_dir', 'web_search', 'web_fetch', 'memory_search'],
    allowedTools: [
      'read_file',
      'list_dir',
      'write_file',
      'edit_file',
      'exec',
      'web_search',
      'web_fetch',
      'memory_search',
      'weather',
    ],
    limits: () => config.agent.subagents,
    beforeToolCall: gate.beforeToolCall,
    afterToolCall: gate.afterToolCall,
    onUsage: (sessionId, usage, endpoint) => {
      if (usage.inputTokens + usage.outputTokens === 0) return;
      recordUsage(db, { sessionId, endpoint: endpoint ?? 'unknown', usage });
    },
  });
  registry.register(createSpawnTool(subagents));
  for (const tool of createMessageTools({ bus, roots: fileRoots, channels: () => bus.deliveringChannels() }))
    registry.register(tool);
  const contextFor = (current: WrenConfig) =>
    new ContextBuilder({
      workspace: current.workspace,
      timezone: current.agent.timezone,
      ...memory.contextOptions(),
    });
  let context = contextFor(config);
  const runtime = new AgentRuntime({
    bus,
    store: sessions,
    model,
    registry,
    get context() {
      return context;
    },
    workspace: () => config.workspace,
    settings: () => agentSettings(config),
    beforeToolCall: gate.beforeToolCall,
    afterToolCall: gate.afterToolCall,
    onTurnEnd: ({ session, usage, endpoint }) => {
      memory.afterTurn(session);
      if (usage.inputTokens + usage.outputTokens === 0) return;
      recordUsage(db, { sessionId: session.id, endpoint: endpoint ?? 'unknown', usage });
    },
    beforeNewSession: (old) => memory.beforeNewSession(old),
    commands: { ...memory.commands, subagents: createSubagentsCommand(subagents) },
    onError: (error) => logger.error({ err: error }, 'turn failed'),
  });
  runtime.start();
  void memory.start().catch((error: unknown) => logger.error({ err: error }, 'memory start failed'));
  const mcp = createMcpManager({
    home,
    registry,
    pins: new McpPinRepository(db),
    settings: config.mcp,
    env: options.env ?? process.env,
    logger,
    watch: options.watch === true && config.mcp.hotReload,
  });
  if (config.mcp.enabled) mcp.start();

  const watcher = options.watch
    ? watchConfig(home, {
        current: config,
        ...(options.env ? { env: options.env } : {}),
        onChange: (next) => {
          endpoints = endpointsFor(next);
          pool.update(endpoints);
          if (next.workspace !== config.workspace) ensureWorkspaceFiles(next.workspace);
          const gatewayChanged = JSON.stringify(next.gateway) !== JSON.stringify(config.gateway);
          const webChanged =
            JSON.stringify(next.web) !== JSON.stringify(config.web) ||
            next.agent.maxToolResultChars !== config.agent.maxToolResultChars;
          if (webChanged) registerWebTools(registry, next);
          config = next;
          logger.level = next.log.level;
          context = contextFor(next);
          if (gatewayChanged) logger.warn('gateway settings changed; they apply at the next `wren start`');
          logger.info({ models: endpoints.map((endpoint) => endpoint.name) }, 'config reloaded');
        },
        onError: (error) =>
          logger.error({ error: error.message }, 'config edit rejected; keeping the last good config'),
      })
    : undefined;

  let closed: Promise<void> | undefined;
  return {
    home,
    bus,
    runtime,
    registry,
    pool,
    sessions,
    settings,
    db,
    gate,
    memory,
    mcp,
    subagents,
    logger,
    startedAt: Date.now(),
    config: () => config,
    endpoints: () => endpoints,
    fileRoots,
    close(graceMs = 10_000) {
      closed ??= (async () => {
        watcher?.close();
        subagents.cancelAll();
        gate.close();
        await runtime.stop(graceMs);
        await memory.close(Math.min(graceMs, 5000));
        await mcp.stop();
        db.close();
        lock?.release();
        logger.flush?.();
      })();
      return closed;
    },
  };
}
