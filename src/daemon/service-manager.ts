import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { launchdPlist } from './launchd-plist.js';
import { LAUNCHD_LABEL, MARKER, type ServiceSpec, startCommand, UNIT_NAME } from './service-spec.js';
import { systemdUnit } from './systemd-unit.js';

/** What a system command answered; `missing` when the program is not installed. */
export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
  missing?: boolean;
}

/**
 * The machine as the service manager sees it, injected so tests run against a temp HOME with the commands
 * recorded (never the real ~/.config or systemctl).
 */
export interface SystemAccess {
  platform: NodeJS.Platform;
  /** The installing user's home folder (HOME). */
  homeDir: string;
  uid: number;
  /** The installing user's name. */
  user: string;
  /** Runs a program to completion (no shell). */
  run(command: string, args: string[]): CommandResult;
  /** The root folder system units go to (`/etc/systemd/system`; a temp folder in tests). */
  systemUnitDir?: string;
}

export type ServiceKind = 'systemd-user' | 'systemd-system' | 'launchd';

/** Where the unit goes, what it says and how the platform's manager starts, stops and reports it. */
export interface ServiceTarget {
  kind: ServiceKind;
  path: string;
  content: string;
  /** Commands that load and start the unit, or undefined when the manager cannot be reached (then `manual`). */
  start: string[][] | undefined;
  stop: string[][] | undefined;
  /** What to run by hand when the manager cannot be reached, or afterwards. */
  manual: string[];
  hints: string[];
}

export interface TargetOptions {
  /** A system unit (root only) run as `user`. */
  system?: { user: string };
}

const systemctlUsable = (access: SystemAccess, user: boolean) => {
  const result = access.run('systemctl', [...(user ? ['--user'] : []), 'show-environment']);
  return !result.missing && result.code === 0;
};

function lingerHint(access: SystemAccess): string[] {
  const linger = access.run('loginctl', ['show-user', access.user, '--property=Linger', '--value']);
  if (!linger.missing && linger.stdout.trim() === 'yes') return [];
  return [
    'A user service runs only while you are logged in. To start it at boot and keep it running after you log',
    `out, run once: loginctl enable-linger ${access.user}`,
  ];
}

function systemdTarget(spec: ServiceSpec, access: SystemAccess, options: TargetOptions): ServiceTarget {
  const system = options.system;
  const ctl = system ? ['systemctl'] : ['systemctl', '--user'];
  const path = system
    ? join(access.systemUnitDir ?? '/etc/systemd/system', UNIT_NAME)
    : join(access.homeDir, '.config/systemd/user', UNIT_NAME);
  const usable = systemctlUsable(access, !system);
  const start = [
    [...ctl, 'daemon-reload'],
    [...ctl, 'enable', UNIT_NAME],
    [...ctl, 'restart', UNIT_NAME],
  ];
  const stop = [[...ctl, 'disable', '--now', UNIT_NAME]];
  return {
    kind: system ? 'systemd-system' : 'systemd-user',
    path,
    content: systemdUnit(spec, system ? { user: system.user } : {}),
    start: usable ? start : undefined,
    stop: usable ? stop : undefined,
    manual: start.map((command) => command.join(' ')),
    hints: system ? [] : lingerHint(access),
  };
}

function launchdTarget(spec: ServiceSpec, access: SystemAccess): ServiceTarget {
  const path = join(access.homeDir, 'Library/LaunchAgents', `${LAUNCHD_LABEL}.plist`);
  const domain = `gui/${access.uid}`;
  const usable = !access.run('launchctl', ['help']).missing;
  const start = [
    ['launchctl', 'bootout', `${domain}/${LAUNCHD_LABEL}`],
    ['launchctl', 'bootstrap', domain, path],
  ];
  return {
    kind: 'launchd',
    path,
    content: launchdPlist(spec),
    start: usable ? start : undefined,
    stop: usable ? [['launchctl', 'bootout', `${domain}/${LAUNCHD_LABEL}`]] : undefined,
    manual: [start[1]!.join(' ')],
    hints: [],
  };
}

/** Thrown for what the owner must decide (a different unit in the way, a platform without a manager). */
export class ServiceError extends Error {}

