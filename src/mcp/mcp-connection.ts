import { createWriteStream, renameSync, statSync, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { McpCallResult } from './map-call-result.js';

/** The SDK is loaded when the first server connects, so a Wren without MCP servers never pays for it. */
let sdk:
  | Promise<{
      Client: typeof import('@modelcontextprotocol/sdk/client/index.js').Client;
      SSEClientTransport: typeof import('@modelcontextprotocol/sdk/client/sse.js').SSEClientTransport;
      StdioClientTransport: typeof import('@modelcontextprotocol/sdk/client/stdio.js').StdioClientTransport;
      StreamableHTTPClientTransport: typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js').StreamableHTTPClientTransport;
      ToolListChangedNotificationSchema: typeof import('@modelcontextprotocol/sdk/types.js').ToolListChangedNotificationSchema;
    }>
  | undefined;
function loadSdk() {
  sdk ??= Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/sse.js'),
    import('@modelcontextprotocol/sdk/client/stdio.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]).then(([client, sse, stdio, http, types]) => ({
    Client: client.Client,
    SSEClientTransport: sse.SSEClientTransport,
    StdioClientTransport: stdio.StdioClientTransport,
    StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
    ToolListChangedNotificationSchema: types.ToolListChangedNotificationSchema,
  }));
  return sdk;
}

import type { McpServerConfig, McpSettings } from './mcp-config.js';

/** A tool as the server lists it. */
export interface McpToolDefinition {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

export type ConnectionState = 'connecting' | 'ready' | 'failed' | 'stopped';

export interface ConnectionOptions {
  settings: McpSettings;
  /** Folder of the per-server stderr logs (`<name>.log`). */
  logDir: string;
  /** Called on every state change and whenever the tool list changes (ready or not). */
  onChange(connection: McpConnection): void;
  clientVersion?: string;
  random?: () => number;
}

/** Environment variables a stdio server inherits besides the MCP SDK's (HOME, PATH, USER…): never secrets. */
const INHERITED = ['LANG', 'LC_ALL', 'TZ', 'TMPDIR'];
/** A stderr log larger than this is rotated to `<name>.log.1` when the server (re)starts. */
const LOG_ROTATE_BYTES = 1024 * 1024;
/** A connection that stayed up this long resets the backoff. */
const STABLE_MS = 30_000;

function minimalEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of INHERITED) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return { ...env, ...extra };
}

function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message
    .replace(/^MCP error -?\d+: /, '')
    .split('\n')[0]!
    .slice(0, 300);
}

/**
 * One MCP server: starts it (stdio process or remote connection), lists its tools, keeps it alive — a crash or
 * a failed start is retried with exponential backoff and jitter — and forwards calls. Never throws from
 * `start`/`stop`; state and the reason of the last failure are readable at any time.
 */
export class McpConnection {
  state: ConnectionState = 'connecting';
  reason: string | undefined;
  tools: McpToolDefinition[] = [];
  pid: number | undefined;
  /** Connections established after the first one. */
  restarts = 0;
  since = Date.now();
  private client: Client | undefined;
  private generation = 0;
  private failures = 0;
  private readyAt = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private opening: AbortController | undefined;
  private log: WriteStream | undefined;
  private stopped = false;
  private connectedOnce = false;

  constructor(
    readonly config: McpServerConfig,
    private readonly options: ConnectionOptions,
  ) {}

  /** The server's capabilities once connected (`resources`, `prompts`, `tools`…). */
  capabilities(): Record<string, unknown> {
    return (this.client?.getServerCapabilities() as Record<string, unknown> | undefined) ?? {};
  }

  /** The stderr log file of a stdio server. */
  logFile(): string {
    return join(this.options.logDir, `${this.config.name}.log`);
  }

  /** Begins connecting in the background; returns at once. */
  start(): void {
    this.stopped = false;
    void this.connect();
  }

