import { join } from 'node:path';
import { AgentRuntime, type AgentSettings } from '../agent/agent-runtime.js';
import { ContextBuilder } from '../agent/context-builder.js';
import { ensureWorkspaceFiles } from '../agent/workspace-files.js';
import { MessageBus } from '../bus/message-bus.js';
import { ChannelManager } from '../channels/channel-manager.js';
import { ensureHome, makeHomePrivate } from '../config/home.js';
import { loadConfig, resolveEndpoints } from '../config/load-config.js';
import { watchConfig } from '../config/watch-config.js';
import type { WrenConfig } from '../config/wren-config.js';
import { createGate } from '../gate/create-gate.js';
import { Redactor } from '../gate/redactor.js';
import { onCopilotToken } from '../llm/copilot-token-registry.js';
import type { EndpointConfig } from '../llm/endpoint.js';
import { EndpointPool } from '../llm/endpoint-pool.js';
import { findLocalEndpoint } from '../llm/find-local-endpoint.js';
import { createMcpManager } from '../mcp/mcp-manager.js';
import { createMemory } from '../memory/create-memory.js';
import { createOwnerServices } from '../services/owner-services.js';
import { acquireHomeLock } from '../store/home-lock.js';
import { openStoresAt, type Stores } from '../store/open-stores.js';
import { stopSandboxProbes } from '../tools/exec/sandbox.js';
import { sweepOrphans } from '../tools/exec/sweep-orphans.js';
import { createMessageTools } from '../tools/message/message-tools.js';
import { createSpawnTool, createSubagentsCommand } from '../tools/spawn/spawn-tool.js';
import { SubagentManager } from '../tools/spawn/subagent-manager.js';
import { createLogger } from '../util/logger.js';
import { createBuiltInRegistry, registerWebTools, secretValues } from './built-in-registry.js';
import { configuredChannels } from './configured-channels.js';
import { continueAfterRestart } from './continue-after-restart.js';
import { serviceContext } from './open-home.js';
import { type ServedGateway, serveAppGateway } from './serve-app-gateway.js';
import { wireProactive } from './wire-proactive.js';
import { wireSemanticSearch } from './wire-semantic-search.js';

import type { AppOptions, WrenApp } from './wren-app.js';

export type { AppOptions, WrenApp };

function memoryMb(): Record<string, number> {
  const usage = process.memoryUsage();
  const mb = (bytes: number) => Math.round(bytes / 1e5) / 10;
  return { rss: mb(usage.rss), heapUsed: mb(usage.heapUsed), heapTotal: mb(usage.heapTotal) };
}

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

/**
 * The composition root: builds every part from the home folder and wires them — configuration, logger and
 * redaction, the model (or a local server found by probing when none is configured), memory, tools, the
 * gate, subagents, MCP — and serves the gateway on request. Throws ConfigError or StoreError (precise,
 * user-facing) when the home cannot be used; nothing is left open when it throws.
 */
