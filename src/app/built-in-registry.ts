import { readFileSync } from 'node:fs';
import type { ToolRegistry } from '../agent/tool-registry.js';
import { channelSecrets } from '../channels/channels-config.js';
import { calendarSecrets } from '../config/calendar-config.js';
import { hookSecrets } from '../config/hooks-config.js';
import { mailWatchSecrets } from '../config/mail-watch-config.js';
import type { WrenConfig } from '../config/wren-config.js';
import { GroupedToolRegistry } from '../mcp/grouped-tool-registry.js';
import { createExecTool } from '../tools/exec/exec-tool.js';
import { runMarkerPrefix } from '../tools/exec/sweep-orphans.js';
import { createFileTools } from '../tools/file-tools.js';
import { createWebTools } from '../tools/net/web-tools.js';
import type { FileWritten } from '../tools/write-file/write-file.js';
import { readDotEnv } from '../util/interpolate.js';

/** Environment names that may hold Wren's secrets: keys of `.env` and every `${VAR}` config.yaml uses. */
export function secretEnvNames(home: string, configFile: string): string[] {
  const names = new Set(Object.keys(readDotEnv(home)));
  try {
    for (const match of readFileSync(configFile, 'utf8').matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)/g)) {
      names.add(match[1]!);
    }
  } catch {
    // no config file: nothing referenced
  }
  return [...names];
}

/** `.env` names whose values are secrets (paths, hosts and ports are not: redacting them shreds output). */
const SECRET_NAME = /KEY|TOKEN|SECRET|PASS|AUTH|CRED|COOKIE|SESSION/i;

/**
 * Every secret value Wren knows of, for redaction from tool output and logs: `gate.secrets`, model API keys
 * and header values, web search and weather keys, the gateway token, and `.env` values whose names look secret.
 */
export function secretValues(
  home: string,
  config: WrenConfig,
  env: NodeJS.ProcessEnv = process.env,
): string[] {
  const values = new Set<string>(Object.values(config.gate.secrets));
  for (const model of config.models) {
    if (model.apiKey) values.add(model.apiKey);
    for (const value of Object.values(model.headers ?? {})) values.add(value);
  }
  const token = config.gateway.token ?? env['WREN_GATEWAY_TOKEN'];
  if (token) values.add(token);
  if (config.web.search.apiKey) values.add(config.web.search.apiKey);
  if (config.web.weather.openWeatherMapKey) values.add(config.web.weather.openWeatherMapKey);
  for (const secret of channelSecrets(config.channels)) values.add(secret);
  for (const secret of mailWatchSecrets(config.mailWatch)) values.add(secret);
  for (const secret of calendarSecrets(config.calendars)) values.add(secret);
  for (const secret of hookSecrets(config.hooks)) values.add(secret);
  for (const [name, value] of Object.entries(readDotEnv(home)))
    if (SECRET_NAME.test(name) && value) values.add(value);
  return [...values];
}

/**
 * The registry with the built-in tools that need nothing but configuration: files (confined to the workspace
 * and `tools.extra_roots`), `exec` (unless disabled) and the web tools. Memory, spawn and MCP tools are added
 * by the composition root, which owns their dependencies.
 */
export function createBuiltInRegistry(
  home: string,
  config: () => WrenConfig,
  options: { env?: NodeJS.ProcessEnv; redact?: (text: string) => string; onFileWritten?: FileWritten } = {},
): GroupedToolRegistry {
  const registry = new GroupedToolRegistry();
  const roots = () => [config().workspace, ...config().tools.extraRoots];
  // A read must fit one tool result, or the loop's head+tail cut would lose the middle and break paging.
  const readCapChars = () => Math.max(1000, config().agent.maxToolResultChars - 500);
  const onFileWritten = options.onFileWritten;
  for (const tool of createFileTools({ roots, readCapChars, ...(onFileWritten ? { onFileWritten } : {}) }))
    registry.register(tool);
  const initial = config();
  if (initial.tools.exec.enabled) {
    registry.register(
      createExecTool({
        config: () => config().tools.exec,
        deniedEnv: () => secretEnvNames(home, config().file),
        protectedPaths: () => [home],
        ...(options.env ? { env: options.env } : {}),
        ...(options.redact ? { redact: options.redact } : {}),
        markerPrefix: runMarkerPrefix(home),
      }),
    );
  }
  registerWebTools(registry, initial);
  return registry;
}

/**
 * (Re)registers web_search, web_fetch and weather from `config`: at start and whenever the `web:` section
 * changes, so edits apply without a restart.
 */
export function registerWebTools(registry: ToolRegistry, config: WrenConfig): void {
  // A web_fetch page must fit one tool result, or the loop's head+tail cut would break its paging offsets.
  const pageChars = Math.max(
    1000,
    Math.min(config.web.fetch.maxChars, config.agent.maxToolResultChars - 1000),
  );
  for (const tool of createWebTools({ ...config.web, fetch: { ...config.web.fetch, maxChars: pageChars } })) {
    registry.replace(tool);
  }
}