  /** Closes the connection (a stdio server is ended: stdin closed, then SIGTERM, then SIGKILL). Idempotent. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.generation++;
    clearTimeout(this.retryTimer);
    this.opening?.abort(new Error('stopped'));
    const client = this.client;
    this.client = undefined;
    this.tools = [];
    this.setState('stopped', undefined);
    await client?.close().catch(() => {});
    this.log?.end();
    this.log = undefined;
  }

  private setState(state: ConnectionState, reason: string | undefined): void {
    this.state = state;
    this.reason = reason;
    this.since = Date.now();
    this.options.onChange(this);
  }

  private async connect(): Promise<void> {
    const attempt = ++this.generation;
    this.setState('connecting', this.reason);
    const controller = new AbortController();
    this.opening = controller;
    let client: Client | undefined;
    try {
      client = await this.open(controller.signal);
      if (attempt !== this.generation) {
        await client.close().catch(() => {});
        return;
      }
      const tools = await this.listTools(client, controller.signal);
      if (attempt !== this.generation) {
        await client.close().catch(() => {});
        return;
      }
      this.client = client;
      client.onclose = () => this.lost(attempt, client!);
      const { ToolListChangedNotificationSchema } = await loadSdk();
      client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
        if (attempt !== this.generation) return;
        try {
          this.tools = await this.listTools(client!, undefined);
          this.options.onChange(this);
        } catch {
          // A failed re-list keeps the previous tools; a dead connection is handled by onclose.
        }
      });
      this.tools = tools;
      this.readyAt = Date.now();
      if (this.connectedOnce) this.restarts++;
      this.connectedOnce = true;
      this.setState('ready', undefined);
    } catch (error) {
      if (attempt !== this.generation) return;
      await client?.close().catch(() => {});
      this.retry(`${reasonOf(error)}`);
    } finally {
      if (this.opening === controller) this.opening = undefined;
    }
  }

  private lost(attempt: number, client: Client): void {
    if (attempt !== this.generation || this.client !== client) return;
    this.client = undefined;
    this.tools = [];
    this.pid = undefined;
    if (Date.now() - this.readyAt >= STABLE_MS) this.failures = 0;
    this.retry(this.config.transport === 'stdio' ? 'the server process exited' : 'the connection was lost');
  }

  private retry(reason: string): void {
    if (this.stopped) return;
    const { reconnectInitialMs, reconnectMaxMs } = this.options.settings;
    const ceiling = Math.min(reconnectMaxMs, reconnectInitialMs * 2 ** Math.min(this.failures, 30));
    const delay = Math.round(ceiling / 2 + ((this.options.random ?? Math.random)() * ceiling) / 2);
    this.failures++;
    this.setState('failed', `${reason}; retrying in ${Math.max(1, Math.round(delay / 1000))} s`);
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => void this.connect(), delay);
    this.retryTimer.unref();
  }

  private async open(signal: AbortSignal): Promise<Client> {
    const { config } = this;
    const { Client, SSEClientTransport, StdioClientTransport, StreamableHTTPClientTransport } =
      await loadSdk();
    const timeout = this.options.settings.connectTimeoutMs;
    const make = () => new Client({ name: 'wren', version: this.options.clientVersion ?? '0.1.0' });
    if (config.transport === 'stdio') {
      const transport = new StdioClientTransport({
        command: config.command!,
        args: config.args,
        env: minimalEnv(config.env),
        stderr: 'pipe',
        ...(config.cwd ? { cwd: config.cwd } : {}),
      });
      transport.stderr?.pipe(this.openLog(), { end: false });
      const client = make();
      try {
        await client.connect(transport, { signal, timeout });
      } catch (error) {
        await transport.close().catch(() => {});
        throw error;
      }
      this.pid = transport.pid ?? undefined;
      return client;
    }
    const url = new URL(config.url!);
    const requestInit = { headers: config.headers };
    const attempt = async (transport: Transport) => {
      const client = make();
      try {
        await client.connect(transport, { signal, timeout });
        return client;
      } catch (error) {
        await transport.close().catch(() => {});
        throw error;
      }
    };
    if (config.transport === 'sse') return attempt(new SSEClientTransport(url, { requestInit }));
    try {
      return await attempt(new StreamableHTTPClientTransport(url, { requestInit }));
    } catch (error) {
      if (config.transport === 'http' || signal.aborted) throw error;
      try {
        return await attempt(new SSEClientTransport(url, { requestInit }));
      } catch {
        throw error;
      }
    }
  }

  private openLog(): WriteStream {
    if (!this.log) {
      const file = this.logFile();
      try {
        if (statSync(file).size > LOG_ROTATE_BYTES) renameSync(file, `${file}.1`);
      } catch {
        // No log yet.
      }
      this.log = createWriteStream(file, { flags: 'a', mode: 0o600 });
      this.log.on('error', () => {});
    }
    this.log.write(`--- ${new Date().toISOString()} starting ${this.config.name}\n`);
    return this.log;
  }

  private async listTools(client: Client, signal: AbortSignal | undefined): Promise<McpToolDefinition[]> {
    if (!client.getServerCapabilities()?.tools) return [];
    const tools: McpToolDefinition[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : {}, {
        timeout: this.options.settings.connectTimeoutMs,
        ...(signal ? { signal } : {}),
      });
      tools.push(...(page.tools as McpToolDefinition[]));
      cursor = page.nextCursor;
    } while (cursor && tools.length < 10_000);
    return tools;
  }

  private requireClient(): Client {
    if (!this.client || this.state !== 'ready') {
      throw new Error(
        `MCP server "${this.config.name}" is not connected (${this.state}${this.reason ? `: ${this.reason}` : ''}); try again later`,
      );
    }
    return this.client;
  }

  /**
   * Calls a tool with the server's timeout and the caller's signal (an abort cancels the request on the server).
   * @throws Error with a message for the model when the server is down, the call times out, or the server
   * dies during the call (it is then restarted in the background).
   */
  async callTool(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<McpCallResult> {
    const client = this.requireClient();
    try {
      return (await client.callTool({ name, arguments: args }, undefined, {
        timeout: this.config.callTimeoutMs,
        ...(signal ? { signal } : {}),
      })) as McpCallResult;
    } catch (error) {
      if (signal?.aborted) throw error;
      const reason = reasonOf(error);
      if (/connection closed/i.test(reason)) {
        throw new Error(
          `MCP server "${this.config.name}" stopped during the call; it is being restarted. Try again in a moment.`,
        );
      }
      if (/timed out/i.test(reason)) {
        throw new Error(
          `MCP server "${this.config.name}" did not answer within ${this.config.callTimeoutMs / 1000} s (its "timeout" in mcp.json).`,
        );
      }
      throw new Error(reason);
    }
  }

  /** `resources/read`. @throws like {@link callTool}. */
  async readResource(uri: string, signal?: AbortSignal) {
    return this.requireClient().readResource(
      { uri },
      {
        timeout: this.config.callTimeoutMs,
        ...(signal ? { signal } : {}),
      },
    );
  }

  /** `resources/list` (first page). */
  async listResources(signal?: AbortSignal) {
    return this.requireClient().listResources(
      {},
      {
        timeout: this.config.callTimeoutMs,
        ...(signal ? { signal } : {}),
      },
    );
  }

  /** `prompts/list` (first page). */
  async listPrompts(signal?: AbortSignal) {
    return this.requireClient().listPrompts(
      {},
      {
        timeout: this.config.callTimeoutMs,
        ...(signal ? { signal } : {}),
      },
    );
  }
}
