import { join } from 'node:path';
import type { ToolRegistry } from '../agent/tool-registry.js';
import { ensureWorkspaceFiles } from '../agent/workspace-files.js';
import { MessageBus } from '../bus/message-bus.js';
import { ChannelManager } from '../channels/channel-manager.js';
import { extensionsDir } from '../channels/platform-sdk.js';
import { ensureHome, makeHomePrivate } from '../config/home.js';
import { loadConfig, resolveEndpoints } from '../config/load-config.js';
import { homeSecretKey } from '../config/secret-key.js';
import type { ConfigWatcher } from '../config/watch-config.js';
import type { WrenConfig } from '../config/wren-config.js';
import { Redactor } from '../gate/redactor.js';
import { onCopilotToken } from '../llm/copilot-token-registry.js';
import type { EndpointConfig } from '../llm/endpoint.js';
import { EndpointPool } from '../llm/endpoint-pool.js';
import { findLocalEndpoint } from '../llm/find-local-endpoint.js';
import type { Usage } from '../llm/types.js';
import { type MailWatch, startMailWatch } from '../mail-watch/start-mail-watch.js';
import { createMcpManager, type McpManager } from '../mcp/mcp-manager.js';
import { recordToolWrite } from '../memory/file-history.js';
import { type BackupService, createBackupService } from '../services/backup-service.js';
import { createOwnerServices, type OwnerServices } from '../services/owner-services.js';
import { acquireHomeLock } from '../store/home-lock.js';
import { openStoresAt, upgradeNotice } from '../store/open-stores.js';
import { sweepOrphans } from '../tools/exec/sweep-orphans.js';
import { closeLogger, createLogger, type Logger } from '../util/logger.js';
import { wrenVersion } from '../util/wren-version.js';
import { type AppParts, appStatus, closeApp } from './app-parts.js';
import { createBuiltInRegistry, registerWebTools, secretValues } from './built-in-registry.js';
import { configuredChannels } from './configured-channels.js';
import { serviceContext } from './open-home.js';
import { reloadConfigOnEdit } from './reload-config.js';
import { type ServedGateway, serveAppGateway } from './serve-app-gateway.js';
import { type AgentWiring, wireAgent } from './wire-agent.js';
import { type ProactiveWiring, wireProactive } from './wire-proactive.js';
import type { AppOptions, WrenApp } from './wren-app.js';

export type { AppOptions, WrenApp };

/** With no model in config.yaml: the endpoints to use instead and what to tell the owner about it. */
async function modelFallback(
  options: AppOptions,
  config: WrenConfig,
): Promise<{ endpoints?: EndpointConfig[]; note?: string }> {
  if (options.model || resolveEndpoints(config).length > 0) return {};
  if (options.fallbackEndpoints) return { endpoints: options.fallbackEndpoints };
  if (options.probeLocalModels === false) return {};
  const found = await findLocalEndpoint();
  if (!found) return {};
  return {
    endpoints: [found.endpoint],
    note: `No model configured; using ${found.server.preset} at ${found.server.baseUrl} (${found.endpoint.model}) for this run. \`wren onboard\` saves a model.`,
  };
}

/** The configuration in force and why the last edit of config.yaml was rejected (live edits change both). */
interface LiveConfig {
  config?: WrenConfig;
  error?: string;
}

type OpenedAppHome = Awaited<ReturnType<typeof openAppHome>>;

/** Phase 1: the home made private, its configuration, redaction and log, the lock, and its stores. */
async function openAppHome(options: AppOptions, timezone: () => string) {
  const { home } = options;
  const env = options.env ?? process.env;
  ensureHome(home);
  const madePrivate = makeHomePrivate(home);
  const config = loadConfig(home, env);
  const redactor = new Redactor(secretValues(home, config, env));
  const logger: Logger = options.logger ?? createLogger(home, config.log, redactor);
  const fallback = await modelFallback(options, config);
  const lock = options.lock ? acquireHomeLock(home) : undefined;
  try {
    // Every store of the home, over one connection to wren.db; goals created without a zone take the owner's.
    const upgraded: string[] = [];
    const stores = openStoresAt(join(home, 'wren.db'), {
      timezone,
      onUpgrade: (upgrade) => {
        upgraded.push(upgradeNotice(upgrade));
        logger.info({ from: upgrade.from, to: upgrade.to, backup: upgrade.backup }, 'database upgraded');
      },
    });
    return {
      home,
      env,
      madePrivate,
      upgraded,
      redactor,
      logger,
      ownsLogger: !options.logger,
      fallback,
      lock,
      stores,
      config,
    };
  } catch (error) {
    lock?.release();
    throw error;
  }
}

