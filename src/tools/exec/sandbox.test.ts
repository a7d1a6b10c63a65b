import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolContext } from '../../../test/support/tool-context.js';
import type { ToolContext } from '../../agent/tool.js';
import type { ExecConfig } from '../tools-config.js';
import { toolsSectionSchema, toToolsConfig } from '../tools-config.js';
import { createExecTool } from './exec-tool.js';
import { bwrapArguments, checkSandbox, resolveSandbox, type SandboxProbe } from './sandbox.js';

let base: string;
let workspace: string;
const ctx = (): ToolContext => toolContext({ workspace });
const config = (overrides: Partial<ExecConfig> = {}): ExecConfig => ({
  ...toToolsConfig(toolsSectionSchema.parse({})).exec,
  ...overrides,
});
const signal = () => new AbortController().signal;
const missing: SandboxProbe = {
  available: false,
  reason: 'bubblewrap (bwrap) is not installed; install it (e.g. apt-get install bubblewrap)',
};

/**
 * Said once, on stderr, where a run shows it: a machine whose bwrap cannot create namespaces tests only the
 * fallback, and a green run there has not shown that commands are confined.
 */
let warned = false;
function warnUntested(reason: string): void {
  if (warned) return;
  warned = true;
  const line = '!'.repeat(100);
  console.warn(
    `\n${line}\n!! SANDBOX CONFINEMENT NOT TESTED on this machine: ${reason}.\n` +
      `!! Only the unsandboxed fallback and the bwrap refusal ran; run the suite where bwrap works to test it.\n${line}\n`,
  );
}

beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'wren-sandbox-')));
  workspace = join(base, 'workspace');
  mkdirSync(join(base, 'home'), { recursive: true });
  mkdirSync(workspace, { recursive: true });
  writeFileSync(join(base, 'home', 'secret.txt'), 'do not read');
});

afterAll(() => {
  rmSync(base, { recursive: true, force: true });
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
      '--die-with-parent --new-session --unshare-all --ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --tmpfs /run --tmpfs /h --tmpfs /h/.wren --bind /h/.wren/workspace /h/.wren/workspace --chdir /h/.wren/workspace/sub -- /bin/bash -c ls',
    );
    expect(bwrapArguments({ ...plan, network: true }, ['true'])).toContain('--share-net');
    // With the network, a resolv.conf that lives under /run (systemd-resolved) is brought back, read-only.
    const resolved = { ...plan, network: true, resolvConf: '/run/systemd/resolve/stub-resolv.conf' };
    expect(bwrapArguments(resolved, ['true']).join(' ')).toContain(
      '--tmpfs /run --ro-bind-try /run/systemd/resolve/stub-resolv.conf /run/systemd/resolve/stub-resolv.conf',
    );
    expect(bwrapArguments({ ...resolved, network: false }, ['true']).join(' ')).not.toContain('resolv');
  });

  it('probes: a missing bwrap is reported with what to do; the real one works or says why not', async () => {
    expect(await checkSandbox({ command: join(base, 'no-such-bwrap') })).toEqual({
      available: false,
      reason: 'bubblewrap (bwrap) is not installed; install it (e.g. apt-get install bubblewrap)',
    });
    const real = await checkSandbox({ fresh: true });
    if (real.available) expect(real).toEqual({ available: true });
    else
      expect(real.reason).toMatch(/^(bubblewrap \(bwrap\) is not installed|bwrap cannot create a sandbox)/);
  });

  it('resolves the setting: auto falls back with a reason, bwrap refuses, none says how to turn it on', () => {
    expect(resolveSandbox('auto', { available: true })).toEqual({ mode: 'bwrap' });
    expect(resolveSandbox('bwrap', { available: true })).toEqual({ mode: 'bwrap' });
    expect(resolveSandbox('auto', missing)).toEqual({
      mode: 'none',
      reason:
        'bubblewrap (bwrap) is not installed; install it (e.g. apt-get install bubblewrap), then restart Wren to run commands in a sandbox.',
    });
    expect(resolveSandbox('bwrap', missing)).toEqual({
      mode: 'bwrap',
      refused: true,
      reason:
        'tools.exec.sandbox is bwrap but bubblewrap (bwrap) is not installed; install it (e.g. apt-get install bubblewrap), or set tools.exec.sandbox: auto to run commands without a sandbox here.',
    });
    expect(resolveSandbox('none')).toEqual({
      mode: 'none',
      reason:
        'tools.exec.sandbox is none in config.yaml; set it to auto to run commands in bubblewrap wherever it works.',
    });
  });

  it('defaults to auto', () => {
    expect(config().sandbox).toBe('auto');
  });
});

