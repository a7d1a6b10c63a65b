import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { AgentRuntime, type AgentSettings } from './agent/agent-runtime.js';
import { ContextBuilder } from './agent/context-builder.js';
import { ToolRegistry } from './agent/tool-registry.js';
import { ensureWorkspaceFiles } from './agent/workspace-files.js';
import { MessageBus } from './bus/message-bus.js';
import { ensureHome } from './config/home.js';
import { loadConfig, resolveEndpoints } from './config/load-config.js';
import { watchConfig } from './config/watch-config.js';
import type { WrenConfig } from './config/wren-config.js';
import type { EndpointConfig } from './llm/endpoint.js';
import { EndpointPool } from './llm/endpoint-pool.js';
import type { ChatModel } from './llm/types.js';
import { acquireHomeLock } from './store/home-lock.js';
import { openDatabase } from './store/open-database.js';
import { SettingsRepository } from './store/settings-repository.js';
import { SqliteSessionStore } from './store/sqlite-session-store.js';
import { recordUsage } from './store/usage-repository.js';
import { createListDirTool } from './tools/list-dir/list-dir.js';
import { createReadFileTool } from './tools/read-file/read-file.js';
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
}

export interface WrenApp {
  readonly home: string;
  readonly bus: MessageBus;
  readonly runtime: AgentRuntime;
  readonly pool: EndpointPool;
  readonly sessions: SqliteSessionStore;
  readonly settings: SettingsRepository;
  readonly db: Database.Database;
  readonly logger: Logger;
  readonly startedAt: number;
  /** The configuration in force (changes on a valid live edit). */
  config(): WrenConfig;
  /** Endpoints in force, config's or the fallback. */
  endpoints(): EndpointConfig[];
  /** Drains turns for up to `graceMs`, then closes the watcher, the database and the lock. Idempotent. */
  close(graceMs?: number): Promise<void>;
}

function agentSettings(config: WrenConfig): AgentSettings {
  const { maxRounds, maxConcurrency, maxToolResultChars, repeatLimit, historyReserveTokens } = config.agent;
  return { maxRounds, maxConcurrency, maxToolResultChars, repeatLimit, historyReserveTokens };
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
  const roots = () => [config.workspace];
  const registry = new ToolRegistry().register(createReadFileTool(roots)).register(createListDirTool(roots));
  const bus = new MessageBus();
  let context = new ContextBuilder({ workspace: config.workspace, timezone: config.agent.timezone });
  const runtime = new AgentRuntime({
    bus,
    store: sessions,
    model: options.model ?? pool,
    registry,
    get context() {
      return context;
    },
    workspace: () => config.workspace,
    settings: () => agentSettings(config),
    onTurnEnd: ({ session, usage, endpoint }) => {
      if (usage.inputTokens + usage.outputTokens === 0) return;
      recordUsage(db, { sessionId: session.id, endpoint: endpoint ?? 'unknown', usage });
    },
    onError: (error) => logger.error({ err: error }, 'turn failed'),
  });
  runtime.start();

  const watcher = options.watch
    ? watchConfig(home, {
        current: config,
        ...(options.env ? { env: options.env } : {}),
        onChange: (next) => {
          endpoints = endpointsFor(next);
          pool.update(endpoints);
          if (next.workspace !== config.workspace) ensureWorkspaceFiles(next.workspace);
          const gatewayChanged = JSON.stringify(next.gateway) !== JSON.stringify(config.gateway);
          config = next;
          logger.level = next.log.level;
          context = new ContextBuilder({ workspace: next.workspace, timezone: next.agent.timezone });
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
    pool,
    sessions,
    settings,
    db,
    logger,
    startedAt: Date.now(),
    config: () => config,
    endpoints: () => endpoints,
    close(graceMs = 10_000) {
      closed ??= (async () => {
        watcher?.close();
        await runtime.stop(graceMs);
        db.close();
        lock?.release();
        logger.flush?.();
      })();
      return closed;
    },
  };
}
