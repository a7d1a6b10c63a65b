import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { checkHomePermissions, type PermissionFinding } from '../config/home.js';
import { type GateConfig, gateSectionSchema, toGateConfig } from '../gate/gate-config.js';
import { MIN_SECRET_CHARS } from '../gate/redactor.js';
import { isLoopbackHost } from '../gateway/gateway-token.js';
import {
  checkSandbox,
  resolveSandbox,
  type SandboxProbe,
  type SandboxResolution,
  type SandboxSetting,
} from '../tools/exec/sandbox.js';
import { interpolate, mergeEnv, readDotEnv } from '../util/interpolate.js';
import { plural } from './plural.js';

/** One finding of `wren security audit`; `id` is stable for scripts. */
export interface SecurityCheck {
  id: string;
  status: 'ok' | 'warn' | 'fail';
  message: string;
  fix?: string;
}

export interface McpServerFact {
  name: string;
  command?: string;
  args: string[];
  url?: string;
}

/** What the audit looks at, gathered from the home (or built by hand in tests). */
export interface SecurityFacts {
  gateway: { host: string; tokenConfigured: boolean };
  permissions: PermissionFinding[];
  /** Undefined with the reason when the `gate:` section is invalid. */
  gate: GateConfig | { invalid: string };
  exec: { enabled: boolean; sandbox: SandboxSetting };
  /** The sandbox setting resolved against a real run of bubblewrap. */
  sandbox: SandboxResolution;
  channels: Array<{ name: string; allowFrom: string[] }>;
  mcpServers: McpServerFact[];
}

const RUNNERS = new Set(['npx', 'bunx', 'uvx', 'pnpx']);

/** The package a runner (`npx -y pkg@1.2.3`) starts, when it is one; undefined for other commands. */
function launchedPackage(server: McpServerFact): string | undefined {
  const program = server.command?.split('/').pop();
  if (!program || !RUNNERS.has(program)) return undefined;
  return server.args.find((arg) => !arg.startsWith('-'));
}

/** Whether a package spec names an exact version (`pkg@1.2.3`, `@scope/pkg@1.2.3`, `pkg==1.2.3`). */
function pinnedSpec(spec: string): boolean {
  const version = spec.includes('==') ? spec.split('==')[1] : spec.slice(1).split('@')[1];
  return version !== undefined && /^\d+\.\d+\.\d+([-+][\w.]+)?$/.test(version);
}

function gatewayCheck(facts: SecurityFacts): SecurityCheck {
  const { host, tokenConfigured } = facts.gateway;
  if (isLoopbackHost(host))
    return { id: 'security.gateway_exposed', status: 'ok', message: `gateway binds ${host} (loopback only)` };
  return tokenConfigured
    ? {
        id: 'security.gateway_exposed',
        status: 'ok',
        message: `gateway binds ${host} with a configured token`,
      }
    : {
        id: 'security.gateway_exposed',
        status: 'fail',
        message: `gateway.host is ${host} but no token is configured`,
        fix: 'set gateway.token: ${WREN_GATEWAY_TOKEN} in config.yaml, or gateway.host: 127.0.0.1',
      };
}

function gateChecks(facts: SecurityFacts): SecurityCheck[] {
  const gate = facts.gate;
  if ('invalid' in gate) {
    return [
      {
        id: 'security.gate_config',
        status: 'fail',
        message: `gate: ${gate.invalid}`,
        fix: 'fix the gate: section of config.yaml',
      },
    ];
  }
  const checks: SecurityCheck[] = [
    { id: 'security.gate_config', status: 'ok', message: `gate mode ${gate.mode}` },
  ];
  checks.push(
    gate.mode === 'auto' && facts.exec.enabled
      ? {
          id: 'security.auto_mode_exec',
          status: 'fail',
          message: 'gate.mode is auto while the exec tool is enabled: shell commands run without asking',
          fix: 'set gate.mode: ask, or tools.exec.enabled: false',
        }
      : { id: 'security.auto_mode_exec', status: 'ok', message: 'exec calls are asked about or exec is off' },
  );
  const short = Object.entries(gate.secrets).filter(([, value]) => value.length < MIN_SECRET_CHARS);
  checks.push(
    short.length
      ? {
          id: 'security.short_secrets',
          status: 'warn',
          message: `secrets shorter than ${MIN_SECRET_CHARS} characters cannot be redacted from output: ${short.map(([name]) => name).join(', ')}`,
        }
      : {
          id: 'security.short_secrets',
          status: 'ok',
          message: `${plural(Object.keys(gate.secrets).length, 'secret')}, all redactable`,
        },
  );
  return checks;
}

/**
 * The exec sandbox as it will really be used: the setting resolved against a run of bubblewrap. `wren
 * doctor` and `wren security audit` both report it from here, so they never disagree.
 */
export function sandboxCheck(
  id: string,
  exec: { enabled: boolean; sandbox: SandboxSetting },
  resolution: SandboxResolution,
): SecurityCheck {
  if (!exec.enabled) return { id, status: 'ok', message: 'the exec tool is off' };
  if (resolution.refused) {
    return {
      id,
      status: 'fail',
      message: `exec will refuse every command: ${resolution.reason}`,
      fix: 'install bubblewrap (apt-get install bubblewrap), or set tools.exec.sandbox: auto',
    };
  }
  if (resolution.mode === 'bwrap')
    return {
      id,
      status: 'ok',
      message:
        'exec runs commands in bubblewrap (only the workspace writable; network: true shares the host network, loopback included, and asks before a local address)',
    };
  return {
    id,
    status: 'warn',
    message: `exec runs commands without a sandbox: ${resolution.reason}`,
    fix:
      exec.sandbox === 'none'
        ? 'set tools.exec.sandbox: auto (bubblewrap is used wherever it works)'
        : 'install bubblewrap (apt-get install bubblewrap) where user namespaces are allowed',
  };
}

