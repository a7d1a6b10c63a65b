import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { type Document, parseDocument } from 'yaml';
import { toChannelsConfig } from '../channels/channels-config.js';
import { toGateConfig } from '../gate/gate-config.js';
import { toMcpConfig } from '../mcp/mcp-config.js';
import { toMemoryConfig } from '../memory/memory-config.js';
import { toProactiveConfig } from '../proactive/proactive-config.js';
import { toToolsConfig } from '../tools/tools-config.js';
import { toWebConfig } from '../tools/web-config.js';
import { ConfigError } from '../util/config-error.js';
import { configErrorFrom, issuesFromZod } from '../util/config-issues.js';
import { deepFreeze } from '../util/deep-freeze.js';
import { interpolate } from '../util/interpolate.js';
import { toBriefingConfig } from './briefing-config.js';
import { toCalendarsConfig } from './calendar-config.js';
import { configSchema, knownKeysAt } from './config-schema.js';
import { toHooksConfig } from './hooks-config.js';
import { toMailWatchConfig } from './mail-watch-config.js';
import { toBackupConfig, toRetentionConfig } from './operations-config.js';
import { defaultPresets, type PresetSource } from './preset-source.js';
import { resolveModels } from './resolve-models.js';
import type { WrenConfig } from './wren-config.js';

export interface ParseConfigOptions {
  /** Absolute path of the Wren home (relative paths in the config resolve against it). */
  home: string;
  /** Path of the file the text came from, used in every message. */
  file: string;
  /** Variables for `${VAR}`: the environment merged over `<home>/.env`. */
  env: Readonly<Record<string, string>>;
  presets?: PresetSource;
}

/** `~` and `~/x` expand to the user's home directory; relative paths resolve against the Wren home. */
export function expandPath(path: string, home: string): string {
  if (path === '~') return homedir();
  if (path.startsWith('~/')) return join(homedir(), path.slice(2));
  return resolve(home, path);
}

/**
 * Parses YAML text into a Document (comments kept, for editing).
 * @throws ConfigError `file:line:col: YAML syntax error at line L, column C: …` on the first syntax error.
 */
export function parseYamlDocument(text: string, file: string): Document {
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  const error = doc.errors[0];
  if (error) {
    const position = error.linePos?.[0];
    const where = position ? `${file}:${position.line}:${position.col}` : file;
    const what = error.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
    const line = position ? ` at line ${position.line}, column ${position.col}` : '';
    throw new ConfigError(`${where}: YAML syntax error${line}: ${what}; fix the file and try again`, {
      file,
      cause: error,
    });
  }
  return doc;
}

function isDisabledModel(raw: unknown, path: ReadonlyArray<string | number>): boolean {
  if (path[0] !== 'models' || typeof path[1] !== 'number') return false;
  const models = (raw as { models?: unknown }).models;
  const entry = Array.isArray(models) ? (models[path[1]] as { enabled?: unknown } | undefined) : undefined;
  return entry?.enabled === false || entry?.enabled === 'false';
}

function topLevel(raw: unknown, file: string): Record<string, unknown> {
  if (raw === null || raw === undefined) return {};
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    throw new ConfigError(
      `${file}: the top level must be a mapping of sections (models, gateway, agent, workspace, log, tools, gate, web, memory, mcp, proactive, channels, backup, retention)`,
      { file },
    );
  }
  // A section whose entries are all commented out (`models:` with nothing after it) counts as absent.
  return Object.fromEntries(Object.entries(raw).filter(([, value]) => value !== null));
}

function defaultTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/**
 * Parses and validates config text into a deep-frozen {@link WrenConfig}. Empty text means all defaults.
 * Pure apart from reading the system time zone and home directory.
 * @throws ConfigError with one message listing each problem as `file: key.path: what to do`; YAML syntax
 * errors carry the line and column.
 */
export function parseConfig(text: string, options: ParseConfigOptions): WrenConfig {
  const { file, home, env } = options;
  const envFile = join(home, '.env');
  const raw = topLevel(parseYamlDocument(text, file).toJS(), file);
  const lenient = (path: ReadonlyArray<string | number>) => isDisabledModel(raw, path);
  const interpolated = interpolate(raw, { env, file, envFile, lenient });
  const parsed = configSchema.safeParse(interpolated);
  if (!parsed.success)
    throw configErrorFrom(
      file,
      issuesFromZod(parsed.error, interpolated, (path) => knownKeysAt(path)),
    );
  const data = parsed.data;
  const { models, issues } = resolveModels(data.models, {
    env,
    envFile,
    presets: options.presets ?? defaultPresets,
  });
  if (issues.length > 0) throw configErrorFrom(file, issues);
  const agent = data.agent;
  return deepFreeze({
    home,
    file,
    models,
    gateway: {
      host: data.gateway.host,
      port: data.gateway.port,
      allowedHosts: data.gateway.allowed_hosts,
      openaiCompat: { approvals: data.gateway.openai_compat.approvals },
      ...(data.gateway.token ? { token: data.gateway.token } : {}),
    },
    agent: {
      maxRounds: agent.max_rounds,
      maxConcurrency: agent.max_concurrency,
      maxParallelTools: agent.max_parallel_tools,
      subagents: {
        maxDepth: agent.subagents.max_depth,
        perSession: agent.subagents.per_session,
        perSessionHourly: agent.subagents.per_session_hourly,
        maxQueued: agent.subagents.max_queued,
        maxConcurrent: agent.subagents.max_concurrent,
        maxRounds: agent.subagents.max_rounds,
      },
      maxToolResultChars: agent.max_tool_result_chars,
      repeatLimit: agent.repeat_limit,
      historyReserveTokens: agent.history_reserve_tokens,
      timezone: agent.timezone ?? defaultTimeZone(),
    },
    workspace: expandPath(data.workspace ?? 'workspace', home),
    log: { level: data.log.level, maxBytes: data.log.max_size_mb * 1024 * 1024, keep: data.log.keep },
    tools: toToolsConfig(data.tools, homedir()),
    gate: toGateConfig(data.gate),
    web: toWebConfig(data.web),
    memory: toMemoryConfig(data.memory),
    mcp: toMcpConfig(data.mcp),
    proactive: toProactiveConfig(data.proactive),
    channels: toChannelsConfig(data.channels),
    backup: toBackupConfig(data.backup, (path) => expandPath(path, home)),
    retention: toRetentionConfig(data.retention),
    briefing: toBriefingConfig(data.briefing),
    mailWatch: toMailWatchConfig(data.mail_watch),
    calendars: toCalendarsConfig(data.calendars),
    hooks: toHooksConfig(data.hooks),
  });
}
