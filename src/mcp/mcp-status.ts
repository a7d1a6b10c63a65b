import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** What Wren knows about one configured MCP server right now. */
export interface McpServerStatus {
  name: string;
  enabled: boolean;
  /** `held`: the tool definitions changed and wait for `wren mcp approve`; `invalid`: the entry has an error. */
  state: 'disabled' | 'connecting' | 'ready' | 'failed' | 'held' | 'invalid' | 'stopped';
  /** The state as users read it: `ready`, `connecting`, `failed: reason`, `held: reason`. */
  display: string;
  reason?: string;
  transport: string;
  /** The command line (or URL) as written in mcp.json, placeholders intact. */
  launch: string;
  /** Tool names registered for the model. */
  tools: string[];
  pid?: number;
  restarts: number;
  /** When the state last changed (Unix ms). */
  since: number;
  /** stderr log of a stdio server. */
  logFile?: string;
}

/** The status file a running manager keeps for `wren mcp list` and `wren status`. */
export interface McpStatusFile {
  pid: number;
  updatedAt: number;
  servers: McpServerStatus[];
}

/** Where a manager running on `home` writes its status. */
export function mcpStatusPath(home: string): string {
  return join(home, 'logs', 'mcp', 'status.json');
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The live status written by a running Wren on `home`, or undefined when none runs. Never throws. */
export function readMcpStatus(home: string): McpStatusFile | undefined {
  try {
    const status = JSON.parse(readFileSync(mcpStatusPath(home), 'utf8')) as McpStatusFile;
    return typeof status.pid === 'number' && alive(status.pid) ? status : undefined;
  } catch {
    return undefined;
  }
}

/** One line per server, e.g. `memory  ready  9 tools  npx -y @modelcontextprotocol/server-memory`. */
export function formatMcpStatus(servers: readonly McpServerStatus[]): string[] {
  if (servers.length === 0)
    return ['no MCP servers configured: see `wren mcp presets` and `wren mcp enable NAME`'];
  const width = Math.max(...servers.map((server) => server.name.length)) + 2;
  return servers.map(
    (server) =>
      `${server.name.padEnd(width)}${server.display}${server.state === 'ready' ? ` (${server.tools.length} tools)` : ''}  ${server.launch}`,
  );
}
