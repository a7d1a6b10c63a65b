/**
 * Groups of on-demand tools (one MCP server's tools listed as one catalogue entry) are part of the shared
 * ToolRegistry; this name stays for the MCP code that speaks of "grouped" registries.
 */
export { GROUPS_HEADING, ToolRegistry as GroupedToolRegistry } from '../agent/tool-registry.js';
