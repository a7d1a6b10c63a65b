import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { launchdPlist } from './launchd-plist.js';
import { formatLogLine, readLines } from './service-logs.js';
import {
  type CommandResult,
  installService,
  ServiceError,
  type SystemAccess,
  serviceState,
  serviceTarget,
  uninstallService,
} from './service-manager.js';
import { MARKER, type ServiceSpec, START_NODE_FLAGS } from './service-spec.js';
import { userHomeOf } from './system-access.js';
import { systemdUnit } from './systemd-unit.js';

let root: string;
let spec: ServiceSpec;
let calls: string[];
let answers: Record<string, CommandResult>;

/** A machine whose commands are recorded and answered from `answers` (unknown programs: missing). */
function access(platform: NodeJS.Platform, extra: Partial<SystemAccess> = {}): SystemAccess {
  return {
    platform,
    homeDir: join(root, 'user-home'),
    uid: 1000,
    user: 'alice',
    systemUnitDir: join(root, 'etc-systemd'),
    run(command, args) {
      const line = [command, ...args].join(' ');
      calls.push(line);
      // The longest matching prefix answers.
      const known = Object.entries(answers)
        .filter(([prefix]) => line.startsWith(prefix))
        .sort(([a], [b]) => b.length - a.length)[0];
      return known?.[1] ?? { code: 127, stdout: '', stderr: '', missing: true };
    },
    ...extra,
  };
}

const ok = (stdout = ''): CommandResult => ({ code: 0, stdout, stderr: '' });

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'wren-service-'));
  const home = join(root, 'wren home %h');
  mkdirSync(home);
  // Real paths: systemd-analyze verify checks that ExecStart's program exists.
  spec = {
    home,
    node: process.execPath,
    main: resolve('package.json'),
    path: '/usr/bin:/bin',
    version: '9.9.9',
  };
  calls = [];
  answers = { 'systemctl --user show-environment': ok(), 'systemctl --user': ok(), loginctl: ok('no\n') };
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const analyze = spawnSync('systemd-analyze', ['--version']).status === 0;

function verify(unit: string): void {
  const dir = mkdtempSync(join(root, 'verify-'));
  writeFileSync(join(dir, 'wren.service'), unit);
  execFileSync('systemd-analyze', ['verify', join(dir, 'wren.service')], { stdio: 'pipe' });
}

