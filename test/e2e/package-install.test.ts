import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import * as tar from 'tar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeLlmServer, startFakeLlmServer } from '../fakes/fake-llm-server.js';
import { startFakeSlack } from '../fakes/fake-slack-server.js';
import { cliEnv, makeHome, waitFor } from '../support/wren-home.js';

/**
 * The package as a user gets it: `npm pack`, then `npm install -g <tarball> --omit=dev` into a fresh prefix,
 * then the installed `wren` runs from there (its version, its help, `wren start` with the web app) against
 * the fake model. Offline, twice over:
 * - npm resolves the tarball's dependency ranges from packuments, which `npm ci` never caches (it installs
 *   from the lock). A registry on 127.0.0.1 serves packuments made from package-lock.json — only the versions
 *   the lock names — and npm takes every tarball from the cache `npm ci` filled (by integrity); a tarball
 *   request that reaches this registry is answered 404 and fails the install.
 * - better-sqlite3's install script (prebuild-install) would download a binary from GitHub: it finds one in
 *   its "local prebuilds" folder first (`npm_config_better_sqlite3_local_prebuilds`), made here from the
 *   binary this clone's `npm ci` built.
 * The pack skips the lifecycle scripts: the global setup has just built dist/, and `prepack` would rebuild it
 * under the other tests running at the same time (`npm pack` with scripts is what the README and CI run).
 */
const REPO = resolve('.');
const INSTALL_MS = 300_000;
const TOKEN = 'package-install-test-token';
const SLACK_BOT_TOKEN = 'xoxb-test-0123456789';
const SLACK_APP_TOKEN = 'xapp-test-0123456789';
const run = promisify(execFile);

let work: string;
let prefix: string;
let registry: Server;
let tarballRequests: string[];
let registryUrl: string;
let llm: FakeLlmServer;
const gateways = new Set<ChildProcess>();
const cleanups: Array<() => Promise<void>> = [];

