import { chmodSync, constants, lstatSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { STARTER_CONFIG } from './starter-config.js';

/**
 * The Wren home: `WREN_HOME` (with `~` expanded) or `~/.wren`, as an absolute path. Pure; touches no files.
 */
export function resolveHome(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const configured = env.WREN_HOME?.trim();
  if (!configured) return join(homedir(), '.wren');
  if (configured === '~') return homedir();
  if (configured.startsWith('~/')) return join(homedir(), configured.slice(2));
  return resolve(configured);
}

function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

/**
 * Creates what is missing of a home: the folder itself, `workspace/` and `logs/` (mode 0700) and a commented
 * starter `config.yaml` (mode 0600, valid, with no models). Idempotent. Never changes anything that already
 * exists — not even permissions; `checkHomePermissions` reports those.
 * @returns the paths it created.
 * @throws the file-system error (e.g. EACCES) when something cannot be created.
 */
export function ensureHome(home: string): string[] {
  const created: string[] = [];
  for (const dir of [home, join(home, 'workspace'), join(home, 'logs')]) {
    if (exists(dir)) continue;
    mkdirSync(dir, { mode: 0o700 });
    chmodSync(dir, 0o700); // the umask may have taken bits away; nothing else may add them
    created.push(dir);
  }
  const config = join(home, 'config.yaml');
  if (!exists(config)) {
    writeFileSync(config, STARTER_CONFIG, { mode: 0o600, flag: 'wx' });
    chmodSync(config, 0o600);
    created.push(config);
  }
  return created;
}

/** A permission problem `wren doctor` reports, with the command that fixes it. */
export interface PermissionFinding {
  path: string;
  /** E.g. `/home/ann/.wren is readable by group and others (mode 0755)`. */
  message: string;
  /** A shell command, e.g. `chmod 700 '/home/ann/.wren'`. */
  fix: string;
}

const FOLDERS = ['.', 'workspace', 'logs'];
const PRIVATE_FILES = [
  'config.yaml',
  '.env',
  'mcp.json',
  'jobs.yaml',
  'gateway.json',
  'wren.db',
  'wren.db-wal',
  'wren.db-shm',
];

function shellQuote(path: string): string {
  return /^[\w./-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
}

function describeAccess(mode: number): string | undefined {
  const loose = mode & (constants.S_IRWXG | constants.S_IRWXO);
  if (!loose) return undefined;
  const who = [loose & 0o070 ? 'group' : '', loose & 0o007 ? 'others' : ''].filter(Boolean).join(' and ');
  const what = [loose & 0o044 ? 'readable' : '', loose & 0o022 ? 'writable' : '']
    .filter(Boolean)
    .join(' and ');
  return `${what || 'accessible'} by ${who} (mode 0${(mode & 0o777).toString(8).padStart(3, '0')})`;
}

/**
 * Checks the home's folders (must be 0700) and private files (config.yaml, .env, mcp.json, wren.db and its
 * WAL files: must be 0600) for group/other access. Read-only; missing entries are skipped. Empty on Windows,
 * where POSIX modes mean nothing.
 */
export function checkHomePermissions(home: string): PermissionFinding[] {
  if (process.platform === 'win32') return [];
  const findings: PermissionFinding[] = [];
  const check = (name: string, wanted: string, isFolder: boolean) => {
    const path = name === '.' ? home : join(home, name);
    let mode: number;
    try {
      const stat = statSync(path);
      if (stat.isDirectory() !== isFolder) return;
      mode = stat.mode;
    } catch {
      return;
    }
    const problem = describeAccess(mode);
    if (problem)
      findings.push({ path, message: `${path} is ${problem}`, fix: `chmod ${wanted} ${shellQuote(path)}` });
  };
  for (const folder of FOLDERS) check(folder, '700', true);
  for (const file of PRIVATE_FILES) check(file, '600', false);
  return findings;
}

/**
 * Takes group and other access away from the home's folders (0700) and private files (0600) when they have
 * it — a home copied or unpacked with a loose umask, an `.env` written by an editor. Symlinks are left alone
 * (chmod would follow them out of the home). Never throws for one entry; returns what it changed (for a
 * warning at start).
 */
export function makeHomePrivate(home: string): string[] {
  if (process.platform === 'win32') return [];
  const changed: string[] = [];
  const tighten = (name: string, mode: number, isFolder: boolean) => {
    const path = name === '.' ? home : join(home, name);
    try {
      const info = lstatSync(path);
      if (info.isSymbolicLink() || info.isDirectory() !== isFolder) return;
      if ((info.mode & 0o077) === 0) return;
      chmodSync(path, mode);
      changed.push(path);
    } catch {
      // Missing, or not ours to change: `wren doctor` reports what stays loose.
    }
  };
  for (const folder of FOLDERS) tighten(folder, 0o700, true);
  for (const file of PRIVATE_FILES) tighten(file, 0o600, false);
  return changed;
}
