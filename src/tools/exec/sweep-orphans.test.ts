import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../../../test/support/gated-runtime.js';
import { processAlive } from '../../util/process-alive.js';
import { RUN_MARKER } from './exec-env.js';
import { runMarkerPrefix, sweepOrphans } from './sweep-orphans.js';

const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0)) child.kill('SIGKILL');
});

/** Whether the child runs its command with `marker` in its environment (what the sweep looks for). */
function carries(child: ChildProcess, marker: string): boolean {
  try {
    return readFileSync(`/proc/${child.pid}/environ`, 'utf8').includes(`${RUN_MARKER}=${marker}`);
  } catch {
    return false;
  }
}

function sleeper(marker: string): ChildProcess {
  const child = spawn('sleep', ['300'], {
    env: { PATH: process.env['PATH'], [RUN_MARKER]: marker },
    stdio: 'ignore',
  });
  started.push(child);
  return child;
}

describe('sweepOrphans', () => {
  it('stops what a dead Wren of this home left running, and nothing of a live Wren or another home', async () => {
    const home = `/tmp/wren-sweep-${process.pid}`;
    const deadPid = spawnSync(process.execPath, ['-e', '']).pid!;
    const markers = [
      `${runMarkerPrefix(home, deadPid)}run-1`,
      `${runMarkerPrefix(home)}run-2`,
      `${runMarkerPrefix('/tmp/another-home', deadPid)}run-3`,
    ];
    const children = markers.map(sleeper);
    await until(() => children.every((child, index) => carries(child, markers[index]!)), 'the sleepers');
    const [orphan, live, elsewhere] = children as [ChildProcess, ChildProcess, ChildProcess];
    expect(await sweepOrphans(home)).toEqual([orphan.pid]);
    const deadline = Date.now() + 5000;
    while (orphan.signalCode === null && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(orphan.signalCode).toBe('SIGKILL');
    expect(processAlive(live.pid!)).toBe(true);
    expect(processAlive(elsewhere.pid!)).toBe(true);
  });
});