/** One packument per package name of the lock, with each version the lock names (dependency ranges, os/cpu). */
function packumentsFromLock(baseUrl: () => string): Map<string, Record<string, unknown>> {
  const lock = JSON.parse(readFileSync(join(REPO, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, Record<string, unknown>>;
  };
  const fields = ['dependencies', 'optionalDependencies', 'peerDependencies', 'peerDependenciesMeta'];
  const more = ['bin', 'engines', 'os', 'cpu', 'libc', 'hasInstallScript'];
  const byName = new Map<string, Record<string, unknown>>();
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (!path || entry['link'] || typeof entry['version'] !== 'string' || !entry['integrity']) continue;
    const name = (entry['name'] as string | undefined) ?? path.slice(path.lastIndexOf('node_modules/') + 13);
    const version = entry['version'];
    const manifest: Record<string, unknown> = { name, version };
    for (const field of [...fields, ...more]) if (entry[field] !== undefined) manifest[field] = entry[field];
    manifest['dist'] = {
      integrity: entry['integrity'],
      tarball: `${baseUrl()}/${name}/-/tarball-${version}.tgz`,
    };
    const versions = (byName.get(name) ?? {}) as Record<string, unknown>;
    versions[version] = manifest;
    byName.set(name, versions);
  }
  return byName;
}

async function startLockRegistry(): Promise<string> {
  let url = '';
  const packuments = packumentsFromLock(() => url);
  tarballRequests = [];
  registry = createServer((request, response) => {
    const name = decodeURIComponent((request.url ?? '/').slice(1));
    if (name.includes('/-/')) tarballRequests.push(name);
    const versions = packuments.get(name);
    if (!versions) {
      response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
      return;
    }
    const latest = Object.keys(versions).at(-1)!;
    const body = { name, 'dist-tags': { latest }, versions, modified: '2020-01-01T00:00:00.000Z' };
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((listening) => registry.listen(0, '127.0.0.1', listening));
  url = `http://127.0.0.1:${(registry.address() as AddressInfo).port}`;
  return url;
}

/** A prebuild-install archive of the binary this clone built, named as prebuild-install looks for it. */
async function localPrebuild(): Promise<string> {
  const folder = join(work, 'prebuilds');
  mkdirSync(folder);
  const sqlite = join(REPO, 'node_modules/better-sqlite3');
  const { version } = JSON.parse(readFileSync(join(sqlite, 'package.json'), 'utf8')) as { version: string };
  const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  await tar.create({ gzip: true, file: join(folder, name), cwd: sqlite }, [
    'build/Release/better_sqlite3.node',
  ]);
  return folder;
}

async function packAndInstall(): Promise<void> {
  const packed = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], {
    cwd: REPO,
    maxBuffer: 64 * 1024 * 1024,
  });
  const [info] = JSON.parse(packed.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  files = info!.files.map((file) => file.path);
  registryUrl = await startLockRegistry();
  const prebuilds = await localPrebuild();
  await run(
    'npm',
    [
      'install',
      '--global',
      '--prefix',
      prefix,
      '--omit=dev',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
    ].concat(['--registry', `${registryUrl}/`, join(work, info!.filename)]),
    {
      cwd: work,
      env: {
        ...process.env,
        npm_config_better_sqlite3_local_prebuilds: prebuilds,
        npm_config_update_notifier: 'false',
      },
      maxBuffer: 64 * 1024 * 1024,
    },
  );
}

let files: string[] = [];
const installed = () => join(prefix, 'lib/node_modules/wren');
const wrenBin = () => join(prefix, 'bin/wren');

const modelConfig = () =>
  [
    'models:',
    '  - name: fake',
    '    protocol: openai',
    `    base_url: ${llm.baseUrls.openai}`,
    '    model: fake-model',
  ].join('\n');

/** `wren start` from the install on a free port; resolves once it printed where it listens. */
async function startInstalled(home: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(wrenBin(), ['start', '--port', '0'], {
    cwd: work,
    env: cliEnv(home, { WREN_GATEWAY_TOKEN: TOKEN }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  gateways.add(child);
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await waitFor(() => /Listening on http:\/\/\S+/.test(output) || child.exitCode !== null, 60_000);
  const url = output.match(/Listening on (http:\/\/\S+)/)?.[1];
  expect(url, output).toBeDefined();
  return { child, url: url! };
}

async function stopInstalled(child: ChildProcess): Promise<void> {
  gateways.delete(child);
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((done) => child.once('exit', done));
  child.kill('SIGTERM');
  await exited;
}

/** The Slack channel's line of `/api/status`. */
async function slackStatus(url: string): Promise<{ state: string; detail?: string } | undefined> {
  const response = await fetch(`${url}/api/status`, { headers: { authorization: `Bearer ${TOKEN}` } });
  const status = (await response.json()) as {
    channels?: Array<{ name: string; state: string; detail?: string }>;
  };
  return status.channels?.find((channel) => channel.name === 'slack');
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'wren-pack-'));
  prefix = join(work, 'prefix');
  llm = await startFakeLlmServer();
  await packAndInstall();
}, INSTALL_MS);

afterAll(async () => {
  for (const child of gateways) await stopInstalled(child);
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await llm?.close();
  await new Promise((closed) => (registry ? registry.close(closed) : closed(undefined)));
  rmSync(work, { recursive: true, force: true });
}, INSTALL_MS);

describe('the package (npm pack, npm install -g --omit=dev)', () => {
  it('packs the build and the web app, and no source, test or dev file', () => {
    expect(files).toEqual(
      expect.arrayContaining(['dist/cli/main.js', 'dist/web/index.html', 'dist/llm/cl100k_base.ranks.json']),
    );
    expect(files).toContain('package.json');
    expect(
      files.filter((path) => /^(src|test|web|bench|docs)\//.test(path) || path.endsWith('.test.js')),
    ).toEqual([]);
  });

  it('installs from the cache and the local registry alone, with production dependencies only', () => {
    expect(tarballRequests).toEqual([]);
    const dependencies = readdirSync(join(installed(), 'node_modules'));
    expect(dependencies).toContain('better-sqlite3');
    for (const dev of ['typescript', 'vite', 'vitest', '@biomejs', 'tsx'])
      expect(dependencies).not.toContain(dev);
    expect(
      existsSync(join(installed(), 'node_modules/better-sqlite3/build/Release/better_sqlite3.node')),
    ).toBe(true);
  });

  it('answers --version and lists service, backup and restore in --help', async () => {
    const { version } = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string };
    const env = cliEnv(makeHome('{}\n'));
    expect((await run(wrenBin(), ['--version'], { cwd: work, env })).stdout.trim()).toBe(version);
    const help = await run(wrenBin(), ['--help'], { cwd: work, env });
    expect(help.stdout).toMatch(/^\s+service\b/m);
    expect(help.stdout).toMatch(/^\s+backup\b/m);
    expect(help.stdout).toMatch(/^\s+restore\b/m);
  });

  it(
    'runs wren start from the install: health, a chat turn and the web app',
    async () => {
      llm.setHandler((request) => ({
        text: `installed wren heard: ${request.lastUserText.split('\n').at(-1)}`,
      }));
      const { url } = await startInstalled(makeHome(modelConfig()));
      const health = await fetch(`${url}/api/health`);
      expect(health.status).toBe(200);
      const chat = await fetch(`${url}/api/chat`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'hello from the tarball' }),
      });
      expect(chat.status).toBe(200);
      expect(((await chat.json()) as { reply: string }).reply).toBe(
        'installed wren heard: hello from the tarball',
      );
      const index = await fetch(`${url}/`);
      expect(index.status).toBe(200);
      expect(await index.text()).toContain('<title>Wren</title>');
    },
    INSTALL_MS,
  );

  it(
    'leaves the Slack SDK out, says how to add it, and `wren channels add slack` makes Slack answer',
    async () => {
      for (const sdk of [
        '@slack/web-api',
        '@slack/socket-mode',
        '@larksuiteoapi/node-sdk',
        '@discordjs/core',
      ])
        expect(existsSync(join(installed(), 'node_modules', sdk)), sdk).toBe(false);
      const slack = await startFakeSlack({ botToken: SLACK_BOT_TOKEN, appToken: SLACK_APP_TOKEN });
      cleanups.push(() => slack.close());
      const home = makeHome(
        [
          modelConfig(),
          'channels:',
          '  slack:',
          `    bot_token: ${SLACK_BOT_TOKEN}`,
          `    app_token: ${SLACK_APP_TOKEN}`,
          '    owner: [U0OWNER01]',
          `    api_url: ${slack.apiUrl}`,
          '',
        ].join('\n'),
      );
      const env = cliEnv(home, {
        npm_config_registry: `${registryUrl}/`,
        npm_config_prefer_offline: 'true',
        npm_config_update_notifier: 'false',
      });
      const listed = async () =>
        (
          JSON.parse((await run(wrenBin(), ['channels', 'list', '--json'], { cwd: work, env })).stdout) as {
            channels: Array<{ name: string; sdk: string; packages: Array<{ location: string }> }>;
          }
        ).channels.find((entry) => entry.name === 'slack')!;
      expect(await listed()).toMatchObject({ sdk: 'missing' });
      const doctor = await run(wrenBin(), ['doctor', '--json'], { cwd: work, env }).catch(
        (error: { stdout: string }) => error,
      );
      expect(doctor.stdout).toMatch(/slack is enabled but its SDK is not installed/);

      const before = await startInstalled(home);
      await waitFor(async () => (await slackStatus(before.url))?.state === 'failed', 30_000);
      expect((await slackStatus(before.url))?.detail).toContain('run `wren channels add slack`');
      await stopInstalled(before.child);

      const added = await run(wrenBin(), ['channels', 'add', 'slack'], {
        cwd: work,
        env,
        maxBuffer: 16 * 1024 * 1024,
      });
      expect(added.stdout).toContain('Installed @slack/socket-mode@3.1.0, @slack/web-api@8.2.0.');
      expect(tarballRequests).toEqual([]);
      expect(await listed()).toMatchObject({
        sdk: 'ready',
        packages: [{ location: 'installed' }, { location: 'installed' }],
      });

      llm.setHandler(() => ({ text: 'hello from the installed Slack SDK' }));
      const after = await startInstalled(home);
      await waitFor(async () => (await slackStatus(after.url))?.state === 'connected', 60_000);
      slack.message({ user: 'U0OWNER01', channel: 'D0OWNERDM', text: 'hi' });
      await waitFor(() => slack.sent().some((call) => call.body['channel'] === 'D0OWNERDM'), 60_000);
      expect(slack.sent().map((call) => call.body['text'])).toContain('hello from the installed Slack SDK');
      await stopInstalled(after.child);
    },
    INSTALL_MS,
  );
});
