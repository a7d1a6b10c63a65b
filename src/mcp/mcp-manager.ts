import { type FSWatcher, mkdirSync, rmSync, watch } from 'node:fs';
import { join } from 'node:path';
import picomatch from 'picomatch';
import type { McpPinStore } from '../store/ports.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { type Env, mergeEnv, readDotEnv } from '../util/interpolate.js';
import type { Logger } from '../util/logger.js';
import { definitionsHash, describeDefinitionChange, pinnedDefinitions } from './definition-hash.js';
import type { GroupedToolRegistry } from './grouped-tool-registry.js';
import { DEFAULT_MCP_SETTINGS, type McpSettings } from './mcp-config.js';
import { McpConnection } from './mcp-connection.js';
import { describeLaunch, loadMcpServers, type McpFileEntry } from './mcp-file.js';
import type { McpServerControl } from './mcp-server-control.js';
import { createMcpServerTool, MCP_SERVER } from './mcp-server-tool.js';
import { type McpServerStatus, mcpStatusPath } from './mcp-status.js';
import { createMcpTool } from './mcp-tool.js';

export interface McpManagerDeps {
  home: string;
  /** Where MCP tools are registered (`core: false`, grouped per server) and unregistered. */
  registry: GroupedToolRegistry;
  pins: McpPinStore;
  settings?: McpSettings;
  /** Variables for `${VAR}` in mcp.json, overlaid on `<home>/.env` (default `process.env`). */
  env?: Env;
  logger?: Logger;
  /** Default `<home>/mcp.json`. */
  file?: string;
  /** Folder of server stderr logs and the status file; default `<home>/logs/mcp`. */
  logDir?: string;
  /** Watch mcp.json and .env; default `settings.hotReload`. */
  watch?: boolean;
  debounceMs?: number;
  /** How often held servers look for an approval made by another process (`wren mcp approve`). */
  approvalPollMs?: number;
  random?: () => number;
}

/** The running MCP side of Wren. */
export interface McpManager extends McpServerControl {
  /** Registers `mcp_server`, starts enabled servers in the background and watches mcp.json. Returns at once. */
  start(): void;
  /** Stops every server, unregisters their tools and stops watching. Idempotent. */
  stop(): Promise<void>;
  /** Approves a held server's changed tool definitions; they are registered at once. */
  approve(name: string): { ok: true; change: string } | { ok: false; reason: string };
}

interface ServerRecord {
  entry: McpFileEntry;
  key: string;
  connection?: McpConnection;
  registered: string[];
  held?: { hash: string; reason: string };
}

const GROUP_SUFFIX = '__*';
const SUMMARY_CHARS = 80;

/** A server's catalogue summary: its configured description (the model can list tools with mcp_server). */
function summarise(entry: McpFileEntry): string {
  const text = entry.config?.description ?? '';
  return text.length > SUMMARY_CHARS ? `${text.slice(0, SUMMARY_CHARS - 1)}…` : text;
}

/**
 * Creates the MCP manager: it owns one {@link McpConnection} per enabled server of mcp.json, keeps the tool
 * registry in step with their tools (after pin checks) and writes a status file for the CLI.
 */
