import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { processAlive, processStartId } from './process-alive.js';

describe('processAlive', () => {
  it('knows this process, and tells it from another with a different start id', () => {
    expect(processAlive(process.pid)).toBe(true);
    expect(processAlive(process.pid, processStartId())).toBe(true);
    if (process.platform === 'linux') expect(processAlive(process.pid, '1')).toBe(false);
    expect(processAlive(-1)).toBe(false);
    expect(processAlive(Number.NaN)).toBe(false);
  });

  it('counts a zombie (killed, not yet reaped) as dead', async () => {
    // The shell starts `sleep 30` in the background, then becomes `sleep 31`, which never reaps children.
    const parent = spawn('sh', ['-c', 'sleep 30 & echo $!; exec sleep 31'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const pid = await new Promise<number>((resolve) =>
      parent.stdout!.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim()))),
    );
    try {
      expect(processAlive(pid)).toBe(true);
      if (process.platform === 'linux') {
        // Until the shell has become `sleep 31` it may still reap its child itself: wait for the exec.
        const { readFileSync } = await import('node:fs');
        const comm = () => readFileSync(`/proc/${parent.pid}/comm`, 'utf8').trim();
        const execDeadline = Date.now() + 5000;
        while (comm() !== 'sleep' && Date.now() < execDeadline)
          await new Promise((resolve) => setTimeout(resolve, 10));
        expect(comm()).toBe('sleep');
      }
      process.kill(pid, 'SIGKILL');
      const deadline = Date.now() + 5000;
      while (processAlive(pid) && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 20));
      expect(processAlive(pid)).toBe(false);
      if (process.platform === 'linux') {
        const { readFileSync } = await import('node:fs');
        expect(readFileSync(`/proc/${pid}/stat`, 'utf8')).toMatch(/\) Z /);
      }
    } finally {
      parent.kill('SIGKILL');
    }
  });
});
