import type { ConfigWatcher } from '../config/watch-config.js';
import type { McpManager } from '../mcp/mcp-manager.js';
import type { Stores } from '../store/open-stores.js';
import { stopSandboxProbes } from '../tools/exec/sandbox.js';
import type { AgentWiring } from './wire-agent.js';
import type { ProactiveWiring } from './wire-proactive.js';
import type { ServedGateway, WrenApp } from './wren-app.js';

/** What `status` and `close` reach of a built app. */
export interface AppParts {
  app: Pick<WrenApp, 'bus' | 'channels' | 'pool' | 'services' | 'startedAt'>;
  agent: AgentWiring;
  proactive: ProactiveWiring;
  mcp: McpManager;
  stores: Stores;
  watcher: ConfigWatcher | undefined;
  gateways: readonly ServedGateway[];
  configError: () => string | undefined;
  /** Releases what the app holds beyond its parts (redaction hook, home lock, its log file). */
  release: () => Promise<void>;
}

function memoryMb(): Record<string, number> {
  const usage = process.memoryUsage();
  const mb = (bytes: number) => Math.round(bytes / 1e5) / 10;
  return { rss: mb(usage.rss), heapUsed: mb(usage.heapUsed), heapTotal: mb(usage.heapTotal) };
}

/** What `wren status` and `GET /api/status` show of this process. */
export function appStatus(parts: AppParts, version: string): Record<string, unknown> {
  const { app, agent, proactive, mcp } = parts;
  const configError = parts.configError();
  return {
    version,
    pid: process.pid,
    uptimeSeconds: Math.round((Date.now() - app.startedAt) / 1000),
    ...(configError ? { configError } : {}),
    models: app.pool.status(),
    turnsInFlight: agent.runtime.inFlight(),
    memoryMb: memoryMb(),
    consolidation: app.services.status.consolidation(),
    memorySearch: agent.semantic.status(),
    mcp: mcp.status(),
    subagents: agent.subagents.list(),
    scheduler: { running: proactive.proactive.running(), nextDue: proactive.nextDue() ?? null },
    // Faces that show what Wren sends on its own right now (an attached terminal is `cli`).
    connected: app.bus.deliveringChannels(),
    channels: app.channels.status(),
    usage: app.services.status.usage(),
  };
}

/**
 * Stops the app in an order that loses nothing: no new requests, the channels, subagents, the scheduler
 * (its runs finish or are left to resume), the gate, the turns in flight (up to `graceMs`), memory, MCP,
 * then storage and the lock.
 */
export async function closeApp(parts: AppParts, graceMs: number): Promise<void> {
  const { app, agent, proactive } = parts;
  parts.watcher?.close();
  proactive.jobs.close();
  // Stop accepting at once; requests already in flight get their answers while the turns drain.
  const listeners = Promise.all(parts.gateways.map((gateway) => gateway.close()));
  await app.channels.stopAll();
  agent.subagents.cancelAll();
  await proactive.proactive.stop(Math.min(graceMs, 5_000));
  agent.gate.close();
  await agent.runtime.stop(graceMs);
  await Promise.race([listeners, new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
  await agent.memory.close(Math.min(graceMs, 5000));
  await parts.mcp.stop();
  // A sandbox probe still running at exit would be left as a zombie for init to reap.
  await stopSandboxProbes();
  parts.stores.close();
  await parts.release();
}
