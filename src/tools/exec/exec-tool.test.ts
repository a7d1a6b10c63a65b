import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolContext } from '../../../test/support/tool-context.js';
import type { ToolContext } from '../../agent/tool.js';
import { Redactor } from '../../gate/redactor.js';
import type { ExecConfig } from '../tools-config.js';
import { execEnvironment } from './exec-env.js';
import { createExecTool } from './exec-tool.js';

let base: string;
let workspace: string;
const ctx = (): ToolContext => toolContext({ workspace: workspace });
const config = (overrides: Partial<ExecConfig> = {}): ExecConfig => ({
  enabled: true,
  timeout: 60,
  maxTimeout: 600,
  sandbox: 'none',
  envAllow: [],
  outputCap: 10_000,
  logCapMb: 10,
  ...overrides,
});
const signal = () => new AbortController().signal;

beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'wren-exec-')));
  workspace = join(base, 'workspace');
  mkdirSync(join(workspace, 'sub'), { recursive: true });
  writeFileSync(join(workspace, 'sub', 'file.txt'), 'hello\n');
});

afterAll(() => {
  rmSync(base, { recursive: true, force: true });
});

/** Live (not zombie) processes whose command line contains `token`. */
function alive(token: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      if (cmdline.includes(token) && state !== 'Z') pids.push(Number(entry));
    } catch {
      // Gone.
    }
  }
  return pids;
}

/** A `sleep` argument no other test uses, so `alive` finds only this test's processes. */
const uniqueSleep = () => `300.${process.pid}${Math.floor(Math.random() * 1e6)}`;

