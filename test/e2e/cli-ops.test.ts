import { chmodSync, mkdtempSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeLlmServer, startFakeLlmServer } from '../fakes/fake-llm-server.js';
import { startFakeSignalCli } from '../fakes/fake-signal-cli.js';
import { cliEnv, makeHome, runCli, startWren, waitFor } from '../support/wren-home.js';

let llm: FakeLlmServer;
const KEY = 'sk-ops-SECRET-998877';

const config = `
models:
  - name: good
    protocol: openai
    base_url: \${FAKE_BASE}
    api_key: \${TEST_KEY}
    model: fake-model
  - name: broken
    protocol: anthropic
    base_url: \${FAKE_ANTHROPIC}
    api_key: sk-wrong-literal-key-5555
    model: fake-model
    priority: 1
`;

const env = (home: string, extra: Record<string, string> = {}) =>
  cliEnv(home, {
    FAKE_BASE: llm.baseUrls.openai,
    FAKE_ANTHROPIC: llm.baseUrls.anthropic,
    TEST_KEY: KEY,
    ...extra,
  });

beforeAll(async () => {
  llm = await startFakeLlmServer({ apiKey: KEY });
});
afterAll(() => llm.close());
beforeEach(() => llm.reset());

describe('wren models', () => {
  it('lists endpoints and presets without secrets', async () => {
    const home = makeHome(config);
    const result = await runCli(['models'], env(home));
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/good\s+openai\s+fake-model/);
    expect(result.stdout).toMatch(/deepseek/);
    expect(result.stdout).not.toContain(KEY);
  });

  it('test reports latency for a working endpoint and the exact error for a broken one, exit 1', async () => {
    const home = makeHome(config);
    const result = await runCli(['models', 'test'], env(home));
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/✓ good {2}\d+ ms/);
    expect(result.stdout).toMatch(/✗ broken {2}.*401/);
    expect(result.stdout + result.stderr).not.toContain('sk-wrong-literal-key-5555');
    expect(result.stdout + result.stderr).not.toContain(KEY);
  });

  it('test NAME checks one endpoint; an unknown name is a usage error', async () => {
    const home = makeHome(config);
    expect((await runCli(['models', 'test', 'good'], env(home))).code).toBe(0);
    const unknown = await runCli(['models', 'test', 'nope'], env(home));
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no model named "nope" \(configured: good, broken\)/);
  });
});

describe('wren doctor', () => {
  it('reports a home other users can read, with the fix', async () => {
    const home = makeHome(config);
    chmodSync(home, 0o755);
    const result = await runCli(['doctor', '--json'], env(home));
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as {
      ok: boolean;
      checks: Array<{ id: string; status: string; fix?: string }>;
    };
    const permission = report.checks.find((check) => check.id === 'home.permissions');
    expect(permission).toMatchObject({ status: 'fail', fix: expect.stringMatching(/chmod 700/) });
    expect(report.checks.find((check) => check.id === 'config.valid')?.status).toBe('ok');
    expect(report.checks.find((check) => check.id === 'models.reachable.good')?.status).toBe('ok');
    expect(report.checks.find((check) => check.id === 'models.reachable.broken')?.status).toBe('fail');
  });

  it('passes on a private home with working models', async () => {
    const home = makeHome(config.replace(/ {2}- name: broken[\s\S]*$/, ''));
    const result = await runCli(['doctor'], env(home));
    expect(result.stdout).toMatch(/✓ home\.permissions/);
    expect(result.stdout).toMatch(/✓ gateway\.exposure/);
    expect(result.code).toBe(0);
    expect((statSync(join(home, 'wren.db')).mode & 0o777).toString(8)).toBe('600');
  });

  it('warns about a chat channel that would answer nobody, and says how to find the id', async () => {
    const base = config.replace(/ {2}- name: broken[\s\S]*$/, '');
    const home = makeHome(
      `${base}\nchannels:\n  telegram:\n    token: "1:abc"\n  slack:\n    bot_token: xoxb-1\n    app_token: xapp-1\n    owner: [U0OWNER01]\n`,
    );
    const result = await runCli(['doctor', '--json'], env(home));
    const checks = (
      JSON.parse(result.stdout) as {
        checks: Array<{ id: string; status: string; message: string; fix?: string }>;
      }
    ).checks;
    expect(checks.find((check) => check.id === 'channels.telegram')).toMatchObject({
      status: 'warn',
      message: expect.stringContaining('it will answer nobody'),
      fix: expect.stringContaining('wren pairing list'),
    });
    expect(checks.find((check) => check.id === 'channels.slack')).toMatchObject({ status: 'ok' });
    // A warning is not a failure.
    expect(result.code).toBe(0);
  });
});

