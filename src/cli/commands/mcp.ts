import { join } from 'node:path';
import type { Command } from 'commander';
import { ensureHome } from '../../config/home.js';
import { DEFAULT_MCP_SETTINGS, mcpServerSchema, SERVER_NAME } from '../../mcp/mcp-config.js';
import { describeLaunch, loadMcpServers, readMcpServers, updateMcpServers } from '../../mcp/mcp-file.js';
import { findPreset, MCP_PRESETS } from '../../mcp/mcp-presets.js';
import { formatMcpStatus, type McpServerStatus, readMcpStatus } from '../../mcp/mcp-status.js';
import { ConfigError } from '../../util/config-error.js';
import { mergeEnv, readDotEnv } from '../../util/interpolate.js';
import { EXIT } from '../report-failure.js';

/** Where the commands write; tests pass their own. */
export interface McpCommandIo {
  out(line: string): void;
  err(line: string): void;
}

const stdio: McpCommandIo = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`wren: ${line}\n`),
};

async function withPins<T>(
  home: string,
  use: (pins: import('../../services/mcp-pin-service.js').McpPinService) => T,
) {
  const { withServices } = await import('../with-services.js');
  return withServices(home, (services) => use(services.mcpPins));
}

/** Servers of mcp.json with the live state from a running Wren, or their configured state when none runs. */
export async function mcpServerStatuses(
  home: string,
): Promise<{ running: boolean; servers: McpServerStatus[] }> {
  const live = readMcpStatus(home);
  if (live) return { running: true, servers: live.servers };
  const env = mergeEnv(readDotEnv(home), process.env);
  const entries = loadMcpServers(join(home, 'mcp.json'), {
    env,
    envFile: join(home, '.env'),
    settings: DEFAULT_MCP_SETTINGS,
  });
  const held = await withPins(home, (pins) => new Set(pins.heldServers()));
  const servers = entries.map((entry): McpServerStatus => {
    const reason =
      entry.error ??
      (held.has(entry.name)
        ? `tool definitions changed; approve with \`wren mcp approve ${entry.name}\``
        : undefined);
    const state = entry.error
      ? 'invalid'
      : !entry.enabled
        ? 'disabled'
        : held.has(entry.name)
          ? 'held'
          : 'stopped';
    const display = reason
      ? `${state}: ${reason}`
      : state === 'stopped'
        ? 'enabled (Wren is not running)'
        : state;
    return {
      name: entry.name,
      enabled: entry.enabled,
      state,
      display,
      ...(reason ? { reason } : {}),
      transport: entry.config?.transport ?? 'stdio',
      launch: describeLaunch(entry.raw),
      tools: [],
      restarts: 0,
      since: Date.now(),
    };
  });
  return { running: false, servers };
}

/** `wren mcp list`. */
export async function runMcpList(home: string, options: { json?: boolean }, io = stdio): Promise<number> {
  ensureHome(home);
  const status = await mcpServerStatuses(home);
  if (options.json) io.out(JSON.stringify(status, null, 2));
  else for (const line of formatMcpStatus(status.servers)) io.out(line);
  return EXIT.ok;
}

/** `wren mcp presets`. */
export function runMcpPresets(options: { json?: boolean }, io = stdio): number {
  if (options.json) {
    io.out(
      JSON.stringify(
        MCP_PRESETS.map((preset) => ({ ...preset, launch: describeLaunch(preset.entry) })),
        null,
        2,
      ),
    );
    return EXIT.ok;
  }
  const width = Math.max(...MCP_PRESETS.map((preset) => preset.name.length)) + 2;
  for (const preset of MCP_PRESETS) {
    io.out(
      `${preset.name.padEnd(width)}${preset.description}\n${' '.repeat(width)}${describeLaunch(preset.entry)}`,
    );
  }
  io.out(
    '\nAll are disabled until you run `wren mcp enable NAME`; set the ${VARS} they name in the environment or .env.',
  );
  return EXIT.ok;
}

/** `wren mcp enable|disable NAME`: flips `enabled` (enable also adds a preset that is not in mcp.json yet). */
export function runMcpToggle(home: string, name: string, enable: boolean, io = stdio): number {
  ensureHome(home);
  const file = join(home, 'mcp.json');
  const existing = readMcpServers(file)[name];
  const preset = findPreset(name);
  if (!existing && !(enable && preset)) {
    io.err(`no MCP server or preset named "${name}"; see \`wren mcp list\` and \`wren mcp presets\``);
    return EXIT.usage;
  }
  let entry: Record<string, unknown> = {};
  updateMcpServers(file, (servers) => {
    entry = { ...(servers[name] ?? preset!.entry) };
    delete entry['disabled'];
    entry['enabled'] = enable;
    servers[name] = entry;
  });
  io.out(`${enable ? 'Enabled' : 'Disabled'} ${name}${enable ? `: it runs ${describeLaunch(entry)}` : ''}`);
  return EXIT.ok;
}

