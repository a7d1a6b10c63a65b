import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { processAlive } from '../../util/process-alive.js';
import { RUN_MARKER } from './exec-env.js';
import { runMarkerPrefix, sweepOrphans } from './sweep-orphans.js';

const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0)) child.kill('SIGKILL');
});

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
    const orphan = sleeper(`${runMarkerPrefix(home, deadPid)}run-1`);
    const live = sleeper(`${runMarkerPrefix(home)}run-2`);
    const elsewhere = sleeper(`${runMarkerPrefix('/tmp/another-home', deadPid)}run-3`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await sweepOrphans(home)).toEqual([orphan.pid]);
    const deadline = Date.now() + 5000;
    while (orphan.signalCode === null && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(orphan.signalCode).toBe('SIGKILL');
    expect(processAlive(live.pid!)).toBe(true);
    expect(processAlive(elsewhere.pid!)).toBe(true);
  });
});