describe('wren doctor and Signal', () => {
  it('asks the signal-cli daemon for its version, and says how to start it when nobody answers', async () => {
    const base = config.replace(/ {2}- name: broken[\s\S]*$/, '');
    const signal = await startFakeSignalCli({ account: '+15550100001' });
    const section = (url: string) =>
      `${base}\nchannels:\n  signal:\n    account: "+15550100001"\n    url: ${url}\n    owner: ["+15550100002"]\n`;
    const daemonCheck = async (url: string) => {
      const result = await runCli(['doctor', '--json'], env(makeHome(section(url))));
      const report = JSON.parse(result.stdout) as {
        checks: Array<{ id: string; status: string; message: string; fix?: string }>;
      };
      return {
        code: result.code,
        check: report.checks.find((check) => check.id === 'channels.signal.daemon'),
      };
    };
    try {
      expect(await daemonCheck(signal.httpUrl)).toMatchObject({
        code: 0,
        check: { status: 'ok', message: `signal-cli 0.13.22 answers at ${signal.httpUrl}` },
      });
      expect(signal.calls('version')).toHaveLength(1);
    } finally {
      await signal.close();
    }
    expect(await daemonCheck(signal.httpUrl)).toMatchObject({
      code: 1,
      check: {
        status: 'fail',
        message: expect.stringContaining('signal-cli -a +15550100001 daemon --http 127.0.0.1:8080'),
        fix: expect.stringContaining('docs/channels.md#signal'),
      },
    });
  });
});

describe('wren doctor and Matrix', () => {
  it('warns while Matrix is enabled that encrypted rooms are not supported, without failing', async () => {
    const base = config.replace(/ {2}- name: broken[\s\S]*$/, '');
    const home = makeHome(
      `${base}\nchannels:\n  matrix:\n    homeserver: http://127.0.0.1:9\n    access_token: syt_x\n    owner: ["@me:example.org"]\n`,
    );
    const result = await runCli(['doctor', '--json'], env(home));
    const checks = (
      JSON.parse(result.stdout) as { checks: Array<{ id: string; status: string; fix?: string }> }
    ).checks;
    expect(checks.find((check) => check.id === 'channels.matrix.encryption')).toMatchObject({
      status: 'warn',
      fix: expect.stringContaining('unencrypted direct chat'),
    });
    expect(result.code).toBe(0);
  });
});

describe('wren status and wren token', () => {
  it('lists the chat platforms under channels, not the shared transcription settings', async () => {
    const home = makeHome(
      `${config}\nchannels:\n  telegram:\n    token: "1:abc"\n    owner: [42]\n  transcription:\n    base_url: http://127.0.0.1:9/v1\n    model: whisper-1\n`,
    );
    const status = JSON.parse((await runCli(['status', '--json'], env(home))).stdout) as {
      channels: Array<{ name: string }>;
    };
    expect(status.channels.map((channel) => channel.name)).toEqual(['telegram']);
    expect((await runCli(['status'], env(home))).stdout).not.toContain('transcription');
  });

  it('shows the gateway down, the models, sessions and token usage', async () => {
    const home = makeHome(config);
    writeFileSync(join(home, 'config.yaml'), `${config}\ngateway:\n  port: 0\n`);
    const down = await runCli(['status', '--json'], env(home));
    expect(down.code).toBe(0);
    const before = JSON.parse(down.stdout) as {
      gateway: { running: boolean };
      models: unknown[];
      sessions: number;
    };
    expect(before.gateway.running).toBe(false);
    expect(before.models).toHaveLength(2);
    await runCli(['chat', '-m', 'hi'], env(home));
    await runCli(['reminder', 'add', 'tea', '--in', '20m'], env(home));
    await runCli(['goal', 'add', 'Learn Rust'], env(home));
    const after = JSON.parse((await runCli(['status', '--json'], env(home))).stdout) as {
      sessions: number;
      usage: { total: { calls: number; inputTokens: number } };
      proactive: { reminders: number; nextReminderAt: number; goals: number; deliveriesWaiting: number };
    };
    expect(after.proactive).toMatchObject({ reminders: 1, goals: 1, deliveriesWaiting: 0 });
    expect(after.proactive.nextReminderAt).toBeGreaterThan(Date.now() + 15 * 60_000);
    const shown = await runCli(['status'], env(home));
    expect(shown.stdout).toMatch(/^proactive 1 active reminder \(next .+\), 1 active goal$/m);
    // Counts read right: one call, not "1 calls".
    expect(shown.stdout).toMatch(/^tokens {4}today \d+ in \/ \d+ out \(1 call\); all time/m);
    expect(after.sessions).toBe(1);
    expect(after.usage.total.calls).toBe(1);
    expect(after.usage.total.inputTokens).toBeGreaterThan(0);
  });

  it('rotates the gateway token: the new one works at once, the old one stops', async () => {
    const home = makeHome(config);
    const wren = await startWren(env(home, { WREN_GATEWAY_TOKEN: '' }));
    try {
      const old = wren.stdout().match(/: (wren_\S+)/)?.[1];
      expect(old).toBeDefined();
      const rotated = await runCli(['token', '--rotate'], env(home));
      expect(rotated.code).toBe(0);
      const fresh = rotated.stdout.trim();
      expect(fresh).toMatch(/^wren_/);
      const ask = (token: string) =>
        fetch(`${wren.url}/api/status`, { headers: { authorization: `Bearer ${token}` } });
      expect((await ask(fresh)).status).toBe(200);
      expect((await ask(old!)).status).toBe(401);
    } finally {
      await wren.stop();
    }
  });
});

