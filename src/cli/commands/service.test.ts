import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SystemAccess } from '../../daemon/service-manager.js';
import { runServiceInstall, runServiceStatus, runServiceUninstall, serviceCheck } from './service.js';

let root: string;
let calls: string[];
let output: string;

/** A Linux machine with a reachable user systemd, its commands recorded; `active` answers is-active. */
function linux(active = 'active'): SystemAccess {
  return {
    platform: 'linux',
    homeDir: join(root, 'user'),
    uid: 1000,
    user: 'alice',
    run(command, args) {
      const line = [command, ...args].join(' ');
      calls.push(line);
      if (line.endsWith('is-active wren.service')) return { code: 0, stdout: `${active}\n`, stderr: '' };
      return { code: 0, stdout: '', stderr: '' };
    },
  };
}

const options = (access: SystemAccess) => ({
  home: join(root, 'home'),
  access,
  main: resolve('package.json'),
  write: (text: string) => {
    output += text;
  },
});

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'wren-service-cli-'));
  calls = [];
  output = '';
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('wren service', () => {
  it('install prints the path and content it wrote; again says already installed; uninstall removes it', () => {
    const access = linux();
    const unit = join(root, 'user/.config/systemd/user/wren.service');
    expect(runServiceInstall(options(access))).toBe(0);
    expect(output).toContain(`wrote ${unit}:`);
    expect(output).toContain(`Environment="WREN_HOME=${join(root, 'home')}"`);
    expect(output).toContain('ran: systemctl --user daemon-reload');
    expect(output).toContain('loginctl enable-linger alice');
    output = '';
    expect(runServiceInstall(options(access))).toBe(0);
    expect(output).toBe(`already installed: ${unit} (unchanged)\n`);
    output = '';
    expect(runServiceStatus(options(access))).toBe(0);
    expect(output).toMatch(/installed \(systemd-user\)[\s\S]*running: {3}yes/);
    expect(runServiceUninstall(options(access))).toBe(0);
    expect(existsSync(unit)).toBe(false);
    output = '';
    expect(runServiceUninstall(options(access))).toBe(0);
    expect(output).toContain('not installed');
  });

  it('doctor: not installed, installed and running, installed but stopped', () => {
    expect(serviceCheck(join(root, 'home'), linux())).toMatchObject({
      status: 'ok',
      message: /not installed/,
    });
    runServiceInstall(options(linux()));
    expect(serviceCheck(join(root, 'home'), linux())).toMatchObject({ status: 'ok', message: /running/ });
    expect(serviceCheck(join(root, 'home'), linux('inactive'))).toMatchObject({ status: 'warn' });
  });

  it('--system needs --user, and refuses an unknown account', () => {
    const access = { ...linux(), uid: 0 };
    expect(() => runServiceInstall({ ...options(access), system: true })).toThrow(/--user NAME/);
    expect(() => runServiceInstall({ ...options(access), system: true, user: 'no-such-user-xyz' })).toThrow(
      /no user no-such-user-xyz/,
    );
  });
});
