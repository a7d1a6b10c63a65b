import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processAlive } from '../../util/process-alive.js';
import { checkSandbox, resolveSandbox, stopSandboxProbes } from './sandbox.js';

let base: string;
/** Probe children the tests saw, stopped at the end should a test fail and leave one running. */
const seen: number[] = [];
beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'wren-probe-'));
});
afterAll(() => {
  for (const pid of seen.filter((candidate) => processAlive(candidate))) process.kill(pid, 'SIGKILL');
  rmSync(base, { recursive: true, force: true });
});

/** A stand-in for bwrap that takes long to answer: it becomes `sleep <token>`, findable by its token. */
function slowBwrap(): { command: string; token: string } {
  const token = `300.${process.pid}${Math.floor(Math.random() * 1e6)}`;
  const command = join(base, `slow-bwrap-${token}`);
  writeFileSync(command, `#!/bin/sh\nexec sleep ${token}\n`);
  chmodSync(command, 0o755);
  return { command, token };
}

/** Processes (zombies included) whose parent is `parent` and whose command line or name holds `token`. */
function childrenWith(parent: number, token: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        return ppid === parent && readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(token);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** Waits (on the condition, not a fixed time) until `found` returns something; fails after `ms`. */
async function waitFor<T>(found: () => T | undefined, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = found();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe.runIf(process.platform === 'linux')('the sandbox probe is always reaped', () => {
  it('stopSandboxProbes ends a running probe and waits until it is reaped: no zombie, no orphan', async () => {
    const { command, token } = slowBwrap();
    const answer = checkSandbox({ command });
    const [pid] = await waitFor(() => {
      const found = childrenWith(process.pid, token);
      return found.length > 0 ? found : undefined;
    });
    seen.push(pid!);
    await stopSandboxProbes();
    // Reaped: not a zombie (which /proc still lists) and not alive.
    expect(existsSync(`/proc/${pid}`)).toBe(false);
    expect(processAlive(pid!)).toBe(false);
    expect(childrenWith(process.pid, token)).toEqual([]);
    // The answer says it was stopped, and exec then refuses rather than run without the sandbox.
    const probe = await answer;
    expect(probe).toMatchObject({ available: false, stopped: true });
    expect(resolveSandbox('auto', probe)).toMatchObject({ mode: 'bwrap', refused: true });
    await stopSandboxProbes(); // nothing left: returns at once
  });

  it('the real probe leaves no process behind for anyone to reap (bwrap is run as pid 1 of its namespace)', () => {
    const sandbox = fileURLToPath(new URL('./sandbox.ts', import.meta.url));
    const script = join(base, 'probe-once.mts');
    writeFileSync(
      script,
      `import { checkSandbox } from ${JSON.stringify(sandbox)};\n` +
        'process.stdout.write(JSON.stringify(await checkSandbox({ fresh: true })));\n',
    );
    // A child subreaper adopts every orphan of the probe's process tree: what it collects after the probe
    // process has exited is what was left to init (a zombie in containers whose init does not reap).
    const reaper = join(base, 'subreaper.py');
    writeFileSync(
      reaper,
      [
        'import ctypes, os, subprocess, sys',
        'assert ctypes.CDLL(None).prctl(36, 1, 0, 0, 0) == 0  # PR_SET_CHILD_SUBREAPER',
        'subprocess.run(sys.argv[1:], check=True)',
        'adopted = []',
        'while True:',
        '    try:',
        '        info = os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOWAIT)',
        '    except ChildProcessError:',
        '        break',
        '    adopted.append(open(f"/proc/{info.si_pid}/comm").read().strip())',
        '    os.waitpid(info.si_pid, 0)',
        'print("\\nadopted:" + ",".join(adopted))',
      ].join('\n'),
    );
    const output = execFileSync('python3', [reaper, process.execPath, '--import', 'tsx', script], {
      encoding: 'utf8',
    });
    const [answer = '', adopted = ''] = output.split('\nadopted:');
    expect(JSON.parse(answer)).toHaveProperty('available');
    // tsx's esbuild helper may be adopted too; no bwrap process may be.
    expect(
      adopted
        .trim()
        .split(',')
        .filter((name) => name === 'bwrap'),
    ).toEqual([]);
  }, 30_000);
});
