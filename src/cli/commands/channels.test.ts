import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runCommands } from '../../../test/support/run-commands.js';
import { installPlatformSdk } from '../../channels/install-platform-sdk.js';
import { sdkLoader } from '../../channels/platform-sdk.js';
import { type ChannelListing, registerChannelCommands } from './channels.js';

const dirs: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  process.exitCode = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

function homeWith(config: string): string {
  const home = tempDir('wren-channels-home-');
  writeFileSync(join(home, 'config.yaml'), config, { mode: 0o600 });
  return home;
}

/** Runs `wren channels ARGS` in this process and returns what it printed. */
const wren = (home: string, args: string[]) =>
  runCommands(registerChannelCommands, home, ['channels', ...args]);

const CONFIG = [
  'channels:',
  '  telegram:',
  '    token: 123456:TEST-token_abcdefghijklmnop',
  '    owner: [42]',
  '  slack:',
  '    enabled: false',
  '    bot_token: xoxb-1-2-abc',
  '    app_token: xapp-1-A1-2-abc',
  '    owner: [U0123ABCD]',
  '',
].join('\n');

describe('wren channels list', () => {
  it('shows every platform: configured or not, built in or with its SDK', async () => {
    const { stdout, code } = await wren(homeWith(CONFIG), ['list', '--json']);
    expect(code).toBe(0);
    const { channels } = JSON.parse(stdout) as { channels: ChannelListing[] };
    const byName = new Map(channels.map((entry) => [entry.name, entry]));
    expect([...byName.keys()]).toEqual([
      'telegram',
      'email',
      'slack',
      'discord',
      'wecom',
      'feishu',
      'dingtalk',
      'qq',
      'signal',
      'mattermost',
      'matrix',
      'whatsapp',
    ]);
    expect(byName.get('telegram')).toMatchObject({ config: 'on', sdk: 'built in', packages: [] });
    expect(byName.get('slack')).toMatchObject({ config: 'off', sdk: 'ready' });
    expect(byName.get('slack')?.packages.map((pkg) => pkg.location)).toEqual(['bundled', 'bundled']);
    expect(byName.get('feishu')).toMatchObject({ config: 'not configured', sdk: 'ready' });
    const text = await wren(homeWith(CONFIG), []);
    expect(text.stdout).toMatch(/^telegram\s+on\s+SDK built in$/m);
    expect(text.stdout).toMatch(/^discord\s+not configured\s+SDK ready$/m);
  });

  it('still lists the SDKs when config.yaml is invalid, and says so', async () => {
    const { stdout, stderr, code } = await wren(homeWith('channels: [oops\n'), ['list', '--json']);
    expect(code).toBe(0);
    expect(stderr).toMatch(/config.yaml could not be read/);
    const { channels } = JSON.parse(stdout) as { channels: ChannelListing[] };
    expect(channels.every((entry) => entry.config === 'unknown')).toBe(true);
  });
});

describe('wren channels add', () => {
  it('refuses an unknown channel with the list of names (exit 2)', async () => {
    const { stderr, code } = await wren(homeWith('{}\n'), ['add', 'myspace']);
    expect(code).toBe(2);
    expect(stderr).toContain(
      'no channel named myspace (channels: telegram, email, slack, discord, wecom, feishu, dingtalk, qq, signal, mattermost, matrix, whatsapp)',
    );
  });

  it('has nothing to install for a built-in channel or an SDK already present, and writes nothing', async () => {
    const home = homeWith('{}\n');
    expect((await wren(home, ['add', 'telegram'])).stdout).toMatch(/telegram channel is built in/);
    expect((await wren(home, ['add', 'feishu'])).stdout).toMatch(/feishu channel's SDK is already available/);
    expect(existsSync(join(home, 'extensions'))).toBe(false);
  });
});

describe('installing an SDK with npm (offline: a package from a local folder)', () => {
  function localPackage(name: string): string {
    const folder = tempDir('wren-local-sdk-');
    writeFileSync(join(folder, 'package.json'), JSON.stringify({ name, version: '1.2.3', main: 'index.js' }));
    writeFileSync(join(folder, 'index.js'), "exports.greet = () => 'hello from the installed SDK';");
    return folder;
  }

  it('installs into a private extensions folder of its own, where the loader finds it', async () => {
    const dir = join(tempDir('wren-ext-home-'), 'extensions');
    const folder = localPackage('wren-local-sdk');
    const result = await installPlatformSdk({
      dir,
      packages: { 'wren-local-sdk': `file:${folder}` },
      env: { ...process.env, npm_config_update_notifier: 'false', npm_config_offline: 'true' },
    });
    expect(result).toEqual({ ok: true, installed: [`wren-local-sdk@file:${folder}`] });
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))).toMatchObject({
      name: 'wren-extensions',
      private: true,
    });
    const sdk = sdkLoader('feishu', dir)<{ greet: () => string }>('wren-local-sdk');
    expect(sdk.greet()).toBe('hello from the installed SDK');
  });

  it('reports a failed install with the command to run by hand', async () => {
    const dir = join(tempDir('wren-ext-home-'), 'extensions');
    const gone = join(tempDir('wren-gone-'), 'nothing-here');
    const result = await installPlatformSdk({
      dir,
      packages: { 'wren-local-sdk': `file:${gone}` },
      env: {
        ...process.env,
        npm_config_update_notifier: 'false',
        npm_config_offline: 'true',
        npm_config_loglevel: 'silent',
      },
    });
    expect(result).toMatchObject({
      ok: false,
      error: expect.stringMatching(/npm install failed|still cannot be loaded/),
    });
    if (result.ok) throw new Error('the install of a missing folder succeeded');
    expect(result.command).toContain(`npm install --prefix ${dir} --omit=dev`);
  });

  it('says plainly when npm itself is missing', async () => {
    const dir = join(tempDir('wren-ext-home-'), 'extensions');
    mkdirSync(dir, { recursive: true });
    const result = await installPlatformSdk({
      dir,
      packages: { '@slack/web-api': '8.2.0' },
      npm: join(dir, 'no-such-npm'),
    });
    expect(result).toEqual({
      ok: false,
      error: `npm was not found (looked for ${join(dir, 'no-such-npm')})`,
      command: `npm install --prefix ${dir} --omit=dev --save-exact --ignore-scripts --no-audit --no-fund @slack/web-api@8.2.0`,
    });
  });
});