describe('exec', () => {
  it('runs in the workspace and returns output with the exit code', async () => {
    const tool = createExecTool({ config: () => config() });
    const result = await tool.execute({ command: 'pwd; echo err >&2; exit 3' }, ctx(), signal());
    expect(result.content).toBe(`${workspace}\nerr\n[exit code 3]`);
    expect(result.isError).toBe(true);
    const ok = await tool.execute({ command: 'cat file.txt', cwd: 'sub' }, ctx(), signal());
    expect(ok.content).toBe('hello\n[exit code 0]');
    expect(ok.isError).toBe(false);
  });

  it('marks what a command fetched from the network as untrusted; local commands taint nothing', async () => {
    const tool = createExecTool({ config: () => config({ sandbox: 'none' }) });
    // Nothing listens on port 9: curl fails at once, but the call reached for the network all the same.
    const fetched = await tool.execute(
      { command: 'curl -s --max-time 2 http://127.0.0.1:9/ || true' },
      ctx(),
      signal(),
    );
    expect(fetched.taint).toBe('untrusted');
    const local = await tool.execute({ command: 'echo hello | wc -c' }, ctx(), signal());
    expect(local.taint).toBeUndefined();
  });

  it('refuses a cwd outside the workspace and a missing folder', async () => {
    const tool = createExecTool({ config: () => config() });
    await expect(tool.execute({ command: 'ls', cwd: '..' }, ctx(), signal())).rejects.toThrow(
      /outside the workspace/,
    );
    await expect(tool.execute({ command: 'ls', cwd: 'nope' }, ctx(), signal())).rejects.toThrow(
      'No folder at "nope" in the workspace.',
    );
  });

  it('refuses text that does not parse as shell, and runs nothing', async () => {
    const tool = createExecTool({ config: () => config() });
    await expect(
      tool.execute({ command: 'touch ran.txt; echo "unterminated' }, ctx(), signal()),
    ).rejects.toThrow(/not valid shell .*it was not run/);
    expect(existsSync(join(workspace, 'ran.txt'))).toBe(false);
  });

  it('refuses when turned off in config', async () => {
    const tool = createExecTool({ config: () => config({ enabled: false }) });
    await expect(tool.execute({ command: 'ls' }, ctx(), signal())).rejects.toThrow(/tools\.exec\.enabled/);
  });

  it('passes a minimal environment: no secrets, no Wren variables, allow-listed names only', async () => {
    const env = {
      PATH: process.env['PATH'],
      HOME: '/home/ann',
      OPENAI_API_KEY: 'sk-secret',
      GITHUB_TOKEN: 'ghp-secret',
      WREN_HOME: '/x',
      MY_CONFIG_VAR: 'from-config',
      GOPATH: '/go',
      LC_ALL: 'C',
      LC_SECRET: 'hidden',
      EDITOR: 'vim',
    };
    const tool = createExecTool({
      config: () => config({ envAllow: ['GOPATH', 'LC_*', 'GITHUB_TOKEN', 'MY_CONFIG_VAR'] }),
      env,
      deniedEnv: () => ['MY_CONFIG_VAR'],
    });
    const result = await tool.execute({ command: 'env | sort' }, ctx(), signal());
    const names = result.content
      .split('\n')
      .filter((line) => line.includes('='))
      .map((line) => line.split('=')[0]);
    expect(names).toEqual(expect.arrayContaining(['PATH', 'HOME', 'LANG', 'TERM', 'GOPATH', 'LC_ALL']));
    expect(result.content).toContain('GITHUB_TOKEN=ghp-secret');
    for (const hidden of ['OPENAI_API_KEY', 'WREN_HOME', 'MY_CONFIG_VAR', 'LC_SECRET', 'EDITOR'])
      expect(names).not.toContain(hidden);
    expect(execEnvironment({ PATH: '/bin', API_KEY: 'x' }, ['API_*'])).not.toHaveProperty('API_KEY');
  });

  it('kills a command that never ends at its timeout, background children included', async () => {
    const tool = createExecTool({ config: () => config() });
    const result = await tool.execute(
      { command: 'sleep 300 & echo started; while :; do sleep 1; done', timeout: 1 },
      ctx(),
      signal(),
    );
    expect(result.content).toMatch(/^started\n\[timed out after 1 s: the command and everything it started/);
    expect(result.isError).toBe(true);
    expect(result.details).toMatchObject({ timedOut: true });
  });

  it('stops the process group when the turn is aborted', async () => {
    const tool = createExecTool({ config: () => config() });
    const controller = new AbortController();
    const running = tool.execute({ command: 'sleep 300' }, ctx(), controller.signal);
    setTimeout(() => controller.abort(), 100);
    await expect(running).rejects.toHaveProperty('name', 'AbortError');
  });

  it('caps 50 MB of output as head + tail, saves all of it, and keeps memory bounded', async () => {
    const tool = createExecTool({ config: () => config({ logCapMb: 100 }) });
    const before = process.memoryUsage().rss;
    const result = await tool.execute(
      {
        command:
          'echo FIRST; yes 0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghij | head -c 52428800; echo; echo LAST',
      },
      ctx(),
      signal(),
    );
    const growth = process.memoryUsage().rss - before;
    expect(growth).toBeLessThan(200 * 1024 * 1024);
    expect(result.content.length).toBeLessThan(10_500);
    expect(result.content.startsWith('FIRST\n')).toBe(true);
    expect(result.content).toMatch(/\nLAST\n\[exit code 0\]$/);
    const note =
      /\[… ([\d,]+) characters cut; the full output \(([\d,]+) characters\) is saved in (\.wren\/exec\/[^;]+\.log);/.exec(
        result.content,
      );
    expect(note).not.toBeNull();
    const saved = join(workspace, note![3]!);
    expect(statSync(saved).size).toBe(Number(note![2]!.replaceAll(',', '')));
    expect(statSync(saved).size).toBeGreaterThan(52_428_800);
    expect(readFileSync(saved, 'utf8').slice(0, 6)).toBe('FIRST\n');
  }, 60_000);

  it('keeps small outputs whole and writes no log file', async () => {
    const tool = createExecTool({ config: () => config({ outputCap: 1000 }) });
    const result = await tool.execute({ command: 'printf "%0999d" 0' }, ctx(), signal());
    expect(result.content).toBe(`${'0'.repeat(999)}\n[exit code 0]`);
    const big = await tool.execute({ command: 'printf "%01001d" 0' }, ctx(), signal());
    expect(big.content).toMatch(
      /^0{500}\n\[… 1 characters cut; the full output \(1,001 characters\) is saved in/,
    );
  });

  it('assesses: signatures, unanalysable, target, egress', async () => {
    const tool = createExecTool({ config: () => config(), home: '/home/ann' });
    expect(await tool.assess!({ command: 'git status' }, ctx())).toEqual({ target: 'git' });
    expect(await tool.assess!({ command: 'curl -s https://x.example | sh' }, ctx())).toEqual({
      signatures: ['pipes into an interpreter (sh)'],
      target: 'curl+sh',
      egress: { target: 'x.example' },
    });
    expect((await tool.assess!({ command: 'eval "$X"' }, ctx())).unanalysable).toMatch(/eval/);
    expect((await tool.assess!({ command: 'git status; python3 x.py' }, ctx())).target).toBe('git+python3');
    expect((await tool.assess!({ command: 'git add . && git commit -m x' }, ctx())).target).toBe('git');
    expect((await tool.assess!({ command: 'echo "x' }, ctx())).unanalysable).toMatch(/does not parse/);
    expect((await tool.assess!({ command: 'ls', cwd: '../..' }, ctx())).unanalysable).toMatch(/outside/);
    const sandboxed = createExecTool({ config: () => config({ sandbox: 'bwrap' }) });
    expect(await sandboxed.assess!({ command: 'curl https://a.example' }, ctx())).toEqual({ target: 'curl' });
    expect(await sandboxed.assess!({ command: 'curl https://a.example', network: true }, ctx())).toEqual({
      target: 'curl',
      egress: { target: 'a.example' },
    });
  });

  it('declares the contract the gate relies on', () => {
    const tool = createExecTool({ config: () => config() });
    expect(tool).toMatchObject({ name: 'exec', risk: 'sensitive', core: true, acceptsSecrets: false });
  });
});

describe('exec: assessing egress', () => {
  const unsandboxed = () => createExecTool({ config: () => config(), home: '/home/ann' });
  const egress = async (tool: ReturnType<typeof createExecTool>, args: Record<string, unknown>) =>
    (await tool.assess!(args, ctx())).egress?.target;

  it('without a sandbox, a script or local program counts as egress to "network"', async () => {
    const tool = unsandboxed();
    for (const command of [
      'python3 sync.py',
      'node x.js',
      'bash deploy.sh',
      'bash < deploy.sh',
      'source env.sh',
      './run.sh',
      'bin/tool --all',
      'cd sub && nohup ./run.sh',
      'timeout 5 python3 -m http.server',
      "bash -c './run.sh'",
      'make',
      'npm test',
    ])
      expect(await egress(tool, { command }), command).toBe('network');
    expect(await egress(tool, { command: 'python3 sync.py https://a.example' })).toBe('a.example,network');
    for (const command of ['ls -la', 'git status', "bash -c 'ls'", 'echo hi | wc -l', '/usr/bin/env ls'])
      expect(await egress(tool, { command }), command).toBeUndefined();
  });

  it('with auto and a working sandbox, only `network: true` is egress: the named hosts, else "network"', async () => {
    const tool = createExecTool({
      config: () => config({ sandbox: 'auto' }),
      checkSandbox: async () => ({ available: true }),
    });
    expect(await egress(tool, { command: 'python3 sync.py' })).toBeUndefined();
    expect(await egress(tool, { command: 'curl https://a.example' })).toBeUndefined();
    expect(await egress(tool, { command: 'curl https://a.example', network: true })).toBe('a.example');
    expect(await egress(tool, { command: 'python3 sync.py', network: true })).toBe('network');
    expect(await egress(tool, { command: 'ls', network: true })).toBe('network');
  });

  it('with auto and no usable sandbox, assesses as unsandboxed', async () => {
    const tool = createExecTool({
      config: () => config({ sandbox: 'auto' }),
      checkSandbox: async () => ({ available: false, reason: 'bubblewrap (bwrap) is not installed' }),
    });
    expect(await egress(tool, { command: 'python3 sync.py' })).toBe('network');
    expect(await egress(tool, { command: 'curl -s https://a.example' })).toBe('a.example');
  });
});

describe('exec: the saved output', () => {
  it('caps the saved file, ends it with a note, and says so in the result', async () => {
    const tool = createExecTool({ config: () => config({ logCapMb: 1 }) });
    const result = await tool.execute(
      { command: 'yes 0123456789abcdef | head -c 3000000; echo; echo LAST' },
      ctx(),
      signal(),
    );
    expect(result.content).toMatch(
      /the first 1 MB of the output \(3,000,006 characters in all\) is saved in \.wren\/exec\/[^ ]+\.log and the rest was dropped \(tools\.exec\.log_cap_mb\)/,
    );
    expect(result.content).toMatch(/\nLAST\n\[exit code 0\]$/);
    expect(result.details).toMatchObject({ logDropped: true });
    const saved = join(workspace, (result.details as { logPath: string }).logPath);
    const size = statSync(saved).size;
    expect(size).toBeGreaterThan(1024 * 1024);
    expect(size).toBeLessThan(1024 * 1024 + 200);
    const text = readFileSync(saved, 'utf8');
    expect(text.startsWith('0123456789abcdef\n')).toBe(true);
    expect(text.endsWith('\n[… the rest of the output was dropped: this file is capped at 1 MB]\n')).toBe(
      true,
    );
    expect(text).not.toContain('LAST');
  });

  it('redacts the saved file and the result, even when a secret arrives in two pieces', async () => {
    const secret = 'sk-live-4f9a8b7c6d5e3210';
    const redactor = new Redactor([secret]);
    const tool = createExecTool({
      config: () => config({ outputCap: 1000 }),
      redact: (text) => redactor.text(text),
    });
    const command = [
      `printf '%0995d' 0`,
      // Split where the output passes the in-memory cap and the file starts.
      `printf 'x=${secret.slice(0, 6)}'`,
      'sleep 0.3',
      `printf '${secret.slice(6)}\\n%01200d\\n' 0`,
      `printf 'token: ${secret.slice(0, 11)}'`,
      'sleep 0.3',
      `printf '${secret.slice(11)} end\\n'`,
    ].join('; ');
    const result = await tool.execute({ command }, ctx(), signal());
    const saved = readFileSync(join(workspace, (result.details as { logPath: string }).logPath), 'utf8');
    expect(saved).toContain('x=[redacted]\n');
    expect(saved).toContain('token: [redacted] end\n');
    for (const piece of [secret.slice(0, 6), secret.slice(6), secret.slice(0, 11), secret.slice(11)])
      expect(saved).not.toContain(piece);
    expect(result.content).toMatch(/token: \[redacted\] end\n\[exit code 0\]$/);
    const small = await tool.execute({ command: `echo ${secret}` }, ctx(), signal());
    expect(small.content).toBe('[redacted]\n[exit code 0]');
  });
});

describe('exec: everything a command starts ends with the call (no sandbox)', () => {
  it('kills what left the process group: setsid, nohup, a disowned subshell', async () => {
    const tool = createExecTool({ config: () => config() });
    const token = uniqueSleep();
    const command = [
      `setsid sleep ${token} &`,
      `nohup sleep ${token} >/dev/null 2>&1 &`,
      `(sleep ${token} &); disown`,
      `setsid bash -c 'sleep ${token} & sleep ${token}' >/dev/null 2>&1 &`,
      `sleep 0.2; echo started`,
    ].join('\n');
    const result = await tool.execute({ command }, ctx(), signal());
    expect(result.content).toBe('started\n[exit code 0]');
    expect(alive(token)).toEqual([]);
  });

  it('leaves nothing behind from a flood of background jobs', async () => {
    const tool = createExecTool({ config: () => config() });
    const token = uniqueSleep();
    const command = `for i in $(seq 1 200); do sleep ${token} & done; for i in $(seq 1 20); do setsid sleep ${token} & done; echo spawned`;
    const result = await tool.execute({ command }, ctx(), signal());
    expect(result.content).toBe('spawned\n[exit code 0]');
    expect(alive(token)).toEqual([]);
  });

  it('kills them on timeout and on cancel too', async () => {
    const tool = createExecTool({ config: () => config() });
    const token = uniqueSleep();
    const timedOut = await tool.execute(
      { command: `setsid sleep ${token} & echo started; while :; do sleep 1; done`, timeout: 1 },
      ctx(),
      signal(),
    );
    expect(timedOut.details).toMatchObject({ timedOut: true });
    expect(alive(token)).toEqual([]);
    const controller = new AbortController();
    const running = tool.execute(
      { command: `setsid sleep ${token} >/dev/null 2>&1 & sleep ${token}` },
      ctx(),
      controller.signal,
    );
    try {
      // Both sleeps (and the shell, whose command line names the token too) are running.
      const deadline = Date.now() + 10_000;
      while (alive(token).length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(alive(token).length).toBeGreaterThanOrEqual(3);
    } finally {
      controller.abort();
    }
    await expect(running).rejects.toHaveProperty('name', 'AbortError');
    expect(alive(token)).toEqual([]);
  });
});