describe('wren start', () => {
  it('prints commands this shell can run, the link’s 10-minute life, the token, then the address', async () => {
    const home = makeHome(config);
    // In a clone with no `wren` on PATH, the hints name the clone's shim (the tests run in the clone).
    const clone = await startWren(env(home, { WREN_GATEWAY_TOKEN: '' }));
    const shown = clone.stdout();
    await clone.stop();
    expect(shown).toContain('`./wren web open` makes another');
    expect(shown).toMatch(/web app: http:\/\/\S+\/signin\?code=\S+\n.*valid for 10 minutes/);
    expect(shown).toContain('terminal chat: `./wren chat` in another terminal');
    expect(shown).toMatch(/gateway token for the HTTP API .*`\.\/wren token --rotate`.*: wren_\S+\n/);
    expect(shown).not.toMatch(/`wren /);
    const lines = shown.trim().split('\n');
    expect(lines.at(-1)).toMatch(/^Listening on http:\/\/127\.0\.0\.1:\d+ \(stop with Ctrl\+C\)$/);
    // With this CLI on PATH as `wren` (npm link, a symlinked shim), the hints say plain `wren`.
    const bin = mkdtempSync(join(tmpdir(), 'wren-bin-'));
    symlinkSync(resolve('wren'), join(bin, 'wren'));
    const linked = await startWren(env(home, { PATH: `${bin}:${process.env['PATH']}` }));
    const linkedShown = linked.stdout();
    await linked.stop();
    expect(linkedShown).toContain('terminal chat: `wren chat` in another terminal');
    expect(linkedShown).toContain('`wren web open` makes another');
    expect(linkedShown).not.toMatch(/gateway token/);
  });

  it('exits 2 naming the port and --port when the port is in use', async () => {
    const blocker = createServer();
    await new Promise<void>((done) => blocker.listen(0, '127.0.0.1', done));
    const { port } = blocker.address() as AddressInfo;
    try {
      const home = makeHome(config);
      const result = await runCli(['start', '--port', String(port)], env(home));
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`port ${port}`);
      expect(result.stderr).toContain('--port');
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
    } finally {
      blocker.close();
    }
  });

  it('says when a rejected config edit is fixed, and status stops showing the rejection', async () => {
    const home = makeHome(config);
    const wren = await startWren(env(home));
    try {
      writeFileSync(join(home, 'config.yaml'), `${config}\ngateway:\n  prot: 1\n`);
      await waitFor(() => wren.stderr().includes('config edit rejected'));
      expect((await runCli(['status'], env(home))).stdout).toContain('EDIT REJECTED');
      writeFileSync(join(home, 'config.yaml'), `${config}\nagent:\n  timezone: Europe/Paris\n`);
      await waitFor(() => wren.stderr().includes('config.yaml is valid again; applied'));
      const status = await runCli(['status', '--json'], env(home));
      expect(status.code).toBe(0);
      const live = (JSON.parse(status.stdout) as { gateway: { live: Record<string, unknown> } }).gateway.live;
      expect(live).not.toHaveProperty('configError');
      expect((await runCli(['status'], env(home))).stdout).not.toContain('REJECTED');
    } finally {
      await wren.stop();
    }
  });
});