/** `wren mcp add NAME (--url URL | -- COMMAND ARGS…)`. */
export function runMcpAdd(
  home: string,
  name: string,
  options: { url?: string; command: string[]; env?: string[]; header?: string[]; disabled?: boolean },
  io = stdio,
): number {
  ensureHome(home);
  const pairs = (list: string[] | undefined, what: string) => {
    const out: Record<string, string> = {};
    for (const pair of list ?? []) {
      const at = pair.indexOf('=');
      if (at < 1) throw new ConfigError(`${what} "${pair}" must look like NAME=value`);
      out[pair.slice(0, at)] = pair.slice(at + 1);
    }
    return out;
  };
  if (!SERVER_NAME.test(name)) {
    io.err(`"${name}" is not a valid server name (letters, digits, "_", "-", "."; at most 48)`);
    return EXIT.usage;
  }
  if (!options.url === (options.command.length === 0)) {
    io.err(
      'give either --url URL or a command after "--", e.g. wren mcp add memory -- npx -y @modelcontextprotocol/server-memory',
    );
    return EXIT.usage;
  }
  const env = pairs(options.env, '--env');
  const headers = pairs(options.header, '--header');
  const entry: Record<string, unknown> = options.url
    ? { url: options.url, ...(Object.keys(headers).length ? { headers } : {}) }
    : {
        command: options.command[0],
        args: options.command.slice(1),
        ...(Object.keys(env).length ? { env } : {}),
      };
  if (options.disabled) entry['enabled'] = false;
  const check = mcpServerSchema.safeParse(entry);
  if (!check.success) {
    io.err(`invalid server: ${check.error.issues[0]!.message}`);
    return EXIT.usage;
  }
  const file = join(home, 'mcp.json');
  if (readMcpServers(file)[name]) {
    io.err(`an MCP server "${name}" already exists; remove it first`);
    return EXIT.usage;
  }
  updateMcpServers(file, (servers) => {
    servers[name] = entry;
  });
  io.out(`Added ${name}: ${describeLaunch(entry)}`);
  return EXIT.ok;
}

/** `wren mcp remove NAME`: removes the entry and forgets its pinned tool definitions. */
export async function runMcpRemove(home: string, name: string, io = stdio): Promise<number> {
  ensureHome(home);
  const file = join(home, 'mcp.json');
  if (!readMcpServers(file)[name]) {
    io.err(`no MCP server named "${name}" in mcp.json`);
    return EXIT.usage;
  }
  updateMcpServers(file, (servers) => {
    delete servers[name];
  });
  await withPins(home, (pins) => pins.forget(name));
  io.out(`Removed ${name}`);
  return EXIT.ok;
}

/** `wren mcp approve NAME`: accepts a held server's changed tool definitions (a running Wren picks it up). */
export async function runMcpApprove(home: string, name: string, io = stdio): Promise<number> {
  ensureHome(home);
  const { describeDefinitionChange } = await import('../../mcp/definition-hash.js');
  const result = await withPins(home, (pins) => {
    const pending = pins.pending(name);
    if (!pending) return undefined;
    const change = describeDefinitionChange(pending.approved?.definitions ?? [], pending.definitions);
    pins.approve(name);
    return change;
  });
  if (result === undefined) {
    io.err(`MCP server "${name}" has no changed tool definitions waiting for approval`);
    return EXIT.failed;
  }
  io.out(`Approved the new tool definitions of ${name} (${result}); its tools are available again.`);
  return EXIT.ok;
}

/** Registers `wren mcp list|presets|enable|disable|add|remove|approve`. */
export function registerMcpCommands(program: Command, home: () => string): void {
  const mcp = program
    .command('mcp')
    .description('MCP servers: list, presets, enable, disable, add, remove, approve');
  mcp
    .command('list', { isDefault: true })
    .description('configured servers with their state (live when Wren runs)')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      process.exitCode = await runMcpList(home(), options);
    });
  mcp
    .command('presets')
    .description('well-known servers you can enable, with the exact command each runs')
    .option('--json', 'print JSON')
    .action((options: { json?: boolean }) => {
      process.exitCode = runMcpPresets(options);
    });
  mcp
    .command('enable <name>')
    .description('enable a server of mcp.json, or add and enable a preset')
    .action((name: string) => {
      process.exitCode = runMcpToggle(home(), name, true);
    });
  mcp
    .command('disable <name>')
    .description('disable a server (it stays in mcp.json)')
    .action((name: string) => {
      process.exitCode = runMcpToggle(home(), name, false);
    });
  mcp
    .command('add <name> [command...]')
    .description('add a server: wren mcp add NAME -- COMMAND ARGS…  or  wren mcp add NAME --url URL')
    .option('--url <url>', 'a remote server (streamable HTTP, falling back to SSE)')
    .option('-e, --env <pair...>', 'NAME=value for the program (use ${VAR} for secrets)')
    .option('-H, --header <pair...>', 'Name=value HTTP header for --url (use ${VAR} for secrets)')
    .option('--disabled', 'add it disabled')
    .action(
      (
        name: string,
        command: string[],
        options: { url?: string; env?: string[]; header?: string[]; disabled?: boolean },
      ) => {
        process.exitCode = runMcpAdd(home(), name, { ...options, command });
      },
    );
  mcp
    .command('remove <name>')
    .description('remove a server from mcp.json')
    .action(async (name: string) => {
      process.exitCode = await runMcpRemove(home(), name);
    });
  mcp
    .command('approve <name>')
    .description("accept a server's changed tool definitions")
    .action(async (name: string) => {
      process.exitCode = await runMcpApprove(home(), name);
    });
}
