import type { AgentRuntime } from '../agent/agent-runtime.js';
import type { ToolRegistry } from '../agent/tool-registry.js';
import type { MessageBus } from '../bus/message-bus.js';
import type { ChannelManager } from '../channels/channel-manager.js';
import type { PlatformDrivers } from '../channels/platform-descriptor.js';
import type { WrenConfig } from '../config/wren-config.js';
import type { Gate } from '../gate/create-gate.js';
import type { EndpointConfig } from '../llm/endpoint.js';
import type { EndpointPool } from '../llm/endpoint-pool.js';
import type { ChatModel } from '../llm/types.js';
import type { McpManager } from '../mcp/mcp-manager.js';
import type { Memory } from '../memory/create-memory.js';
import type { Proactive } from '../proactive/create-proactive.js';
import type { BackupService } from '../services/backup-service.js';
import type { OwnerServices } from '../services/owner-services.js';
import type { CalendarStore, ConversationStore, SettingsStore } from '../store/ports.js';
import type { TriggerEvent } from '../store/trigger-repository.js';
import type { SubagentManager } from '../tools/spawn/subagent-manager.js';
import type { Logger } from '../util/logger.js';

export interface AppOptions {
  home: string;
  env?: NodeJS.ProcessEnv;
  /** Default: the home's JSON-lines log (`logs/wren.log`), redacted with the gate's redactor. */
  logger?: Logger;
  /** Take the home lock (the long-running `wren start`); a second holder is refused. */
  lock?: boolean;
  /** Watch config.yaml and apply edits live. */
  watch?: boolean;
  /**
   * When config.yaml names no model: probe 127.0.0.1 for a local model server (Ollama, LM Studio,
   * llama.cpp, vLLM) and use the first that answers (default true).
   */
  probeLocalModels?: boolean;
  /** Endpoints to use when config.yaml names none, instead of probing (tests). */
  fallbackEndpoints?: EndpointConfig[];
  /** A model to use instead of the endpoint pool (benchmarks, tests). */
  model?: ChatModel;
  /**
   * Whether this process runs the home's scheduler: `run` (wren start: takes `scheduler.lock`, waiting for
   * a `wren chat` that holds it), `try` (wren chat alone: runs it when nobody else does), `off` (default).
   */
  scheduler?: 'run' | 'try' | 'off';
  /** Run the chat platforms config.yaml enables (`wren start`); default false. */
  channels?: boolean;
  /** Stand-ins for platform protocols that cannot be served on loopback (tests: WhatsApp's socket). */
  platformDrivers?: PlatformDrivers;
}

export interface WrenApp {
  readonly home: string;
  /** The environment `${VAR}`s and the gateway token come from. */
  readonly env: NodeJS.ProcessEnv;
  readonly bus: MessageBus;
  /** The faces running in this process (terminal, HTTP API, chat platforms) and their state. */
  readonly channels: ChannelManager;
  readonly runtime: AgentRuntime;
  /** Every tool the model can get (built-in, memory, spawn, messaging, MCP). */
  readonly registry: ToolRegistry;
  readonly pool: EndpointPool;
  readonly sessions: ConversationStore;
  readonly settings: SettingsStore;
  /** The synced calendars' occurrences and sync state (the Agenda page and Settings read them). */
  readonly calendars: Pick<CalendarStore, 'between' | 'state'>;
  /** The owner's actions on their data (memos, tasks, reminders, goals, pairings …), as every face takes them. */
  readonly services: OwnerServices;
  /** Archives of the home: `wren backup`'s service over this app's stores (scheduled backups, the Settings download). */
  readonly backups: BackupService;
  readonly gate: Gate;
  readonly memory: Memory;
  readonly mcp: McpManager;
  readonly subagents: SubagentManager;
  /** Reminders, the outbox and feed, and the scheduler (running in this process or not). */
  readonly proactive: Proactive;
  readonly logger: Logger;
  readonly startedAt: number;
  /** The configuration in force (changes on a valid live edit). */
  config(): WrenConfig;
  /** Folders file tools (and downloads) may reach: the workspace first. */
  fileRoots(): string[];
  /** Endpoints in force, config's or the fallback. */
  endpoints(): EndpointConfig[];
  /** Set when no model is configured: the local server in use, or how to add a model. */
  readonly modelNote?: string;
  /** Home paths that were made private (0700/0600) while opening: say so once. */
  readonly madePrivate: readonly string[];
  /** What opening the database upgraded: where the old one was copied, from which schema to which (say so once). */
  readonly upgraded: readonly string[];
  /** Why the last edit of config.yaml was rejected (the previous config stays in force); undefined when fine. */
  configError(): string | undefined;
  /** What `wren status` and `GET /api/status` show of this process. */
  status(version: string): Record<string, unknown>;
  /** When the scheduler next wakes (ms), or undefined when nothing is scheduled or it runs elsewhere. */
  nextDue(): number | undefined;
  /** Stores an outside event (a webhook delivery …) to run once under its UNIQUE key; false when seen before. */
  recordTrigger(event: Omit<TriggerEvent, 'id'>): boolean;
  /**
   * Resolves once no MCP server is still connecting (each is ready, failed or held), or after `maxMs`,
   * with the names still connecting then. A one-shot run waits for this so its turn sees the servers'
   * tools as the gateway's turns do.
   */
  mcpSettled(maxMs: number): Promise<string[]>;
  /** Serves the HTTP API (see serveAppGateway); `close` stops it. */
  serve(options: ServeOptions): Promise<ServedGateway>;
  /** Drains turns for up to `graceMs`, then closes the watcher, the database and the lock. Idempotent. */
  close(graceMs?: number): Promise<void>;
}

export interface ServeOptions {
  host?: string;
  port?: number;
  version: string;
  /** The built web app's folder (default: dist/web); `false` serves the API only. */
  webRoot?: string | false;
}

/** The gateway of a running app. */
export interface ServedGateway {
  url: string;
  port: number;
  /** Set when a token was generated now: show it to the owner once (only its hash is stored). */
  generatedToken?: string;
  /** A one-time link that signs a browser in (valid 10 minutes, once), for `wren start` to print. */
  signInLink(): string;
  /** Stops listening and removes `gateway.json`. Idempotent. */
  close(): Promise<void>;
}