/** The security checks, pure. Ids are stable: scripts may match on them. */
export function securityChecks(facts: SecurityFacts): SecurityCheck[] {
  const checks: SecurityCheck[] = [gatewayCheck(facts)];
  checks.push(
    facts.permissions.length === 0
      ? {
          id: 'security.state_permissions',
          status: 'ok',
          message: 'home, config, .env and database are private',
        }
      : {
          id: 'security.state_permissions',
          status: 'fail',
          message: facts.permissions.map((finding) => finding.message).join('; '),
          fix: facts.permissions.map((finding) => finding.fix).join(' && '),
        },
  );
  checks.push(...gateChecks(facts), sandboxCheck('security.sandbox', facts.exec, facts.sandbox));
  const open = facts.channels.filter((channel) => channel.allowFrom.includes('*'));
  checks.push(
    open.length
      ? {
          id: 'security.open_allow_from',
          status: 'fail',
          message: `anyone can talk to Wren (and use its tools) on: ${open.map((channel) => channel.name).join(', ')}`,
          fix: 'list the sender ids in allow_from instead of "*"',
        }
      : { id: 'security.open_allow_from', status: 'ok', message: 'no channel is open to everyone' },
  );
  const unpinned = facts.mcpServers.filter((server) => {
    const spec = launchedPackage(server);
    return spec !== undefined && !pinnedSpec(spec);
  });
  checks.push(
    unpinned.length
      ? {
          id: 'security.mcp_unpinned',
          status: 'warn',
          message: `MCP servers started from an unpinned package version (whatever is newest runs): ${unpinned.map((server) => `${server.name} (${launchedPackage(server)})`).join(', ')}`,
          fix: 'pin an exact version in mcp.json, e.g. "@modelcontextprotocol/server-filesystem@2026.8.31"',
        }
      : {
          id: 'security.mcp_unpinned',
          status: 'ok',
          message: `${plural(facts.mcpServers.length, 'MCP server')}, none unpinned`,
        },
  );
  return checks;
}

function readYaml(path: string): Record<string, unknown> {
  try {
    const parsed = parse(readFileSync(path, 'utf8')) as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

const record = (value: unknown): Record<string, unknown> =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

function mcpServersOf(home: string): McpServerFact[] {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(join(home, 'mcp.json'), 'utf8'));
  } catch {
    return [];
  }
  return Object.entries(record(record(raw)['mcpServers'])).map(([name, entry]) => {
    const server = record(entry);
    return {
      name,
      ...(typeof server['command'] === 'string' ? { command: server['command'] } : {}),
      args: Array.isArray(server['args']) ? server['args'].map(String) : [],
      ...(typeof server['url'] === 'string' ? { url: server['url'] } : {}),
    };
  });
}

/**
 * Reads what the audit needs from a home: config.yaml (leniently: `${VAR}`s that are unset count as empty,
 * and an invalid file yields defaults rather than an exception), `.env`, mcp.json and file modes. Read-only.
 */
export async function gatherSecurityFacts(
  home: string,
  env: NodeJS.ProcessEnv = process.env,
  probe: () => Promise<SandboxProbe> = () => checkSandbox(),
): Promise<SecurityFacts> {
  const file = join(home, 'config.yaml');
  let raw: Record<string, unknown>;
  const merged = mergeEnv(readDotEnv(home), env);
  try {
    raw = record(
      interpolate(readYaml(file), { env: merged, file, envFile: join(home, '.env'), lenient: () => true }),
    );
  } catch {
    raw = {};
  }
  const gateway = record(raw['gateway']);
  const token =
    typeof gateway['token'] === 'string' && gateway['token'] !== ''
      ? gateway['token']
      : merged['WREN_GATEWAY_TOKEN'];
  const parsedGate = gateSectionSchema.safeParse(raw['gate'] ?? {});
  const exec = record(record(raw['tools'])['exec']);
  const setting: SandboxSetting =
    exec['sandbox'] === 'none' || exec['sandbox'] === 'bwrap' ? exec['sandbox'] : 'auto';
  const channels = Object.entries(record(raw['channels'])).map(([name, section]) => {
    const allowFrom = record(section)['allow_from'];
    return { name, allowFrom: Array.isArray(allowFrom) ? allowFrom.map(String) : [] };
  });
  return {
    gateway: {
      host: typeof gateway['host'] === 'string' ? gateway['host'] : '127.0.0.1',
      tokenConfigured: Boolean(token),
    },
    permissions: checkHomePermissions(home),
    gate: parsedGate.success
      ? toGateConfig(parsedGate.data)
      : {
          invalid: parsedGate.error.issues
            .map((issue) => `${issue.path.join('.')}: ${issue.message}`)
            .join('; '),
        },
    exec: { enabled: exec['enabled'] !== false && exec['enabled'] !== 'false', sandbox: setting },
    sandbox: resolveSandbox(setting, setting === 'none' ? undefined : await probe()),
    channels,
    mcpServers: mcpServersOf(home),
  };
}
