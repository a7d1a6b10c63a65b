import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { showLog } from '../../daemon/service-logs.js';
import {
  installService,
  ServiceError,
  type ServiceTarget,
  type SystemAccess,
  serviceState,
  serviceTarget,
  type TargetOptions,
  uninstallService,
} from '../../daemon/service-manager.js';
import type { ServiceSpec } from '../../daemon/service-spec.js';
import { nodeSystemAccess, userHomeOf } from '../../daemon/system-access.js';
import { LOG_FILE } from '../../util/logger.js';
import { wrenVersion } from '../../util/wren-version.js';
import { EXIT, MustFixError } from '../report-failure.js';

export interface ServiceOptions {
  /** The home named by --home or WREN_HOME; undefined for the default. */
  explicitHome?: string;
  /** The resolved home (the default one when nothing names it). */
  home: string;
  system?: boolean;
  user?: string;
  force?: boolean;
  access?: SystemAccess;
  /** The CLI entry the unit runs (this package's dist/cli/main.js by default). */
  main?: string;
  write?: (text: string) => void;
}

/** The unit for these options: the home baked in is the named user's `~/.wren` for a system unit. */
export function targetFor(options: ServiceOptions): { target: ServiceTarget; access: SystemAccess } {
  const access = options.access ?? nodeSystemAccess();
  let home = options.home;
  let targetOptions: TargetOptions = {};
  if (options.system) {
    if (!options.user) throw new MustFixError('--system needs --user NAME: the account the service runs as');
    if (!options.explicitHome) {
      const userHome = userHomeOf(options.user, readFileSync('/etc/passwd', 'utf8'));
      if (!userHome)
        throw new MustFixError(`no user ${options.user} in /etc/passwd; name an existing account`);
      home = join(userHome, '.wren');
    }
    targetOptions = { system: { user: options.user } };
  }
  const spec: ServiceSpec = {
    home,
    node: process.execPath,
    main: options.main ?? fileURLToPath(new URL('../main.js', import.meta.url)),
    path: process.env['PATH'] ?? '/usr/local/bin:/usr/bin:/bin',
    version: wrenVersion(),
  };
  return { target: serviceTarget(spec, access, targetOptions), access };
}

function printRan(
  ran: Array<{ command: string; ok: boolean; error?: string }>,
  write: (text: string) => void,
) {
  for (const step of ran)
    write(`  ${step.ok ? 'ran' : 'FAILED'}: ${step.command}${step.error ? ` (${step.error})` : ''}\n`);
}

/** `wren service install`. */
export function runServiceInstall(options: ServiceOptions): number {
  const write = options.write ?? ((text: string) => process.stdout.write(text));
  const { target, access } = targetFor(options);
  const result = installService(target, access, options.force);
  if (result.status === 'unchanged') {
    write(`already installed: ${target.path} (unchanged)\n`);
    return EXIT.ok;
  }
  write(`${result.status === 'replaced' ? 'replaced' : 'wrote'} ${target.path}:\n\n${target.content}\n`);
  if (target.start) printRan(result.ran, write);
  else
    write(
      `The service manager is not reachable from here; run:\n${target.manual.map((line) => `  ${line}\n`).join('')}`,
    );
  for (const hint of target.hints) write(`${hint}\n`);
  write('Logs: wren service logs -f\n');
  return result.ran.every((step) => step.ok) ? EXIT.ok : EXIT.failed;
}

/** `wren service uninstall`. */
export function runServiceUninstall(options: ServiceOptions): number {
  const write = options.write ?? ((text: string) => process.stdout.write(text));
  const { target, access } = targetFor(options);
  const result = uninstallService(target, access);
  if (result.status === 'absent') {
    write(`not installed: ${target.path} does not exist\n`);
    return EXIT.ok;
  }
  printRan(result.ran, write);
  write(`removed ${target.path}\n`);
  return result.ran.every((step) => step.ok) ? EXIT.ok : EXIT.failed;
}

