import type { ChannelsConfig } from '../channels/channels-config.js';
import type { GateConfig } from '../gate/gate-config.js';
import type { CopilotAuth, Protocol } from '../llm/endpoint.js';
import type { McpSettings } from '../mcp/mcp-config.js';
import type { MemoryConfig } from '../memory/memory-config.js';
import type { ProactiveConfig } from '../proactive/proactive-config.js';
import type { ToolsConfig } from '../tools/tools-config.js';
import type { WebConfig } from '../tools/web-config.js';
import type { BriefingConfig } from './briefing-config.js';
import type { CalendarConfig } from './calendar-config.js';
import type { LOG_LEVELS } from './config-schema.js';
import type { HooksConfig } from './hooks-config.js';
import type { MailWatchAccount } from './mail-watch-config.js';
import type { BackupConfig, RetentionConfig } from './operations-config.js';

/**
 * The validated configuration. Keys are camelCase (config.yaml's snake_case `max_rounds` is `maxRounds`
 * here), presets are applied, `${VAR}`s are resolved and paths are absolute. Instances returned by
 * `loadConfig` are deep-frozen: assigning to any field throws a TypeError.
 */
export interface WrenConfig {
  /** Absolute path of the Wren home folder. */
  readonly home: string;
  /** Absolute path of the config file the values came from (it may not exist: then all are defaults). */
  readonly file: string;
  readonly models: readonly ModelConfig[];
  readonly gateway: GatewayConfig;
  readonly agent: AgentConfig;
  /** Absolute path of the workspace folder (default `<home>/workspace`). */
  readonly workspace: string;
  /** The gateway's log file: level, and size-based rotation (`maxBytes` per file, `keep` rotated files). */
  readonly log: { readonly level: LogLevel; readonly maxBytes: number; readonly keep: number };
  /** File roots beyond the workspace and the shell tool's settings. */
  readonly tools: ToolsConfig;
  /** Tool-call policy: mode, rules, grants' defaults, secrets. */
  readonly gate: GateConfig;
  /** web_fetch, web_search and weather. */
  readonly web: WebConfig;
  /** Consolidation into MEMORY.md/HISTORY.md, memos, tasks, skills. */
  readonly memory: MemoryConfig;
  /** MCP client settings (the servers themselves live in mcp.json). */
  readonly mcp: McpSettings;
  /** The scheduler: reminders, cron jobs, heartbeat, goals; quiet hours, delivery targets. */
  readonly proactive: ProactiveConfig;
  /** Chat platforms (`channels.telegram` …): tokens, who may talk, progress display. */
  readonly channels: ChannelsConfig;
  /** Scheduled backups of the home. */
  readonly backup: BackupConfig;
  /** How long old rows are kept before pruning. */
  readonly retention: RetentionConfig;
  /** The morning briefing (off until `at` is set). */
  readonly briefing: BriefingConfig;
  /** The owner's own mailboxes watched for mail worth a summary (`mail_watch:`). */
  readonly mailWatch: readonly MailWatchAccount[];
  /** Calendars (CalDAV accounts, ICS subscriptions) synced into the store; "before" triggers. */
  readonly calendars: readonly CalendarConfig[];
  /** Inbound webhooks (`POST /hooks/<name>`), by name. */
  readonly hooks: HooksConfig;
}

export type LogLevel = (typeof LOG_LEVELS)[number];

/** One `models:` entry with its provider preset applied. */
export interface ModelConfig {
  readonly name: string;
  /** The preset named by `provider:`, when one was. */
  readonly provider?: string;
  readonly protocol: Protocol;
  /** Without trailing slash. */
  readonly baseUrl: string;
  /** Resolved secret (from `api_key` or the preset's environment variable); never log it. */
  readonly apiKey?: string;
  /** The environment variable the key was read from, when it came from a preset (for `wren doctor`). */
  readonly apiKeyEnv?: string;
  readonly model: string;
  readonly tags: readonly string[];
  readonly priority: number;
  readonly contextWindow: number;
  readonly maxOutputTokens: number;
  readonly enabled: boolean;
  readonly headers?: Readonly<Record<string, string>>;
  /** Per-request deadline in seconds, as written in config.yaml. */
  readonly timeoutSeconds: number;
  readonly vision: boolean;
  /** For `provider: copilot`: where the GitHub token (`apiKey`) is exchanged for Copilot API tokens. */
  readonly copilot?: Readonly<CopilotAuth>;
}

export interface GatewayConfig {
  readonly host: string;
  readonly port: number;
  /** Resolved bearer token, when configured. */
  readonly token?: string;
  /** Extra host names requests may name in Host/Origin (DNS-rebinding guard). */
  readonly allowedHosts: readonly string[];
  /** The OpenAI-compatible endpoint (`/v1/chat/completions`). */
  readonly openaiCompat: { readonly approvals: 'deny' | 'wait' };
}

/** Limits on background subagents (`agent.subagents`). */
export interface SubagentLimits {
  readonly maxDepth: number;
  readonly perSession: number;
  readonly perSessionHourly: number;
  readonly maxQueued: number;
  readonly maxConcurrent: number;
  readonly maxRounds: number;
}

export interface AgentConfig {
  readonly maxRounds: number;
  readonly maxConcurrency: number;
  readonly maxParallelTools: number;
  readonly subagents: SubagentLimits;
  readonly maxToolResultChars: number;
  readonly repeatLimit: number;
  readonly historyReserveTokens: number;
  /** IANA time zone; the system's when not configured. */
  readonly timezone: string;
}
