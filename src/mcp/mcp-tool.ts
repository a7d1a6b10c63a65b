import type { Tool } from '../agent/tool.js';
import type { JsonSchema } from '../llm/types.js';
import { resolveVault, takeVaultOpener } from '../vault/vault-references.js';
import { mapCallResult } from './map-call-result.js';
import type { McpConnection, McpToolDefinition } from './mcp-connection.js';
import { mcpToolName } from './mcp-tool-name.js';

/** Descriptions longer than this are cut: they are sent to the model and cost tokens. */
const MAX_DESCRIPTION = 1500;

/** The server's input schema as a tool's parameters: always an object schema (ajv validates against it). */
function parametersOf(definition: McpToolDefinition): JsonSchema {
  const schema =
    definition.inputSchema && typeof definition.inputSchema === 'object' ? definition.inputSchema : {};
  return { ...schema, type: 'object', ...(schema['properties'] ? {} : { properties: {} }) };
}

/**
 * Wraps one MCP server tool into Wren's tool contract: named `<server>__<tool>`, on demand unless the server
 * is `always`, the server's risk, arguments validated by the registry against the server's JSON Schema,
 * results mapped by {@link mapCallResult} (always `untrusted`), `isError` results returned as errors.
 */
export function createMcpTool(options: {
  connection: McpConnection;
  definition: McpToolDefinition;
  taken: (name: string) => boolean;
}): Tool {
  const { connection, definition } = options;
  const { config } = connection;
  const text =
    definition.description?.trim() || definition.title || `${definition.name} (MCP server ${config.name})`;
  return {
    name: mcpToolName(config.name, definition.name, options.taken),
    description: text.length > MAX_DESCRIPTION ? `${text.slice(0, MAX_DESCRIPTION - 1)}…` : text,
    parameters: parametersOf(definition),
    risk: config.risk,
    core: config.always,
    assess: () => ({ target: config.name, ...(config.egress ? { egress: { target: config.name } } : {}) }),
    vaultTarget: 'mcp',
    async execute(args, _ctx, signal) {
      // `{{vault:NAME}}` is resolved only here, in the copy sent to the server, after the gate decided.
      const sent = resolveVault(args, takeVaultOpener(args));
      const result = await connection.callTool(definition.name, sent, signal);
      return mapCallResult(config.name, definition.name, result);
    },
  };
}