/** Writes inside and outside the workspace, reads a hidden file, tries the network. */
const probeCommand = () =>
  `echo inside > made.txt; echo x > ${base}/escape.txt; touch /usr/wren-sandbox-probe-${process.pid}; cat ${base}/home/secret.txt; curl -s -m 2 http://127.0.0.1:9 >/dev/null; echo net=$?; echo run=$(ls -A /run | wc -l)`;

describe('exec in the sandbox', () => {
  it('auto without a usable sandbox runs the command unsandboxed', async () => {
    const tool = createExecTool({
      config: () => config({ sandbox: 'auto' }),
      home: join(base, 'home'),
      checkSandbox: async () => missing,
    });
    const result = await tool.execute({ command: `echo x > ${base}/outside.txt; echo ok` }, ctx(), signal());
    expect(result.content).toBe('ok\n[exit code 0]');
    expect(result.details).toMatchObject({ sandbox: 'none' });
    expect(readFileSync(join(base, 'outside.txt'), 'utf8')).toBe('x\n');
  });

  it('bwrap without a usable sandbox refuses and runs nothing', async () => {
    const tool = createExecTool({
      config: () => config({ sandbox: 'bwrap' }),
      checkSandbox: async () => missing,
    });
    await expect(tool.execute({ command: 'touch ran.txt' }, ctx(), signal())).rejects.toThrow(
      /^The command was not run: tools\.exec\.sandbox is bwrap but bubblewrap \(bwrap\) is not installed/,
    );
    expect(existsSync(join(workspace, 'ran.txt'))).toBe(false);
  });

  for (const setting of ['auto', 'bwrap'] as const) {
    it(`${setting}: confines the command where bwrap works; otherwise ${setting === 'auto' ? 'runs it unsandboxed' : 'refuses'}`, async () => {
      const status = await checkSandbox();
      if (!status.available) warnUntested(status.reason ?? 'unknown reason');
      const tool = createExecTool({ config: () => config({ sandbox: setting }), home: join(base, 'home') });
      rmSync(join(base, 'escape.txt'), { force: true });
      if (!status.available && setting === 'bwrap') {
        await expect(tool.execute({ command: probeCommand() }, ctx(), signal())).rejects.toThrow(
          /not run: tools\.exec\.sandbox is bwrap but/,
        );
        return;
      }
      if (!status.available) {
        const result = await tool.execute({ command: `echo x > ${base}/escape.txt` }, ctx(), signal());
        expect(result.details).toMatchObject({ sandbox: 'none' });
        expect(existsSync(join(base, 'escape.txt'))).toBe(true);
        return;
      }
      const result = await tool.execute({ command: probeCommand() }, ctx(), signal());
      expect(readFileSync(join(workspace, 'made.txt'), 'utf8')).toBe('inside\n');
      expect(result.details).toMatchObject({ sandbox: 'bwrap' });
      expect(existsSync(join(base, 'escape.txt'))).toBe(false);
      expect(existsSync(`/usr/wren-sandbox-probe-${process.pid}`)).toBe(false);
      expect(result.content).toMatch(/Read-only file system/);
      expect(result.content).not.toContain('do not read');
      expect(result.content).toMatch(/net=[1-9]/);
      // No host socket (D-Bus, docker, agents) is reachable: /run is empty inside.
      expect(result.content).toMatch(/run=0\b/);
      expect(
        (await tool.assess!({ command: 'curl https://a.example', network: true }, ctx())).egress,
      ).toEqual({
        target: 'a.example',
      });
    });
  }

  it('auto: whatever the probe says, nothing the command started outlives the call', async () => {
    const tool = createExecTool({ config: () => config({ sandbox: 'auto' }), home: join(base, 'home') });
    const token = `300.${process.pid}${Math.floor(Math.random() * 1e6)}`;
    const command = `setsid sleep ${token} & nohup sleep ${token} >/dev/null 2>&1 & (sleep ${token} &); echo ok`;
    const result = await tool.execute({ command }, ctx(), signal());
    expect(result.content).toBe('ok\n[exit code 0]');
    const alive = readdirSync('/proc').filter((entry) => {
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        const zombie = stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
        return !zombie && readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(token);
      } catch {
        return false;
      }
    });
    expect(alive).toEqual([]);
  });
});