/** Phase 2: the endpoint pool (config's endpoints, else the fallback), Copilot tokens redacted as they appear. */
function wireModels(opened: OpenedAppHome, options: AppOptions) {
  const endpointsFor = (current: WrenConfig) => {
    const configured = resolveEndpoints(current);
    return configured.length > 0 ? configured : (opened.fallback.endpoints ?? []);
  };
  let endpoints = endpointsFor(opened.config);
  const stopRedaction = onCopilotToken(({ token, retired }) => {
    opened.redactor.add([token]);
    if (retired) opened.redactor.remove([retired]);
  });
  const pool = new EndpointPool({ endpoints });
  // The pool names the endpoint of every result; only a model passed in (benchmarks, tests) has none.
  const unnamed = options.model ? 'injected model' : 'unnamed endpoint';
  const recordUsage = (sessionId: string | undefined, usage: Usage, endpoint: string | undefined) => {
    if (usage.inputTokens + usage.outputTokens === 0) return;
    opened.stores.usage.record({ ...(sessionId ? { sessionId } : {}), endpoint: endpoint ?? unnamed, usage });
  };
  return {
    pool,
    model: options.model ?? pool,
    endpoints: () => endpoints,
    recordUsage,
    stopRedaction,
    update(next: WrenConfig) {
      endpoints = endpointsFor(next);
      pool.update(endpoints);
    },
  };
}

/** Phase 5: what runs in the background once everything is wired (asked-again approvals, scheduler, sweeps). */
function startBackground(
  options: AppOptions,
  agent: AgentWiring,
  start: { scheduler: () => void; logger: Logger },
) {
  const { logger } = start;
  // What a previous run left waiting for the owner is asked again (each face shows it when it connects).
  // Only a process that can ask (wren start, an interactive wren chat) takes them: a one-shot run cannot.
  const asks = options.lock === true || options.channels === true || options.scheduler === 'try';
  const resumed = asks ? agent.gate.approvals.resume() : 0;
  if (resumed > 0)
    logger.info({ approvals: resumed }, 'asking again what waited for approval before the restart');
  start.scheduler();
  // Commands a crashed Wren of this home left running (no sandbox to end them) are stopped now.
  void sweepOrphans(options.home)
    .then((pids) => {
      if (pids.length > 0) logger.warn({ pids }, 'stopped commands a previous Wren run left behind');
    })
    .catch((error: unknown) => logger.warn({ err: error }, 'could not look for leftover commands'));
  void agent.memory.start().catch((error: unknown) => logger.error({ err: error }, 'memory start failed'));
}

/**
 * The composition root: builds every part from the home folder and wires them, phase by phase — the home
 * (configuration, redaction, log, lock, stores), the models, the agent with its gate, memory and tools, the
 * proactive engine, the chat platforms, MCP, the background work, live config edits — and serves the
 * gateway on request. Throws ConfigError or StoreError (precise, user-facing) when the home cannot be used;
 * nothing is left open when it throws.
 */
