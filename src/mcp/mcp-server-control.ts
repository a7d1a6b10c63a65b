import type { Tool } from '../agent/tool.js';
import type { McpConnection } from './mcp-connection.js';
import type { McpFileEntry } from './mcp-file.js';
import type { McpServerStatus } from './mcp-status.js';

/** What the `mcp_server` tool needs of the MCP side: read the servers, edit mcp.json and reload it. */
export interface McpServerControl {
  readonly file: string;
  status(): McpServerStatus[];
  /** Re-reads mcp.json now: added servers start, removed ones stop, changed ones restart. Never throws. */
  reload(): void;
  /** The live connection of a server, when it is enabled. */
  connection(name: string): McpConnection | undefined;
  /** The mcp.json entry of a server as written. */
  entry(name: string): McpFileEntry | undefined;
  /** The tools registered for a server (empty unless it is ready and not held). */
  tools(name: string): Tool[];
}