export function createMcpManager(deps: McpManagerDeps): McpManager {
  const settings = deps.settings ?? DEFAULT_MCP_SETTINGS;
  const file = deps.file ?? join(deps.home, 'mcp.json');
  const logDir = deps.logDir ?? join(deps.home, 'logs', 'mcp');
  const statusFile = deps.logDir ? join(deps.logDir, 'status.json') : mcpStatusPath(deps.home);
  const { registry, pins, logger } = deps;
  const servers = new Map<string, ServerRecord>();
  let watcher: FSWatcher | undefined;
  let debounce: NodeJS.Timeout | undefined;
  let statusTimer: NodeJS.Timeout | undefined;
  let pollTimer: NodeJS.Timeout | undefined;
  let running = false;

  const unregister = (record: ServerRecord) => {
    for (const name of record.registered) registry.unregister(name);
    registry.deleteGroup(`${record.entry.name}${GROUP_SUFFIX}`);
    record.registered = [];
  };

  const register = (record: ServerRecord, connection: McpConnection) => {
    unregister(record);
    const config = connection.config;
    const allow = config.allow ? picomatch(config.allow) : () => true;
    const deny = config.deny.length ? picomatch(config.deny) : () => false;
    const mine = new Set<string>();
    for (const definition of connection.tools) {
      if (!allow(definition.name) || deny(definition.name)) continue;
      const tool = createMcpTool({
        connection,
        definition,
        taken: (name) => mine.has(name) || registry.get(name) !== undefined,
      });
      registry.register(tool);
      mine.add(tool.name);
    }
    record.registered = [...mine];
    if (!config.always && mine.size > 0) {
      registry.setGroup(`${config.name}${GROUP_SUFFIX}`, summarise(record.entry), record.registered);
    }
  };

  /** Brings the registry in step with one server (ready and pinned → registered; anything else → not). */
  const sync = (record: ServerRecord) => {
    try {
      syncRecord(record);
    } catch (error) {
      unregister(record);
      logger?.error(
        { server: record.entry.name, error: (error as Error).message },
        'MCP registry sync failed',
      );
    }
    scheduleStatus();
  };

  const syncRecord = (record: ServerRecord) => {
    const connection = record.connection;
    if (connection?.state !== 'ready' || servers.get(record.entry.name) !== record) {
      unregister(record);
    } else {
      const definitions = pinnedDefinitions(connection.tools);
      const verdict = pins.check(record.entry.name, definitionsHash(definitions), definitions);
      if (verdict.status === 'held') {
        unregister(record);
        const pending = pins.pending(record.entry.name);
        const change = describeDefinitionChange(pending?.approved?.definitions ?? [], definitions);
        record.held = {
          hash: verdict.approvedHash,
          reason: `tool definitions changed (${change}); approve with \`wren mcp approve ${record.entry.name}\``,
        };
        logger?.warn({ server: record.entry.name, change }, 'MCP server held: tool definitions changed');
      } else {
        record.held = undefined;
        register(record, connection);
      }
    }
  };

  const statusOf = (record: ServerRecord): McpServerStatus => {
    const { entry, connection } = record;
    const base = {
      name: entry.name,
      enabled: entry.enabled,
      transport: entry.config?.transport ?? (typeof entry.raw['url'] === 'string' ? 'http-or-sse' : 'stdio'),
      launch: describeLaunch(entry.raw),
      tools: [...record.registered],
      restarts: connection?.restarts ?? 0,
      since: connection?.since ?? Date.now(),
    };
    const extra = {
      ...(connection?.pid !== undefined ? { pid: connection.pid } : {}),
      ...(connection && entry.config?.transport === 'stdio' ? { logFile: connection.logFile() } : {}),
    };
    if (entry.error)
      return { ...base, ...extra, state: 'invalid', display: `invalid: ${entry.error}`, reason: entry.error };
    if (!connection) {
      const reason = settings.enabled ? undefined : 'MCP is turned off in config.yaml (mcp.enabled)';
      return {
        ...base,
        state: 'disabled',
        display: reason ? `disabled (${reason})` : 'disabled',
        ...(reason ? { reason } : {}),
      };
    }
    if (record.held && connection.state === 'ready') {
      return {
        ...base,
        ...extra,
        state: 'held',
        display: `held: ${record.held.reason}`,
        reason: record.held.reason,
      };
    }
    const reason = connection.reason;
    return {
      ...base,
      ...extra,
      state: connection.state,
      display: connection.state === 'failed' && reason ? `failed: ${reason}` : connection.state,
      ...(reason ? { reason } : {}),
    };
  };

  const writeStatus = () => {
    statusTimer = undefined;
    if (!running) return;
    try {
      mkdirSync(logDir, { recursive: true, mode: 0o700 });
      const servers = control.status();
      writeFileAtomic(
        statusFile,
        `${JSON.stringify({ pid: process.pid, updatedAt: Date.now(), servers }, null, 2)}\n`,
      );
    } catch (error) {
      logger?.warn({ error: (error as Error).message }, 'cannot write the MCP status file');
    }
  };

  function scheduleStatus() {
    if (!running || statusTimer) return;
    statusTimer = setTimeout(writeStatus, 100);
    statusTimer.unref();
  }

  const startRecord = (entry: McpFileEntry): ServerRecord => {
    const record: ServerRecord = {
      entry,
      key: JSON.stringify([entry.config, entry.error, entry.enabled]),
      registered: [],
    };
    if (settings.enabled && entry.enabled && entry.config && !entry.error) {
      mkdirSync(logDir, { recursive: true, mode: 0o700 });
      record.connection = new McpConnection(entry.config, {
        settings,
        logDir,
        onChange: () => sync(record),
        ...(deps.random ? { random: deps.random } : {}),
      });
      record.connection.start();
    }
    return record;
  };

  const stopRecord = async (record: ServerRecord) => {
    unregister(record);
    const connection = record.connection;
    record.connection = undefined;
    await connection?.stop();
  };

  const pollApprovals = () => {
    for (const record of servers.values()) {
      if (record.held && pins.approvedHash(record.entry.name) !== record.held.hash) sync(record);
    }
  };

  const control: McpManager = {
    file,
    start() {
      if (running) return;
      running = true;
      if (!registry.get(MCP_SERVER)) registry.register(createMcpServerTool(control));
      control.reload();
      if (deps.watch ?? settings.hotReload) {
        try {
          watcher = watch(deps.home, { persistent: false }, (_event, name) => {
            if (name && name.toString() !== 'mcp.json' && name.toString() !== '.env') return;
            clearTimeout(debounce);
            debounce = setTimeout(() => control.reload(), deps.debounceMs ?? 300);
            debounce.unref();
          });
          watcher.on('error', (error) => logger?.warn({ error: error.message }, 'mcp.json watch failed'));
        } catch (error) {
          logger?.warn({ error: (error as Error).message }, 'cannot watch mcp.json; edits apply at restart');
        }
      }
      pollTimer = setInterval(pollApprovals, deps.approvalPollMs ?? 2000);
      pollTimer.unref();
    },
    async stop() {
      running = false;
      watcher?.close();
      clearTimeout(debounce);
      clearTimeout(statusTimer);
      clearInterval(pollTimer);
      const records = [...servers.values()];
      servers.clear();
      await Promise.all(records.map(stopRecord));
      registry.unregister(MCP_SERVER);
      rmSync(statusFile, { force: true });
    },
    status() {
      return [...servers.values()].map(statusOf);
    },
    reload() {
      if (!running) return;
      let entries: McpFileEntry[];
      try {
        const env = mergeEnv(readDotEnv(deps.home), deps.env ?? process.env);
        entries = loadMcpServers(file, { env, envFile: join(deps.home, '.env'), settings });
      } catch (error) {
        logger?.error(
          { error: (error as Error).message },
          'mcp.json rejected; keeping the servers as they are',
        );
        return;
      }
      const next = new Map(entries.map((entry) => [entry.name, entry]));
      for (const [name, record] of servers) {
        if (!next.has(name)) {
          servers.delete(name);
          void stopRecord(record);
        }
      }
      for (const entry of entries) {
        const current = servers.get(entry.name);
        const key = JSON.stringify([entry.config, entry.error, entry.enabled]);
        if (current && current.key === key) {
          current.entry = entry;
          continue;
        }
        if (current) void stopRecord(current);
        servers.set(entry.name, startRecord(entry));
      }
      scheduleStatus();
    },
    approve(name) {
      const pending = pins.pending(name);
      if (!pending)
        return { ok: false, reason: `MCP server "${name}" has no changed tool definitions to approve.` };
      const change = describeDefinitionChange(pending.approved?.definitions ?? [], pending.definitions);
      pins.approve(name);
      const record = servers.get(name);
      if (record) sync(record);
      return { ok: true, change };
    },
    connection: (name) => servers.get(name)?.connection,
    entry: (name) => servers.get(name)?.entry,
    tools: (name) =>
      (servers.get(name)?.registered ?? []).flatMap((tool) => {
        const found = registry.get(tool);
        return found ? [found] : [];
      }),
  };
  return control;
}
