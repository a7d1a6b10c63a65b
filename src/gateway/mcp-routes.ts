import { join } from 'node:path';
import { type Context, Hono } from 'hono';
import type { McpSettings } from '../mcp/mcp-config.js';
import { loadMcpServers, type McpFileEntry, setMcpServerEnabled } from '../mcp/mcp-file.js';
import type { McpServerStatus } from '../mcp/mcp-status.js';
import { ConfigError } from '../util/config-error.js';
import { type Env, mergeEnv, readDotEnv } from '../util/interpolate.js';
import type * as Api from './api-types.js';
import { problem } from './problem.js';

export interface McpRouteOptions {
  home: string;
  /** The environment `${VAR}`s in mcp.json resolve from (over `<home>/.env`). */
  env: Env;
  /** The running MCP manager: its file, the live state of each server and the tools it registered. */
  manager: {
    readonly file: string;
    status(): McpServerStatus[];
    tools(name: string): ReadonlyArray<{ name: string; description: string }>;
    /** Re-reads mcp.json now (a no-op when the manager is not running). */
    reload(): void;
  };
  /** config.yaml's `mcp` section in force: whether MCP runs at all and whether mcp.json edits apply live. */
  settings: () => Pick<McpSettings, 'enabled' | 'hotReload'>;
}

/** One server as `/api/mcp` shows it. No command line or environment: those may hold literal secrets. */
export interface McpServerView {
  name: string;
  /** As written in mcp.json. */
  enabled: boolean;
  /** The manager's state (`ready`, `connecting`, `failed`, `held`, `invalid`, `disabled`), or `stopped`. */
  state: McpServerStatus['state'];
  /** Why it is failed, held, invalid or not running. */
  error?: string;
  /** The tools Wren offers the model from it (`server__tool`), with their descriptions. */
  tools: Array<{ name: string; description: string }>;
}

const MCP_OFF = 'MCP is turned off in config.yaml (mcp.enabled: false)';

/**
 * `GET /api/mcp`, `POST /api/mcp/:name/enable|disable`. mcp.json is the source of the list (every server
 * written there, with the manager's live state when it runs it); a toggle edits mcp.json exactly as
 * `wren mcp enable|disable` does (enabling a catalogue preset that is not there yet adds it) and then lets the
 * manager reload at once — unless `mcp.hot_reload` is false, when the change waits for the next start like any
 * other edit of the file (the answer's `note` says so).
 */
export function mcpRoutes(options: McpRouteOptions): Hono {
  const app = new Hono();
  const { home, manager } = options;

  /** mcp.json's servers, or why the file cannot be used. */
  const fileEntries = (): { entries: McpFileEntry[] } | { fileError: string } => {
    try {
      const env = mergeEnv(readDotEnv(home), options.env);
      return {
        entries: loadMcpServers(manager.file, {
          env,
          envFile: join(home, '.env'),
          settings: { callTimeoutMs: 30_000 },
        }),
      };
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      return { fileError: error.message };
    }
  };

  const liveView = (status: McpServerStatus, enabled = status.enabled): McpServerView => ({
    name: status.name,
    enabled,
    state: status.state,
    ...(status.reason ? { error: status.reason } : {}),
    tools: manager.tools(status.name).map((tool) => ({ name: tool.name, description: tool.description })),
  });

  /** A server the manager does not run (yet): what mcp.json says of it. */
  const fileView = (entry: McpFileEntry): McpServerView => {
    const off = !options.settings().enabled;
    const state = entry.error ? 'invalid' : !entry.enabled || off ? 'disabled' : 'stopped';
    const error = entry.error ?? (off ? MCP_OFF : undefined);
    return { name: entry.name, enabled: entry.enabled, state, ...(error ? { error } : {}), tools: [] };
  };

  const list = (): { servers: McpServerView[]; fileError?: string } => {
    const live = new Map(manager.status().map((status) => [status.name, status]));
    const file = fileEntries();
    if ('fileError' in file)
      return { servers: [...live.values()].map((status) => liveView(status)), fileError: file.fileError };
    return {
      servers: file.entries.map((entry) => {
        const status = live.get(entry.name);
        return status ? liveView(status, entry.enabled) : fileView(entry);
      }),
    };
  };

  app.get('/api/mcp', (c) => c.json(list() satisfies Api.McpList));

  const toggle = (c: Context, enabled: boolean) => {
    const name = c.req.param('name') ?? '';
    let written: Record<string, unknown> | undefined;
    try {
      written = setMcpServerEnabled(manager.file, name, enabled);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      return c.json(problem('conflict', `${error.message}; nothing was changed`), 409);
    }
    if (!written) {
      const what = enabled ? 'MCP server or preset' : 'MCP server';
      return c.json(problem('not_found', `There is no ${what} named "${name}" in mcp.json.`), 404);
    }
    const live = options.settings().hotReload;
    if (live) manager.reload();
    const server = list().servers.find((candidate) => candidate.name === name);
    const note = live
      ? undefined
      : 'mcp.hot_reload is false in config.yaml: the change applies at the next start';
    return c.json({ server, ...(note ? { note } : {}) } satisfies Api.McpToggled);
  };

  app.post('/api/mcp/:name/enable', (c) => toggle(c, true));
  app.post('/api/mcp/:name/disable', (c) => toggle(c, false));
  return app;
}
