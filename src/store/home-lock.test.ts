import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireHomeLock, HomeLockedError } from './home-lock.js';

let home: string;
let child: ChildProcess | undefined;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'wren-lock-'));
});
afterEach(() => {
  child?.kill('SIGKILL');
  child = undefined;
  rmSync(home, { recursive: true, force: true });
});

const lockFile = () => join(home, 'wren.lock');
const holderPid = () => (JSON.parse(readFileSync(lockFile(), 'utf8')) as { pid: number }).pid;

/** The pid of a process that has already exited. */
function deadPid(): number {
  const result = spawnSync(process.execPath, ['-e', '']);
  return result.pid!;
}

function lockedError(): HomeLockedError {
  try {
    acquireHomeLock(home).release();
  } catch (error) {
    expect(error).toBeInstanceOf(HomeLockedError);
    return error as HomeLockedError;
  }
  throw new Error('expected the home to be locked');
}

describe('acquireHomeLock', () => {
  it('refuses a second lock on the same home, naming the pid that holds it', () => {
    const lock = acquireHomeLock(home);
    expect(holderPid()).toBe(process.pid);
    const error = lockedError();
    expect(error.pid).toBe(process.pid);
    expect(error.message).toContain(`${home} is in use by Wren process ${process.pid} (this process)`);
    lock.release();
  });

  it('frees the home on release (idempotently) so it can be locked again', () => {
    const lock = acquireHomeLock(home);
    lock.release();
    lock.release();
    expect(readdirSync(home)).toEqual([]);
    acquireHomeLock(home).release();
  });

  it('takes over a stale lock whose process is dead', () => {
    const pid = deadPid();
    writeFileSync(lockFile(), JSON.stringify({ pid, host: hostname(), token: 'old' }));
    const lock = acquireHomeLock(home);
    expect(holderPid()).toBe(process.pid);
    lock.release();
  });

  it('takes over a stale lock written as a bare pid', () => {
    writeFileSync(lockFile(), `${deadPid()}\n`);
    acquireHomeLock(home).release();
    expect(existsSync(lockFile())).toBe(false);
  });

  it('takes over a lock file whose content is unreadable garbage', () => {
    writeFileSync(lockFile(), 'not a pid');
    const lock = acquireHomeLock(home);
    expect(holderPid()).toBe(process.pid);
    lock.release();
    expect(readdirSync(home)).toEqual([]);
  });

  it('refuses while another live process holds the lock, and takes over once it died', async () => {
    child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    const pid = child.pid!;
    writeFileSync(lockFile(), JSON.stringify({ pid, host: hostname(), token: 'theirs' }));
    const error = lockedError();
    expect(error.pid).toBe(pid);
    expect(error.message).toContain(`in use by Wren process ${pid}; stop it first (kill ${pid})`);
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    acquireHomeLock(home).release();
  });

  it('takes over at once from a holder killed with -9 that is still a zombie, and from a reused pid', async () => {
    // `sleep 31` replaces the shell and never reaps its child: the killed child stays a zombie.
    child = spawn('sh', ['-c', 'sleep 30 & echo $!; exec sleep 31'], { stdio: ['ignore', 'pipe', 'ignore'] });
    const pid = await new Promise<number>((resolve) =>
      child!.stdout!.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim()))),
    );
    writeFileSync(lockFile(), JSON.stringify({ pid, host: hostname(), token: 'theirs' }));
    expect(lockedError().pid).toBe(pid);
    process.kill(pid, 'SIGKILL');
    const deadline = Date.now() + 5000;
    while (!readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ') && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    acquireHomeLock(home).release();
    // A live process whose start time differs from the holder's is a reused pid, not the holder.
    writeFileSync(
      lockFile(),
      JSON.stringify({ pid: process.pid, host: hostname(), start: '1', token: 'old' }),
    );
    acquireHomeLock(home).release();
  });

  it('respects a lock from another host', () => {
    writeFileSync(lockFile(), JSON.stringify({ pid: deadPid(), host: 'elsewhere.example', token: 'x' }));
    expect(lockedError().message).toContain('on host elsewhere.example');
  });

  it('does not remove a lock that is no longer its own', () => {
    const lock = acquireHomeLock(home);
    writeFileSync(lockFile(), JSON.stringify({ pid: 1, host: hostname(), token: 'someone-else' }));
    lock.release();
    expect(existsSync(lockFile())).toBe(true);
  });
});
