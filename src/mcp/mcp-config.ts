import * as z from 'zod';
import type { Risk } from '../agent/tool.js';
import { fromString } from '../util/from-string.js';

const seconds = z.preprocess(fromString, z.number().positive());
const flag = z.preprocess(fromString, z.boolean());

/**
 * The `mcp:` section of config.yaml (snake_case, strict). The servers themselves live in `WREN_HOME/mcp.json`.
 * Times are in seconds.
 */
export const mcpSectionSchema = z.strictObject({
  /** Start the servers of mcp.json at all. */
  enabled: flag.default(true),
  /** Default tool-call timeout when a server sets none. */
  call_timeout: seconds.default(30),
  /** How long a server may take to answer `initialize` and list its tools. */
  connect_timeout: seconds.default(30),
  /** First reconnect delay after a crash or a failed start; doubles per failure (with jitter). */
  reconnect_initial: seconds.default(1),
  /** Longest reconnect delay. */
  reconnect_max: seconds.default(300),
  /** Apply edits of mcp.json while Wren runs. */
  hot_reload: flag.default(true),
});

export type ParsedMcpSection = z.output<typeof mcpSectionSchema>;

/** The MCP settings, camelCase, times in milliseconds. */
export interface McpSettings {
  enabled: boolean;
  callTimeoutMs: number;
  connectTimeoutMs: number;
  reconnectInitialMs: number;
  reconnectMaxMs: number;
  hotReload: boolean;
}

/** Pure mapping of the parsed `mcp:` section to {@link McpSettings}. */
export function toMcpConfig(parsed: ParsedMcpSection): McpSettings {
  return {
    enabled: parsed.enabled,
    callTimeoutMs: Math.round(parsed.call_timeout * 1000),
    connectTimeoutMs: Math.round(parsed.connect_timeout * 1000),
    reconnectInitialMs: Math.round(parsed.reconnect_initial * 1000),
    reconnectMaxMs: Math.round(parsed.reconnect_max * 1000),
    hotReload: parsed.hot_reload,
  };
}

/** The defaults, for callers without a config.yaml section. */
export const DEFAULT_MCP_SETTINGS: McpSettings = toMcpConfig(mcpSectionSchema.parse({}));

export const RISKS = ['safe', 'moderate', 'sensitive', 'dangerous'] as const satisfies readonly Risk[];

/** Server names: what other clients accept, minus characters that would not survive in a tool name. */
export const SERVER_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,47}$/;

const toolFilter = z.strictObject({
  /** Only these tools (globs such as `read_*`); all when omitted. */
  allow: z.array(z.string().min(1)).optional(),
  /** Never these tools (globs). */
  deny: z.array(z.string().min(1)).default([]),
});

/**
 * One `mcpServers` entry of mcp.json, after `${VAR}` interpolation. stdio servers have `command` (+ `args`,
 * `env`, `cwd`); remote ones `url` (+ `headers`), streamable HTTP with an SSE fallback unless `type` says which.
 * `disabled` (Cline's spelling) is accepted as the inverse of `enabled`.
 */
export const mcpServerSchema = z
  .strictObject({
    type: z.enum(['stdio', 'http', 'streamable-http', 'sse']).optional(),
    command: z.string().trim().min(1).optional(),
    args: z.array(z.string()).default([]),
    env: z.record(z.string(), z.string()).default({}),
    cwd: z.string().min(1).optional(),
    url: z
      .string()
      .trim()
      .refine((text) => /^https?:\/\/[^\s/]+/.test(text) && URL.canParse(text), {
        message: 'must be an http(s) URL such as http://127.0.0.1:3001/mcp',
      })
      .optional(),
    headers: z.record(z.string(), z.string()).default({}),
    enabled: flag.optional(),
    disabled: flag.optional(),
    /** Seconds per tool call. */
    timeout: seconds.optional(),
    tools: toolFilter.optional(),
    risk: z.enum(RISKS).default('sensitive'),
    /** Send this server's tool schemas in every request instead of on demand. */
    always: flag.default(false),
    /**
     * Whether calls may carry data off the machine (default true: a remote service). The gate asks before a
     * tainted session calls an egress server; set false for purely local servers (filesystem, time).
     */
    egress: flag.default(true),
    /** One line for the model's list of servers (default: the server's own name and tool names). */
    description: z.string().trim().max(200).optional(),
  })
  .superRefine((entry, ctx) => {
    if (!entry.command === !entry.url) {
      ctx.addIssue({
        code: 'custom',
        path: [],
        message: 'needs either "command" (a program to start) or "url" (a remote server), not both',
      });
    }
    if (entry.url && entry.type === 'stdio') {
      ctx.addIssue({ code: 'custom', path: ['type'], message: '"stdio" needs "command", not "url"' });
    }
    if (entry.command && entry.type && entry.type !== 'stdio') {
      ctx.addIssue({ code: 'custom', path: ['type'], message: `"${entry.type}" needs "url", not "command"` });
    }
  });

export type ParsedMcpServer = z.output<typeof mcpServerSchema>;

/** A server as the manager runs it (camelCase, times in milliseconds). */
export interface McpServerConfig {
  name: string;
  transport: 'stdio' | 'http' | 'sse' | 'http-or-sse';
  command?: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  url?: string;
  headers: Record<string, string>;
  enabled: boolean;
  callTimeoutMs: number;
  allow?: string[];
  deny: string[];
  risk: Risk;
  always: boolean;
  egress: boolean;
  description?: string;
}

/** Pure mapping of one parsed entry to {@link McpServerConfig}. */
export function toMcpServerConfig(
  name: string,
  parsed: ParsedMcpServer,
  settings: Pick<McpSettings, 'callTimeoutMs'>,
): McpServerConfig {
  const transport = parsed.command
    ? 'stdio'
    : parsed.type === 'sse'
      ? 'sse'
      : parsed.type === 'http' || parsed.type === 'streamable-http'
        ? 'http'
        : 'http-or-sse';
  return {
    name,
    transport,
    ...(parsed.command ? { command: parsed.command } : {}),
    args: parsed.args,
    env: parsed.env,
    ...(parsed.cwd ? { cwd: parsed.cwd } : {}),
    ...(parsed.url ? { url: parsed.url } : {}),
    headers: parsed.headers,
    enabled: parsed.disabled === true ? false : (parsed.enabled ?? true),
    callTimeoutMs: parsed.timeout ? Math.round(parsed.timeout * 1000) : settings.callTimeoutMs,
    ...(parsed.tools?.allow ? { allow: parsed.tools.allow } : {}),
    deny: parsed.tools?.deny ?? [],
    risk: parsed.risk,
    always: parsed.always,
    egress: parsed.egress,
    ...(parsed.description ? { description: parsed.description } : {}),
  };
}
