import { z } from 'zod';
import { type Tool, type ToolAssessment, ToolError } from '../agent/tool.js';
import { toolSchema } from '../agent/tool-schema.js';
import { SERVER_NAME } from './mcp-config.js';
import { describeLaunch, updateMcpServers } from './mcp-file.js';
import { findPreset } from './mcp-presets.js';
import type { McpServerControl } from './mcp-server-control.js';
import { formatMcpStatus } from './mcp-status.js';

export const MCP_SERVER = 'mcp_server';

const ACTIONS = [
  'list',
  'list_tools',
  'list_resources',
  'list_prompts',
  'read_resource',
  'add',
  'remove',
  'enable',
  'disable',
] as const;

const parameters = z
  .object({
    action: z.enum(ACTIONS),
    name: z.string().optional().describe('Server name (all actions but list)'),
    uri: z
      .string()
      .optional()
      .describe('read_resource: the resource URI (from list_resources or a resource link)'),
    command: z
      .string()
      .optional()
      .describe('add: program to start, e.g. "npx" (or a whole command line when args is omitted)'),
    args: z.array(z.string()).optional().describe('add: program arguments'),
    url: z
      .string()
      .optional()
      .describe('add: URL of a remote (streamable HTTP or SSE) server instead of a command'),
    env: z
      .record(z.string(), z.string())
      .optional()
      .describe('add: environment for the program; write secrets as ${VAR} placeholders, never literally'),
  })
  .strict();

type Args = z.infer<typeof parameters>;

/** Splits a command line on spaces, honouring '…' and "…" quoting (no other shell syntax). */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  const pattern = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g;
  for (const match of line.matchAll(pattern)) {
    words.push(match[1] !== undefined ? match[1].replace(/\\(.)/g, '$1') : (match[2] ?? match[3]!));
  }
  return words;
}

/** The mcp.json entry an `add` call would write. */
function entryFor(args: Args): Record<string, unknown> {
  if (args.url) return { url: args.url };
  const words = args.args ? [args.command ?? '', ...args.args] : splitCommandLine(args.command ?? '');
  return {
    command: words[0] ?? '',
    args: words.slice(1),
    ...(args.env && Object.keys(args.env).length ? { env: args.env } : {}),
  };
}

function requireName(args: Args): string {
  if (!args.name) throw new ToolError(`mcp_server ${args.action} needs "name".`);
  return args.name;
}

function launchSignature(entry: Record<string, unknown>): string {
  return typeof entry['url'] === 'string'
    ? `connects to an MCP server: ${entry['url']}`
    : `starts a program: ${describeLaunch(entry)}`;
}

/**
 * The `mcp_server` tool: list servers and their tools, resources and prompts; add, remove, enable and disable
 * servers (written back to mcp.json with `${VAR}` placeholders intact, applied at once). Adding or enabling a
 * server starts a program or opens a connection: `assess` reports the exact, untruncated command line as a
 * danger signature, so the gate asks the owner.
 */
export function createMcpServerTool(manager: McpServerControl): Tool {
  const rawEntry = (name: string) => manager.entry(name)?.raw ?? findPreset(name)?.entry;
  return {
    name: MCP_SERVER,
    description:
      "Manage MCP servers (external tool providers): list them, list a server's tools/resources/prompts, add, remove, enable or disable one.",
    parameters: toolSchema(parameters),
    risk: 'moderate',
    assess(raw): ToolAssessment {
      const args = raw as Args;
      const target = args.name ? { target: args.name } : {};
      if (args.action === 'add') return { ...target, signatures: [launchSignature(entryFor(args))] };
      if (args.action === 'enable' && args.name) {
        const entry = rawEntry(args.name);
        if (entry) return { ...target, signatures: [launchSignature(entry)] };
      }
      return target;
    },
    async execute(raw, _ctx, signal) {
      const args = parameters.parse(raw);
      switch (args.action) {
        case 'list':
          return { content: formatMcpStatus(manager.status()).join('\n') };
        case 'list_tools':
          return listTools(manager, requireName(args));
        case 'list_resources': {
          const name = requireName(args);
          const page = await connected(manager, name).listResources(signal);
          const lines = page.resources.map((item) => `${item.uri}${item.name ? ` — ${item.name}` : ''}`);
          return { content: lines.join('\n') || `${name} lists no resources.`, taint: 'untrusted' };
        }
        case 'list_prompts': {
          const name = requireName(args);
          const page = await connected(manager, name).listPrompts(signal);
          const lines = page.prompts.map(
            (item) => `${item.name}${item.description ? `: ${item.description}` : ''}`,
          );
          return { content: lines.join('\n') || `${name} offers no prompts.`, taint: 'untrusted' };
        }
        case 'read_resource':
          return readResource(manager, requireName(args), args.uri, signal);
        case 'add':
          return add(manager, args);
        case 'remove':
          return edit(manager, requireName(args), 'remove');
        case 'enable':
          return edit(manager, requireName(args), 'enable');
        case 'disable':
          return edit(manager, requireName(args), 'disable');
      }
    },
  };
}