/** `wren service status`: exit 0 when installed and running, 1 otherwise. */
export function runServiceStatus(options: ServiceOptions & { json?: boolean }): number {
  const write = options.write ?? ((text: string) => process.stdout.write(text));
  const { target, access } = targetFor(options);
  const state = serviceState(target, access);
  if (options.json) write(`${JSON.stringify({ kind: target.kind, ...state })}\n`);
  else {
    const running =
      state.running === undefined ? 'unknown (service manager not reachable)' : state.running ? 'yes' : 'no';
    write(`service:   ${state.installed ? `installed (${target.kind})` : 'not installed'}  ${target.path}\n`);
    if (state.installed && !state.ours) write('           (not written by `wren service install`)\n');
    else if (state.installed && !state.current)
      write('           (differs from what this wren would write: wren service install --force)\n');
    write(`running:   ${running}\n`);
  }
  return state.installed && state.running ? EXIT.ok : EXIT.failed;
}

/**
 * `wren doctor`'s line: whether this home's service is installed and running (undefined where Wren has no
 * service manager to ask).
 */
export function serviceCheck(
  home: string,
  access?: SystemAccess,
): { id: string; status: 'ok' | 'warn'; message: string; fix?: string } | undefined {
  let state: ReturnType<typeof serviceState>;
  try {
    const found = targetFor({ home, ...(access ? { access } : {}) });
    state = serviceState(found.target, found.access);
  } catch (error) {
    if (error instanceof ServiceError) return undefined;
    throw error;
  }
  const id = 'service';
  if (!state.installed) {
    return { id, status: 'ok', message: 'not installed as a service (optional: wren service install)' };
  }
  if (state.running === false) {
    return {
      id,
      status: 'warn',
      message: `${state.path} is installed but not running`,
      fix: 'wren service logs',
    };
  }
  const running = state.running ? 'running' : 'state unknown (service manager not reachable)';
  return { id, status: 'ok', message: `installed (${state.path}), ${running}` };
}

/** Runs a service command; a refusal (ServiceError) is one line on stderr and exit 1. */
function guarded(run: () => number): number {
  try {
    return run();
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    process.stderr.write(`wren: ${error.message}\n`);
    return EXIT.failed;
  }
}

export function registerServiceCommands(program: Command, home: () => string): void {
  const service = program
    .command('service')
    .description('run Wren as a service (systemd on Linux, launchd on macOS)');
  const base = (options: { system?: boolean; user?: string; force?: boolean }): ServiceOptions => {
    const explicitHome = program.opts<{ home?: string }>().home;
    return { ...options, home: home(), ...(explicitHome ? { explicitHome } : {}) };
  };
  const system = (command: Command) =>
    command
      .option('--system', 'a system unit in /etc/systemd/system (Linux, as root) instead of a user unit')
      .option('--user <name>', 'with --system: the account the service runs as');
  system(
    service.command('install').description('write the unit and start it (at login; at boot with linger)'),
  )
    .option('--force', 'replace a different unit already there')
    .action((options: { system?: boolean; user?: string; force?: boolean }) => {
      process.exitCode = guarded(() => runServiceInstall(base(options)));
    });
  system(
    service.command('uninstall').description('stop the service and remove the unit install wrote'),
  ).action((options: { system?: boolean; user?: string }) => {
    process.exitCode = guarded(() => runServiceUninstall(base(options)));
  });
  system(service.command('status').description('whether the service is installed and running'))
    .option('--json', 'print JSON')
    .action((options: { system?: boolean; user?: string; json?: boolean }) => {
      process.exitCode = guarded(() =>
        runServiceStatus({ ...base(options), ...(options.json ? { json: true } : {}) }),
      );
    });
  service
    .command('logs')
    .description(`show the gateway log (<home>/logs/${LOG_FILE}) readably`)
    .option('-f, --follow', 'keep printing new lines')
    .option('-n, --lines <count>', 'how many of the last lines', '100')
    .action(async (options: { follow?: boolean; lines: string }) => {
      const count = Number.parseInt(options.lines, 10);
      const controller = new AbortController();
      process.once('SIGINT', () => controller.abort());
      await showLog(join(home(), 'logs', LOG_FILE), {
        count: Number.isFinite(count) && count > 0 ? count : 100,
        follow: Boolean(options.follow),
        write: (text) => process.stdout.write(text),
        signal: controller.signal,
      });
    });
}