describe('generated units', () => {
  it('run Node with the same flags as `npm start`', () => {
    const { scripts } = JSON.parse(readFileSync(resolve('package.json'), 'utf8')) as {
      scripts: { start: string };
    };
    const flags = scripts.start.split(/\s+/).filter((word) => word.startsWith('--'));
    expect(flags).toEqual([...START_NODE_FLAGS]);
  });

  it('a Linux user unit: marker, home, absolute node with the memory flags, restart on failure', () => {
    const unit = systemdUnit(spec);
    expect(unit.split('\n')[0]).toBe(`# ${MARKER}`);
    expect(unit).toContain(
      `ExecStart="${process.execPath}" "--max-semi-space-size=1" "--v8-pool-size=1" "${spec.main}" "start"`,
    );
    expect(unit).toContain(`Environment="WREN_HOME=${spec.home.replace('%h', '%%h')}"`);
    expect(unit).toContain('Restart=on-failure');
    expect(unit).toContain('WantedBy=default.target');
    expect(unit).not.toContain('User=');
    if (analyze) verify(unit);
  });

  it('a Linux system unit runs as the named user', () => {
    const unit = systemdUnit(spec, { user: userInfo().username });
    expect(unit).toContain(`User=${userInfo().username}`);
    expect(unit).toContain('WantedBy=multi-user.target');
    if (analyze) verify(unit);
  });

  it('quotes hostile paths and refuses what a unit cannot carry', () => {
    const odd = { ...spec, main: '/opt/a "b" $HOME\\c/main.js' };
    expect(systemdUnit(odd)).toContain('"/opt/a \\"b\\" $$HOME\\\\c/main.js"');
    expect(() => systemdUnit({ ...spec, home: '/tmp/x\nExecStartPre=/bin/rm -rf /' })).toThrow(/line break/);
    expect(() => systemdUnit({ ...spec, home: 'relative/home' })).toThrow(/absolute/);
    expect(() => systemdUnit(spec, { user: 'root\nUser=x' })).toThrow(/user name/);
    expect(() => launchdPlist({ ...spec, node: '/usr/bin/node\r' })).toThrow(/line break/);
  });

  it('a macOS launchd agent: KeepAlive, RunAtLoad, logs in the home, XML-escaped', () => {
    const plist = launchdPlist({ ...spec, home: '/Users/a&b/<wren>' });
    expect(plist).toContain('<key>RunAtLoad</key> <true/>');
    expect(plist).toMatch(/<key>KeepAlive<\/key>\s*<dict>\s*<key>SuccessfulExit<\/key> <false\/>/);
    expect(plist).toContain('<string>/Users/a&amp;b/&lt;wren&gt;/logs/service.err.log</string>');
    expect(plist).toContain('<string>--max-semi-space-size=1</string>');
    expect(plist).toContain('<string>--v8-pool-size=1</string>');
    expect(plist).toContain(MARKER.replace(/`/g, '`'));
    const plutil = spawnSync('plutil', ['-lint', '-'], { input: plist });
    if (plutil.status !== null && !plutil.error) expect(plutil.status).toBe(0);
  });
});

describe('install, status and uninstall (Linux user unit)', () => {
  it('writes the unit, starts it, says so; a second install is unchanged and runs nothing', () => {
    const machine = access('linux');
    const target = serviceTarget(spec, machine);
    expect(target.path).toBe(join(root, 'user-home/.config/systemd/user/wren.service'));
    expect(target.hints.join(' ')).toContain('loginctl enable-linger alice');
    calls = [];
    const first = installService(target, machine);
    expect(first.status).toBe('installed');
    expect(readFileSync(target.path, 'utf8')).toBe(target.content);
    expect(calls).toEqual([
      'systemctl --user daemon-reload',
      'systemctl --user enable wren.service',
      'systemctl --user restart wren.service',
    ]);
    calls = [];
    expect(installService(target, machine).status).toBe('unchanged');
    expect(calls).toEqual([]);
  });

  it('refuses to overwrite a different unit without --force, and replaces it with it', () => {
    const machine = access('linux');
    const target = serviceTarget(spec, machine);
    mkdirSync(join(target.path, '..'), { recursive: true });
    writeFileSync(target.path, '[Service]\nExecStart=/usr/bin/something-else\n');
    expect(() => installService(target, machine)).toThrow(/Wren did not write it.*--force/);
    expect(readFileSync(target.path, 'utf8')).toContain('something-else');
    expect(installService(target, machine, true).status).toBe('replaced');
    expect(readFileSync(target.path, 'utf8')).toBe(target.content);
    const newer = serviceTarget({ ...spec, version: '10.0.0' }, machine);
    expect(() => installService(newer, machine)).toThrow(/older `wren service install`/);
  });

  it('uninstall removes only its own file and is idempotent', () => {
    const machine = access('linux');
    const target = serviceTarget(spec, machine);
    installService(target, machine);
    const neighbour = join(target.path, '../other.service');
    writeFileSync(neighbour, '[Service]\n');
    calls = [];
    expect(uninstallService(target, machine).status).toBe('removed');
    expect(calls).toEqual(['systemctl --user disable --now wren.service', 'systemctl --user daemon-reload']);
    expect(existsSync(target.path)).toBe(false);
    expect(existsSync(neighbour)).toBe(true);
    expect(uninstallService(target, machine).status).toBe('absent');
    writeFileSync(target.path, '[Service]\nExecStart=/bin/true\n');
    expect(() => uninstallService(target, machine)).toThrow(/not written by/);
    expect(existsSync(target.path)).toBe(true);
  });

  it('status reads systemctl is-active', () => {
    const machine = access('linux');
    const target = serviceTarget(spec, machine);
    expect(serviceState(target, machine)).toMatchObject({ installed: false, running: false });
    installService(target, machine);
    answers['systemctl --user is-active'] = ok('active\n');
    expect(serviceState(target, machine)).toMatchObject({
      installed: true,
      ours: true,
      current: true,
      running: true,
    });
  });

  it('without a reachable systemctl: writes the unit, runs nothing, gives the commands', () => {
    answers = {};
    const machine = access('linux');
    const target = serviceTarget(spec, machine);
    expect(target.start).toBeUndefined();
    expect(target.manual).toContain('systemctl --user enable wren.service');
    expect(installService(target, machine).ran).toEqual([]);
    expect(serviceState(target, machine).running).toBeUndefined();
  });
});

describe('other targets', () => {
  it('a system unit needs root and goes to the system folder', () => {
    expect(() => serviceTarget(spec, access('linux'), { system: { user: 'alice' } })).toThrow(/needs root/);
    answers['systemctl show-environment'] = ok();
    answers['systemctl'] = ok();
    const machine = access('linux', { uid: 0 });
    const target = serviceTarget(spec, machine, { system: { user: 'alice' } });
    expect(target.path).toBe(join(root, 'etc-systemd/wren.service'));
    installService(target, machine);
    expect(readFileSync(target.path, 'utf8')).toContain('User=alice');
    expect(calls).toContain('systemctl enable wren.service');
  });

  it('macOS: the agent in ~/Library/LaunchAgents, bootstrapped in the gui domain', () => {
    answers = { 'launchctl help': ok(), 'launchctl bootout': { code: 3, stdout: '', stderr: 'not loaded' } };
    answers['launchctl bootstrap'] = ok();
    const machine = access('darwin');
    const target = serviceTarget(spec, machine);
    expect(target.path).toBe(join(root, 'user-home/Library/LaunchAgents/local.wren.gateway.plist'));
    calls = [];
    const result = installService(target, machine);
    expect(result.ran.every((step) => step.ok)).toBe(true);
    expect(calls.at(-1)).toBe(`launchctl bootstrap gui/1000 ${target.path}`);
    answers['launchctl print'] = ok('state = running\n');
    expect(serviceState(target, machine).running).toBe(true);
  });

  it('elsewhere: a clear refusal with the command to run by hand', () => {
    expect(() => serviceTarget(spec, access('win32'))).toThrow(ServiceError);
    expect(() => serviceTarget(spec, access('win32'))).toThrow(
      /--max-semi-space-size=1 --v8-pool-size=1 .* start/,
    );
  });

  it('finds a user home in a passwd file', () => {
    const passwd = 'root:x:0:0:root:/root:/bin/sh\nbob:x:1001:1001::/home/bob:/bin/bash\n';
    expect(userHomeOf('bob', passwd)).toBe('/home/bob');
    expect(userHomeOf('bo', passwd)).toBeUndefined();
  });
});

describe('logs', () => {
  it('prints JSON lines readably and anything else as it is', () => {
    const line = JSON.stringify({ level: 40, time: 0, pid: 7, msg: 'slow model', model: 'fake', ms: 900 });
    expect(formatLogLine(line)).toBe('1970-01-01T00:00:00.000Z WARN  slow model model=fake ms=900');
    expect(formatLogLine('not json {')).toBe('not json {');
    expect(formatLogLine('[1,2]')).toBe('[1,2]');
  });

  it('reads complete lines only and starts over after a rotation', () => {
    const file = join(root, 'wren.log');
    writeFileSync(file, 'one\ntwo\nhalf');
    const first = readLines(file, 0);
    expect(first.lines).toEqual(['one', 'two']);
    writeFileSync(file, 'new\n');
    expect(readLines(file, first.next).lines).toEqual(['new']);
    expect(readLines(join(root, 'missing.log'), 0).lines).toEqual([]);
  });
});