/** The unit for this platform, or a ServiceError with the command to run by hand where there is none. */
export function serviceTarget(
  spec: ServiceSpec,
  access: SystemAccess,
  options: TargetOptions = {},
): ServiceTarget {
  if (options.system && access.platform !== 'linux')
    throw new ServiceError('--system is for Linux (systemd) only');
  if (options.system && access.uid !== 0) {
    throw new ServiceError(
      `a system unit needs root: sudo wren service install --system --user ${options.system.user}`,
    );
  }
  if (access.platform === 'linux') return systemdTarget(spec, access, options);
  if (access.platform === 'darwin') return launchdTarget(spec, access);
  const manual = [`WREN_HOME=${spec.home}`, ...startCommand(spec)].join(' ');
  throw new ServiceError(
    `Running as a service is supported on Linux (systemd) and macOS (launchd), not ${access.platform}. Run Wren with your ` +
      `system's own service manager or task scheduler, using this command:\n  ${manual}`,
  );
}

export interface InstallResult {
  status: 'installed' | 'replaced' | 'unchanged';
  target: ServiceTarget;
  /** The commands run, each with its outcome; empty when the manager could not be reached. */
  ran: Array<{ command: string; ok: boolean; error?: string }>;
}

function runAll(access: SystemAccess, commands: string[][], tolerate = 0): InstallResult['ran'] {
  return commands.map(([program, ...args], index) => {
    const result = access.run(program!, args);
    const ok = result.code === 0 || index < tolerate;
    return {
      command: [program, ...args].join(' '),
      ok,
      ...(ok ? {} : { error: (result.stderr || result.stdout).trim() }),
    };
  });
}

const ownedBy = (content: string) => content.includes(MARKER);

/**
 * Writes the unit and starts it. The same unit already there: "unchanged", nothing run. A different file in
 * its place is refused unless `force`.
 */
export function installService(target: ServiceTarget, access: SystemAccess, force = false): InstallResult {
  const existing = existsSync(target.path) ? readFileSync(target.path, 'utf8') : undefined;
  if (existing === target.content) return { status: 'unchanged', target, ran: [] };
  if (existing !== undefined && !force) {
    throw new ServiceError(
      `${target.path} already exists and differs from the unit Wren would write` +
        `${ownedBy(existing) ? ' (an older `wren service install`)' : ' (Wren did not write it)'}; ` +
        'rerun with --force to replace it',
    );
  }
  mkdirSync(dirname(target.path), { recursive: true });
  writeFileSync(target.path, target.content, { mode: 0o644 });
  // launchd's bootout fails when the agent was not loaded yet: that first command may fail.
  const ran = target.start ? runAll(access, target.start, target.kind === 'launchd' ? 1 : 0) : [];
  return { status: existing === undefined ? 'installed' : 'replaced', target, ran };
}

export interface UninstallResult {
  status: 'removed' | 'absent';
  ran: InstallResult['ran'];
}

/** Stops the service and removes the unit, only when Wren wrote it; nothing there is "absent". */
export function uninstallService(target: ServiceTarget, access: SystemAccess): UninstallResult {
  if (!existsSync(target.path)) return { status: 'absent', ran: [] };
  if (!ownedBy(readFileSync(target.path, 'utf8'))) {
    throw new ServiceError(`${target.path} was not written by \`wren service install\`; leaving it alone`);
  }
  const ran = target.stop ? runAll(access, target.stop, target.kind === 'launchd' ? 1 : 0) : [];
  rmSync(target.path, { force: true });
  if (target.kind !== 'launchd' && target.stop)
    ran.push(...runAll(access, [[...target.stop[0]!.slice(0, -3), 'daemon-reload']]));
  return { status: 'removed', ran };
}

export interface ServiceState {
  installed: boolean;
  /** True when the file there is one Wren wrote. */
  ours: boolean;
  /** Undefined when the manager cannot say (not reachable). */
  running: boolean | undefined;
  path: string;
  /** Up to date: the file there is the unit this `wren` would write now. */
  current: boolean;
}

/** Whether the unit is installed and the service running, asked of systemctl / launchctl. */
export function serviceState(target: ServiceTarget, access: SystemAccess): ServiceState {
  const content = existsSync(target.path) ? readFileSync(target.path, 'utf8') : undefined;
  const base = {
    path: target.path,
    installed: content !== undefined,
    ours: content !== undefined && ownedBy(content),
    current: content === target.content,
  };
  if (!target.stop) return { ...base, running: undefined };
  if (target.kind === 'launchd') {
    const printed = access.run('launchctl', ['print', `gui/${access.uid}/${LAUNCHD_LABEL}`]);
    return { ...base, running: printed.code === 0 && /state = running/.test(printed.stdout) };
  }
  const ctl = target.kind === 'systemd-user' ? ['--user'] : [];
  const active = access.run('systemctl', [...ctl, 'is-active', UNIT_NAME]);
  return { ...base, running: active.stdout.trim() === 'active' };
}