export async function createApp(options: AppOptions): Promise<WrenApp> {
  const live: LiveConfig = {};
  const config = () => live.config as WrenConfig;
  const opened = await openAppHome(options, () => config().agent.timezone);
  live.config = opened.config;
  const { home, env, logger, stores } = opened;
  const models = wireModels(opened, options);
  const services = createOwnerServices(stores, serviceContext(config));
  const backups = createBackupService({
    home,
    stores,
    config,
    // With the env, so a WREN_GATEWAY_TOKEN pasted into a file keeps that file out too.
    secrets: () => secretValues(home, config(), env),
    wrenVersion: wrenVersion(),
  });
  ensureWorkspaceFiles(config().workspace);
  const registry = createBuiltInRegistry(home, config, {
    env,
    redact: (text) => opened.redactor.text(text),
    onFileWritten: recordToolWrite(stores.fileVersions),
  });
  const bus = new MessageBus();
  const channels = new ChannelManager((channel, error) =>
    logger.error({ err: error, channel }, 'channel failed'),
  );
  const agent = wireAgent({
    ...opened,
    config,
    bus,
    channels,
    registry,
    model: models.model,
    recordUsage: models.recordUsage,
  });
  const proactive = wireProactive({
    home,
    stores,
    bus,
    registry,
    logger,
    config,
    watch: options.watch === true,
    ownerChat: (name) => channels.ownerChat(name),
    model: models.model,
    hasModel: () => options.model !== undefined || models.endpoints().length > 0,
    backups,
  });
  const platforms = startPlatforms(options, opened, { channels, bus, config, proactive });
  startBackground(options, agent, {
    logger,
    scheduler: () => {
      if (options.scheduler === 'run') proactive.proactive.start({ wait: true });
      else if (options.scheduler === 'try') proactive.proactive.start();
    },
  });
  const mcp = startMcp(opened, options, registry, config());
  const watcher = options.watch
    ? watchEdits({
        opened,
        models,
        registry,
        agent,
        live,
        apply: (channels) => void platforms?.apply(channels),
      })
    : undefined;

  return assembleApp({
    opened,
    options,
    live,
    config,
    models,
    services,
    backups,
    registry,
    bus,
    channels,
    agent,
    proactive,
    mcp,
    watcher,
    mailWatch: watchMailboxes(options, opened, proactive, models, config),
  });
}

/** The chat platforms config.yaml enables, when this process runs them (`wren start`); started now. */
function startPlatforms(
  options: AppOptions,
  opened: OpenedAppHome,
  parts: { channels: ChannelManager; bus: MessageBus; config: () => WrenConfig; proactive: ProactiveWiring },
) {
  if (!options.channels) return undefined;
  const platforms = configuredChannels({
    manager: parts.channels,
    bus: parts.bus,
    ledger: opened.stores.channels,
    workspace: () => parts.config().workspace,
    extensions: extensionsDir(options.home),
    logger: opened.logger,
    onMailTrigger: parts.proactive.recordMailTrigger,
    secretKey: () => homeSecretKey(options.home, opened.env),
    ...(options.platformDrivers ? { drivers: options.platformDrivers } : {}),
  });
  void platforms.apply(parts.config().channels);
  return platforms;
}

/** The owner's own mailboxes (`mail_watch:`), watched only by the process that runs the channels (`wren start`). */
function watchMailboxes(
  options: AppOptions,
  opened: OpenedAppHome,
  proactive: ProactiveWiring,
  models: ReturnType<typeof wireModels>,
  config: () => WrenConfig,
): MailWatch | undefined {
  if (!options.channels || config().mailWatch.length === 0) return undefined;
  return startMailWatch(config().mailWatch, {
    ledger: opened.stores.channels,
    recordTrigger: proactive.recordTrigger,
    model: models.model,
    logger: opened.logger,
    deliverTo: () => config().proactive.deliverTo,
  });
}

/** Resolves once no MCP server is still connecting, or after `maxMs`, with the names still connecting then. */
async function mcpSettled(mcp: ReturnType<typeof createMcpManager>, maxMs: number): Promise<string[]> {
  const deadline = Date.now() + maxMs;
  const connecting = () =>
    mcp.status().flatMap((server) => (server.state === 'connecting' ? [server.name] : []));
  while (connecting().length > 0 && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 25));
  return connecting();
}

/** Phase 6: the MCP servers of config.yaml, connected in the background (their tools join the registry). */
function startMcp(opened: OpenedAppHome, options: AppOptions, registry: ToolRegistry, config: WrenConfig) {
  const mcp = createMcpManager({
    home: opened.home,
    registry,
    pins: opened.stores.mcpPins,
    settings: config.mcp,
    env: opened.env,
    logger: opened.logger,
    watch: options.watch === true && config.mcp.hotReload,
  });
  if (config.mcp.enabled) mcp.start();
  return mcp;
}

