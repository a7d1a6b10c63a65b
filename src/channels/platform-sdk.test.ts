import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MessageBus } from '../bus/message-bus.js';
import type { ChannelLedger } from './channel-ledger.js';
import { FeishuChannel } from './feishu/feishu-channel.js';
import { feishuSectionSchema, toFeishuConfig } from './feishu/feishu-config.js';
import { platforms } from './platform-registry.js';
import { SdkMissingError, sdkImporter, sdkLoader, sdkLocation } from './platform-sdk.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** An extensions folder holding one CommonJS package `name` whose index is `source`. */
function extensionsWith(name: string, source: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'wren-extensions-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'package.json'), '{"name":"wren-extensions","private":true}\n');
  const folder = join(dir, 'node_modules', name);
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, 'package.json'), JSON.stringify({ name, version: '1.0.0', main: 'index.js' }));
  writeFileSync(join(folder, 'index.js'), source);
  return dir;
}

describe('platform SDKs loaded on demand', () => {
  it("loads a package from Wren's own dependencies first", () => {
    const empty = extensionsWith('unrelated-sdk', 'module.exports = {};');
    const yaml = sdkLoader('feishu', empty)<{ parse: (text: string) => unknown }>('yaml');
    expect(yaml.parse('a: 1')).toEqual({ a: 1 });
    expect(sdkLocation('yaml', empty)).toBe('bundled');
  });

  it('then from the extensions folder that `wren channels add` fills', () => {
    const dir = extensionsWith('wren-test-sdk', "exports.hello = () => 'from extensions';");
    const sdk = sdkLoader('feishu', dir)<{ hello: () => string }>('wren-test-sdk');
    expect(sdk.hello()).toBe('from extensions');
    expect(sdkLocation('wren-test-sdk', dir)).toBe('installed');
  });

  it('names the channel and the command that installs it when neither has the package', () => {
    const dir = extensionsWith('unrelated-sdk', 'module.exports = {};');
    const load = () => sdkLoader('feishu', dir)('wren-absent-sdk');
    expect(load).toThrow(SdkMissingError);
    expect(load).toThrow(
      'the feishu channel needs the npm package wren-absent-sdk, which this install does not include: run `wren channels add feishu`, then restart Wren',
    );
    expect(sdkLocation('wren-absent-sdk', dir)).toBe('missing');
    expect(() => sdkLoader('slack')('wren-absent-sdk')).toThrow(/wren channels add slack/);
  });

  it('imports an ESM-only SDK (matrix-js-sdk is one) from the extensions folder, or names the command', async () => {
    const dir = extensionsWith('wren-esm-sdk', "export const hello = () => 'esm from extensions';");
    writeFileSync(
      join(dir, 'node_modules', 'wren-esm-sdk', 'package.json'),
      JSON.stringify({ name: 'wren-esm-sdk', version: '1.0.0', type: 'module', main: 'index.js' }),
    );
    const sdk = await sdkImporter('matrix', dir)<{ hello: () => string }>('wren-esm-sdk');
    expect(sdk.hello()).toBe('esm from extensions');
    const yaml = await sdkImporter('matrix', dir)<{ parse: (text: string) => unknown }>('yaml');
    expect(yaml.parse('a: 1')).toEqual({ a: 1 });
    await expect(sdkImporter('matrix', dir)('wren-absent-sdk')).rejects.toThrow(
      'the matrix channel needs the npm package wren-absent-sdk, which this install does not include: run `wren channels add matrix`, then restart Wren',
    );
    await expect(sdkImporter('matrix')('wren-esm-sdk')).rejects.toBeInstanceOf(SdkMissingError);
  });

  it('a present package whose own dependency is missing fails with that error, not "missing"', () => {
    const dir = extensionsWith('wren-broken-sdk', "module.exports = require('wren-gone-dependency');");
    const load = () => sdkLoader('feishu', dir)('wren-broken-sdk');
    expect(load).toThrow(/Cannot find module 'wren-gone-dependency'/);
    expect(load).not.toThrow(SdkMissingError);
  });

  it('an SDK that throws while loading passes its own error on', () => {
    const dir = extensionsWith('wren-throwing-sdk', "throw new Error('SDK exploded at load');");
    expect(() => sdkLoader('feishu', dir)('wren-throwing-sdk')).toThrow('SDK exploded at load');
  });

  it("pins the versions this clone's lock installed, as development dependencies only", () => {
    const pkg = JSON.parse(readFileSync(resolve('package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    const pinned = platforms.flatMap((platform) => Object.entries(platform.sdk ?? {}));
    expect(pinned.map(([name]) => name).sort()).toEqual([
      '@discordjs/core',
      '@discordjs/rest',
      '@discordjs/ws',
      '@larksuiteoapi/node-sdk',
      '@mattermost/client',
      '@mattermost/types',
      '@slack/socket-mode',
      '@slack/web-api',
      '@whiskeysockets/baileys',
      'dingtalk-stream',
      'matrix-js-sdk',
    ]);
    for (const [name, version] of pinned) {
      const installed = JSON.parse(readFileSync(resolve('node_modules', name, 'package.json'), 'utf8')) as {
        version: string;
      };
      // dingtalk-stream's own package.json says v2.1.5; npm's registry and lock file say 2.1.5.
      expect({ name, version }).toEqual({ name, version: installed.version.replace(/^v/, '') });
      expect(pkg.devDependencies[name]).toBe(version);
      expect(pkg.dependencies[name]).toBeUndefined();
    }
  });
});

describe('an adapter whose SDK is not installed', () => {
  it('shows failed with the install hint, and its start rejects', async () => {
    const config = toFeishuConfig(
      feishuSectionSchema.parse({
        app_id: 'cli_a1b2c3d4e5f60718',
        app_secret: 'secret-x',
        owner: ['ou_owner000000000000000000000000001'],
      }),
    );
    const ledger = {} as ChannelLedger;
    const channel = new FeishuChannel({
      bus: new MessageBus(),
      ledger,
      config: () => config,
      workspace: () => tmpdir(),
      sdk: (pkg) => {
        throw new SdkMissingError('feishu', pkg);
      },
    });
    await expect(channel.start()).rejects.toThrow(SdkMissingError);
    expect(channel.status()).toMatchObject({
      name: 'feishu',
      state: 'failed',
      detail: expect.stringContaining('run `wren channels add feishu`'),
    });
    await channel.stop();
  });
});