function connected(manager: McpServerControl, name: string) {
  const connection = manager.connection(name);
  if (!connection) {
    const known = manager.status().map((server) => server.name);
    throw new ToolError(
      manager.entry(name)
        ? `MCP server "${name}" is disabled; enable it first.`
        : `No MCP server "${name}". Configured: ${known.join(', ') || 'none'}.`,
    );
  }
  return connection;
}

function listTools(manager: McpServerControl, name: string) {
  connected(manager, name);
  const status = manager.status().find((server) => server.name === name);
  if (status?.state !== 'ready') {
    throw new ToolError(
      `MCP server "${name}" is ${status?.display ?? 'not running'}; its tools are not available.`,
    );
  }
  const lines = manager.tools(name).map((tool) => {
    const line = tool.description.split(/(?<=\.)\s|\n/)[0]!.slice(0, 120);
    return `- ${tool.name}${line ? `: ${line}` : ''}`;
  });
  return {
    content: `${lines.join('\n')}\nActivate with use_tools (["${name}__*"] for all of them).`,
    taint: 'untrusted' as const,
  };
}

function add(manager: McpServerControl, args: Args) {
  const name = requireName(args);
  if (!SERVER_NAME.test(name)) {
    throw new ToolError('A server name may use letters, digits, "_", "-" and "." (at most 48 characters).');
  }
  if (!args.url && !args.command)
    throw new ToolError('mcp_server add needs "command" (with "args") or "url".');
  if (args.url && args.command) throw new ToolError('Give either "command" or "url", not both.');
  if (manager.entry(name)) throw new ToolError(`An MCP server "${name}" already exists; remove it first.`);
  const entry = entryFor(args);
  updateMcpServers(manager.file, (servers) => {
    servers[name] = entry;
  });
  manager.reload();
  return {
    content: `Added MCP server "${name}" (${describeLaunch(entry)}); it is starting. Check with list.`,
  };
}

function edit(manager: McpServerControl, name: string, action: 'remove' | 'enable' | 'disable') {
  const preset = findPreset(name);
  if (!manager.entry(name) && !(action === 'enable' && preset)) {
    const known = manager.status().map((server) => server.name);
    throw new ToolError(`No MCP server "${name}". Configured: ${known.join(', ') || 'none'}.`);
  }
  updateMcpServers(manager.file, (servers) => {
    if (action === 'remove') {
      delete servers[name];
      return;
    }
    const entry = servers[name] ?? { ...preset!.entry };
    delete entry['disabled'];
    servers[name] = { ...entry, enabled: action === 'enable' };
  });
  manager.reload();
  const done = { remove: 'Removed', enable: 'Enabled', disable: 'Disabled' }[action];
  return { content: `${done} MCP server "${name}".` };
}

/** `read_resource`: one resource of a connected server, text inline, binary described. */
async function readResource(
  manager: McpServerControl,
  name: string,
  uri: string | undefined,
  signal: AbortSignal,
) {
  if (!uri) throw new ToolError('mcp_server read_resource needs "uri".');
  const result = await connected(manager, name).readResource(uri, signal);
  const parts = result.contents.map((item) =>
    'text' in item && typeof item.text === 'string'
      ? item.text
      : `[${item.uri} (${item.mimeType ?? 'binary'}): binary content, not shown]`,
  );
  return {
    content: parts.join('\n') || '(empty resource)',
    details: { server: name, uri },
    taint: 'untrusted' as const,
  };
}