/** Phase 7: live edits of config.yaml reach the models, the workspace, the web tools, the prompt and the platforms. */
function watchEdits(deps: {
  opened: OpenedAppHome;
  models: ReturnType<typeof wireModels>;
  registry: ToolRegistry;
  agent: AgentWiring;
  live: LiveConfig;
  apply: (channels: WrenConfig['channels']) => void;
}) {
  const { opened, models, live } = deps;
  return reloadConfigOnEdit({
    home: opened.home,
    env: opened.env,
    current: () => live.config as WrenConfig,
    logger: opened.logger,
    setError: (message) => {
      live.error = message;
    },
    apply: (next, previous) => {
      models.update(next);
      if (next.workspace !== previous.workspace) ensureWorkspaceFiles(next.workspace);
      const webChanged =
        JSON.stringify(next.web) !== JSON.stringify(previous.web) ||
        next.agent.maxToolResultChars !== previous.agent.maxToolResultChars;
      if (webChanged) registerWebTools(deps.registry, next);
      live.config = next;
      deps.agent.reloadContext(next);
      deps.apply(next.channels);
      return { models: models.endpoints().map((endpoint) => endpoint.name) };
    },
  });
}

/** The last phase: the app as its faces see it, its status and its orderly close. */
function assembleApp(built: {
  opened: OpenedAppHome;
  options: AppOptions;
  live: LiveConfig;
  config: () => WrenConfig;
  models: ReturnType<typeof wireModels>;
  services: OwnerServices;
  backups: BackupService;
  registry: ToolRegistry;
  bus: MessageBus;
  channels: ChannelManager;
  agent: AgentWiring;
  proactive: ProactiveWiring;
  mcp: McpManager;
  watcher: ConfigWatcher | undefined;
  mailWatch: MailWatch | undefined;
}): WrenApp {
  const { opened, live, config, models, agent, mcp } = built;
  let closed: Promise<void> | undefined;
  const gateways: ServedGateway[] = [];
  const app: WrenApp = {
    home: opened.home,
    env: opened.env,
    bus: built.bus,
    channels: built.channels,
    runtime: agent.runtime,
    registry: built.registry,
    pool: models.pool,
    sessions: opened.stores.sessions,
    settings: opened.stores.settings,
    calendars: opened.stores.calendars,
    services: built.services,
    backups: built.backups,
    gate: agent.gate,
    memory: agent.memory,
    mcp,
    subagents: agent.subagents,
    proactive: built.proactive.proactive,
    logger: opened.logger,
    startedAt: Date.now(),
    config,
    endpoints: models.endpoints,
    ...(opened.fallback.note ? { modelNote: opened.fallback.note } : {}),
    madePrivate: opened.madePrivate,
    upgraded: opened.upgraded,
    configError: () => live.error,
    fileRoots: () => [config().workspace, ...config().tools.extraRoots],
    nextDue: built.proactive.nextDue,
    recordTrigger: built.proactive.recordTrigger,
    status: (version) => appStatus(parts, version),
    mcpSettled: (maxMs) => mcpSettled(mcp, maxMs),
    async serve(serveOptions) {
      const served = await serveAppGateway(app, serveOptions);
      gateways.push(served);
      return served;
    },
    close(graceMs = 10_000) {
      // The mail watchers stop first: none writes a cursor or records a trigger into a closing store.
      closed ??= (built.mailWatch?.stop() ?? Promise.resolve()).then(() => closeApp(parts, graceMs));
      return closed;
    },
  };
  const parts: AppParts = {
    app,
    agent,
    proactive: built.proactive,
    mcp,
    stores: opened.stores,
    watcher: built.watcher,
    gateways,
    configError: () => live.error,
    release: async () => {
      models.stopRedaction();
      opened.lock?.release();
      // A logger the caller gave stays theirs; the app's own is written out and its file closed.
      if (opened.ownsLogger) await closeLogger(opened.logger);
      else opened.logger.flush?.();
    },
  };
  return app;
}
