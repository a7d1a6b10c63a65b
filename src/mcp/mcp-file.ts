import { readFileSync } from 'node:fs';
import type * as z from 'zod';
import { writeFileAtomic } from '../util/atomic-write.js';
import { closestMatch } from '../util/closest-match.js';
import { ConfigError, formatKeyPath } from '../util/config-error.js';
import { interpolate } from '../util/interpolate.js';
import {
  type McpServerConfig,
  type McpSettings,
  mcpServerSchema,
  SERVER_NAME,
  toMcpServerConfig,
} from './mcp-config.js';
import { findPreset } from './mcp-presets.js';

/** One server of mcp.json: its raw entry (placeholders intact) and either its config or why it is unusable. */
export interface McpFileEntry {
  name: string;
  /** The entry as written, `${VAR}` placeholders intact. */
  raw: Record<string, unknown>;
  config?: McpServerConfig;
  /** Why the entry cannot be used (unknown key, unset variable…), naming the key path. */
  error?: string;
  /** Whether the raw entry asks to be enabled (known even when the entry is invalid). */
  enabled: boolean;
}

const FILE = 'mcp.json';
const SERVER_KEYS = Object.keys(mcpServerSchema.shape);

/**
 * Reads mcp.json's `mcpServers` object as written. A missing file is an empty set.
 * @throws ConfigError when the file is not JSON or not of the shape `{"mcpServers": {…}}`.
 */
export function readMcpServers(path: string): Record<string, Record<string, unknown>> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new ConfigError(`${path}: cannot be read (${(error as Error).message})`, { file: path });
  }
  if (text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${FILE}: not valid JSON (${(error as Error).message}); fix the file`, {
      file: path,
    });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ConfigError(`${FILE}: must be a JSON object like {"mcpServers": {}}`, { file: path });
  }
  const unknown = Object.keys(parsed).filter((key) => key !== 'mcpServers' && key !== '$schema');
  if (unknown.length > 0) {
    throw new ConfigError(`${FILE}: ${unknown[0]}: unknown key (the servers go under "mcpServers")`, {
      file: path,
      keyPath: unknown[0]!,
    });
  }
  const servers = (parsed as { mcpServers?: unknown }).mcpServers ?? {};
  if (typeof servers !== 'object' || servers === null || Array.isArray(servers)) {
    throw new ConfigError(`${FILE}: mcpServers: must be an object of servers by name`, {
      file: path,
      keyPath: 'mcpServers',
    });
  }
  const out: Record<string, Record<string, unknown>> = {};
  for (const [name, entry] of Object.entries(servers as Record<string, unknown>)) {
    out[name] = typeof entry === 'object' && entry !== null && !Array.isArray(entry) ? { ...entry } : {};
  }
  return out;
}

function describeIssue(name: string, issue: z.core.$ZodIssue): string {
  const where = `${FILE}: ${formatKeyPath(['mcpServers', name, ...issue.path.map((part) => (typeof part === 'symbol' ? String(part) : part))])}`;
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0]!;
    const hint = issue.path.length === 0 ? closestMatch(key, SERVER_KEYS) : undefined;
    return `${FILE}: ${formatKeyPath(['mcpServers', name, ...issue.path.map(String), key])}: unknown key${hint ? ` (did you mean ${hint}?)` : ''}`;
  }
  return `${where}: ${issue.message}`;
}

function rawEnabled(raw: Record<string, unknown>): boolean {
  if (raw['disabled'] === true || raw['disabled'] === 'true') return false;
  return !(raw['enabled'] === false || raw['enabled'] === 'false');
}

/**
 * Parses every server of mcp.json, interpolating `${VAR}` and `${VAR:-default}` with `env`. A bad entry does
 * not spoil the others: it comes back with `error` set. Disabled entries may reference unset variables.
 * @throws ConfigError when the file as a whole is unusable (see {@link readMcpServers}).
 */
export function loadMcpServers(
  path: string,
  options: {
    env: Readonly<Record<string, string>>;
    envFile: string;
    settings: Pick<McpSettings, 'callTimeoutMs'>;
  },
): McpFileEntry[] {
  const servers = readMcpServers(path);
  return Object.entries(servers).map(([name, raw]): McpFileEntry => {
    const enabled = rawEnabled(raw);
    if (!SERVER_NAME.test(name)) {
      return {
        name,
        raw,
        enabled,
        error: `${FILE}: mcpServers.${name}: a server name may use letters, digits, "_", "-" and "." (at most 48, starting with a letter or digit)`,
      };
    }
    let expanded: unknown;
    try {
      expanded = interpolate(
        raw,
        {
          env: options.env,
          file: FILE,
          envFile: options.envFile,
          lenient: () => !enabled,
        },
        ['mcpServers', name],
      );
    } catch (error) {
      return { name, raw, enabled, error: (error as Error).message };
    }
    const parsed = mcpServerSchema.safeParse(expanded);
    if (!parsed.success) {
      return { name, raw, enabled, error: describeIssue(name, parsed.error.issues[0]!) };
    }
    return { name, raw, enabled, config: toMcpServerConfig(name, parsed.data, options.settings) };
  });
}

/**
 * Edits mcp.json's servers as written (placeholders stay placeholders) and writes the file atomically (0600).
 * `edit` receives the `mcpServers` object to change in place. Other entries keep their content.
 * @throws ConfigError when the current file is unusable; the file-system error when it cannot be written.
 */
export function updateMcpServers(
  path: string,
  edit: (servers: Record<string, Record<string, unknown>>) => void,
): void {
  const servers = readMcpServers(path);
  edit(servers);
  writeFileAtomic(path, `${JSON.stringify({ mcpServers: servers }, null, 2)}\n`);
}

/**
 * Turns a server of mcp.json on or off, as `wren mcp enable|disable` does: `enabled` is set and a legacy
 * `disabled` key dropped; enabling a catalogue preset that is not in mcp.json yet adds its entry. A running
 * manager picks the change up through its watch of mcp.json (or `reload()`).
 * @returns the entry as written, or undefined when there is no such server (nor, to enable, such preset);
 * the file is unchanged then.
 * @throws ConfigError when mcp.json is unusable; the file-system error when it cannot be written.
 */
export function setMcpServerEnabled(
  path: string,
  name: string,
  enabled: boolean,
): Record<string, unknown> | undefined {
  const preset = enabled ? findPreset(name) : undefined;
  if (!readMcpServers(path)[name] && !preset) return undefined;
  let written: Record<string, unknown> = {};
  updateMcpServers(path, (servers) => {
    written = { ...(servers[name] ?? preset!.entry) };
    delete written['disabled'];
    written['enabled'] = enabled;
    servers[name] = written;
  });
  return written;
}

function quote(word: string): string {
  return /^[\w@%+=:,./${}-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * The exact, untruncated command line an entry runs (or the URL it connects to), as written: `${VAR}`
 * placeholders are shown, never their values. Environment assignments and the working folder are included.
 */
export function describeLaunch(raw: Record<string, unknown>): string {
  if (typeof raw['url'] === 'string') return raw['url'];
  const env = raw['env'] && typeof raw['env'] === 'object' ? Object.entries(raw['env']) : [];
  const args = Array.isArray(raw['args']) ? raw['args'].map(String) : [];
  const words = [
    ...env.map(([key, value]) => `${key}=${quote(String(value))}`),
    quote(String(raw['command'] ?? '')),
    ...args.map(quote),
  ];
  const cwd = typeof raw['cwd'] === 'string' ? ` (in ${raw['cwd']})` : '';
  return words.join(' ') + cwd;
}