export async function createApp(options: AppOptions): Promise<WrenApp> {
  const { home } = options;
  const env = options.env ?? process.env;
  ensureHome(home);
  const madePrivate = makeHomePrivate(home);
  let config = loadConfig(home, env);
  const redactor = new Redactor(secretValues(home, config, env));
  const logger = options.logger ?? createLogger(home, config.log.level, redactor);
  const fallback = await modelFallback(options, config);
  const lock = options.lock ? acquireHomeLock(home) : undefined;
  // Every store of the home, over one connection to wren.db; goals created without a zone take the owner's.
  let stores: Stores;
  try {
    stores = openStoresAt(join(home, 'wren.db'), { timezone: () => config.agent.timezone });
  } catch (error) {
    lock?.release();
    throw error;
  }
  const endpointsFor = (current: WrenConfig) => {
    const configured = resolveEndpoints(current);
    return configured.length > 0 ? configured : (fallback.endpoints ?? []);
  };
  let endpoints = endpointsFor(config);
  // Copilot API tokens are made at run time: each is redacted from the moment it exists.
  const stopCopilotRedaction = onCopilotToken(({ token, retired }) => {
    redactor.add([token]);
    if (retired) redactor.remove([retired]);
  });
  const pool = new EndpointPool({ endpoints });
  const { sessions, settings } = stores;
  const services = createOwnerServices(
    stores,
    serviceContext(() => config),
  );
  ensureWorkspaceFiles(config.workspace);
  const fileRoots = () => [config.workspace, ...config.tools.extraRoots];
  const registry = createBuiltInRegistry(home, () => config, {
    env,
    redact: (text) => redactor.text(text),
  });
  const bus = new MessageBus();
  const channels = new ChannelManager((channel, error) =>
    logger.error({ err: error, channel }, 'channel failed'),
  );
  const channelLedger = stores.channels;
  const model = options.model ?? pool;
  // The pool names the endpoint of every result; only a model passed in (benchmarks, tests) has none.
  const unnamed = options.model ? 'injected model' : 'unnamed endpoint';
  const gate = createGate({
    config: () => config.gate,
    stores,
    bus,
    onResumedAnswer: (request, result) => continueAfterRestart(bus, request, result),
    extraSecrets: () => secretValues(home, config, env),
    redactor,
  });
  const semantic = wireSemanticSearch({ stores, config: () => config, logger });
  const memory = createMemory({
    stores,
    semantic,
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
      stores.usage.record({ ...(sessionId ? { sessionId } : {}), endpoint: endpoint ?? unnamed, usage });
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
      stores.usage.record({ sessionId, endpoint: endpoint ?? unnamed, usage });
    },
  });
  registry.register(createSpawnTool(subagents));
  for (const tool of createMessageTools({
    bus,
    roots: fileRoots,
    channels: () => bus.deliveringChannels(),
    ownerChat: (name) => channels.ownerChat(name),
  }))
    registry.register(tool);
  const contextFor = (current: WrenConfig) =>
    new ContextBuilder({
      workspace: current.workspace,
      timezone: current.agent.timezone,
      ...memory.contextOptions(),
      guestSkills: () => memory.skills.guestSection(current.gate.nonOwner.skills),
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
    // The agent section carries every AgentSettings field (and more the runtime ignores).
    settings: (): AgentSettings => config.agent,
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
      if (usage.inputTokens + usage.outputTokens === 0) return;
      stores.usage.record({ sessionId: session.id, endpoint: endpoint ?? unnamed, usage });
    },
    beforeNewSession: (old) => memory.beforeNewSession(old),
    commands: { ...memory.commands, subagents: createSubagentsCommand(subagents) },
    onError: (error) => logger.error({ err: error }, 'turn failed'),
  });
  runtime.start();
  const { proactive, jobs, nextDue, recordMailTrigger } = wireProactive({
    home,
    stores,
    bus,
    registry,
    logger,
    config: () => config,
    watch: options.watch === true,
    ownerChat: (name) => channels.ownerChat(name),
    model,
  });
  const platforms = options.channels
    ? configuredChannels({
        manager: channels,
        bus,
        ledger: channelLedger,
        workspace: () => config.workspace,
        logger,
        onMailTrigger: recordMailTrigger,
      })
    : undefined;
  void platforms?.apply(config.channels);
  // What a previous run left waiting for the owner is asked again (each face shows it when it connects).
  // Only a process that can ask (wren start, an interactive wren chat) takes them: a one-shot run cannot.
  const asks = options.lock === true || options.channels === true || options.scheduler === 'try';
  const resumed = asks ? gate.approvals.resume() : 0;
  if (resumed > 0)
    logger.info({ approvals: resumed }, 'asking again what waited for approval before the restart');
  if (options.scheduler === 'run') proactive.start({ wait: true });
  else if (options.scheduler === 'try') proactive.start();
  // Commands a crashed Wren of this home left running (no sandbox to end them) are stopped now.
  void sweepOrphans(home)
    .then((pids) => {
      if (pids.length > 0) logger.warn({ pids }, 'stopped commands a previous Wren run left behind');
    })
    .catch((error: unknown) => logger.warn({ err: error }, 'could not look for leftover commands'));
  void memory.start().catch((error: unknown) => logger.error({ err: error }, 'memory start failed'));
  const mcp = createMcpManager({
    home,
    registry,
    pins: stores.mcpPins,
    settings: config.mcp,
    env,
    logger,
    watch: options.watch === true && config.mcp.hotReload,
  });
  if (config.mcp.enabled) mcp.start();

  let configError: string | undefined;
  const watcher = options.watch
    ? watchConfig(home, {
        current: config,
        env,
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
          configError = undefined;
          logger.level = next.log.level;
          context = contextFor(next);
          void platforms?.apply(next.channels);
          if (gatewayChanged) logger.warn('gateway settings changed; they apply at the next `wren start`');
          logger.info({ models: endpoints.map((endpoint) => endpoint.name) }, 'config reloaded');
        },
        onValid: () => {
          configError = undefined;
        },
        onError: (error) => {
          configError = error.message;
          logger.error({ error: error.message }, 'config edit rejected; keeping the last good config');
          process.stderr.write(
            `wren: config edit rejected, the last good config stays in force: ${error.message}\n`,
          );
        },
        onRecovered: (changed) => {
          logger.info({ changed }, 'config valid again after a rejected edit');
          process.stderr.write(
            `wren: config.yaml is valid again; ${changed ? 'applied' : 'it matches the config in force'}\n`,
          );
        },
      })
    : undefined;

  let closed: Promise<void> | undefined;
  const gateways: ServedGateway[] = [];
  const app: WrenApp = {
    home,
    env,
    bus,
    channels,
    runtime,
    registry,
    pool,
    sessions,
    settings,
    services,
    gate,
    memory,
    mcp,
    subagents,
    proactive,
    logger,
    startedAt: Date.now(),
    config: () => config,
    endpoints: () => endpoints,
    ...(fallback.note ? { modelNote: fallback.note } : {}),
    madePrivate,
    configError: () => configError,
    fileRoots,
    nextDue,
    status: (version) => ({
      version,
      pid: process.pid,
      uptimeSeconds: Math.round((Date.now() - app.startedAt) / 1000),
      ...(configError ? { configError } : {}),
      models: pool.status(),
      turnsInFlight: runtime.inFlight(),
      memoryMb: memoryMb(),
      consolidation: services.status.consolidation(),
      memorySearch: semantic.status(),
      mcp: mcp.status(),
      subagents: subagents.list(),
      scheduler: { running: proactive.running(), nextDue: nextDue() ?? null },
      // Faces that show what Wren sends on its own right now (an attached terminal is `cli`).
      connected: bus.deliveringChannels(),
      channels: channels.status(),
      usage: services.status.usage(),
    }),
    async mcpSettled(maxMs) {
      const deadline = Date.now() + maxMs;
      const connecting = () =>
        mcp.status().flatMap((server) => (server.state === 'connecting' ? [server.name] : []));
      while (connecting().length > 0 && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 25));
      return connecting();
    },
    async serve(serveOptions) {
      const served = await serveAppGateway(app, serveOptions);
      gateways.push(served);
      return served;
    },
    close(graceMs = 10_000) {
      closed ??= (async () => {
        watcher?.close();
        jobs.close();
        // Stop accepting at once; requests already in flight get their answers while the turns drain.
        const listeners = Promise.all(gateways.map((gateway) => gateway.close()));
        await channels.stopAll();
        subagents.cancelAll();
        await proactive.stop(Math.min(graceMs, 5_000));
        gate.close();
        await runtime.stop(graceMs);
        await Promise.race([listeners, new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
        await memory.close(Math.min(graceMs, 5000));
        await mcp.stop();
        // A sandbox probe still running at exit would be left as a zombie for init to reap.
        await stopSandboxProbes();
        stores.close();
        stopCopilotRedaction();
        lock?.release();
        logger.flush?.();
      })();
      return closed;
    },
  };
  return app;
}
