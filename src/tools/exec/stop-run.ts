import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';

/** The SIGKILL rounds give up after this long (a process that cannot be killed, e.g. stuck in the kernel). */
const KILL_ROUNDS_MS = 5000;
/** `/proc/<pid>/environ` exists (Linux): marked processes can be found; elsewhere only the group is killed. */
const CAN_SCAN = existsSync('/proc/self/environ');
/** /proc entries read at once while scanning. */
const SCAN_BATCH = 64;

/**
 * Stops a run: SIGTERM to its process group and to every process carrying `marker`, then, after `graceMs`
 * or as soon as none is left, SIGKILL in rounds until a scan finds none (a process forking while it is
 * killed leaves children for the next round) or KILL_ROUNDS_MS passed. Never rejects.
 */
export async function stopRun(group: number | undefined, marker: string, graceMs: number): Promise<void> {
  if (group === undefined) return;
  const needle = Buffer.from(`${marker}\0`);
  const scan = async () => (CAN_SCAN ? runProcesses(group, needle) : []);
  const done = (pids: readonly number[]) => (CAN_SCAN ? pids.length === 0 : !groupAlive(group));
  let pids = await scan();
  signalAll(group, pids, 'SIGTERM');
  const graceEnd = Date.now() + graceMs;
  while (!done(pids) && Date.now() < graceEnd) {
    await delay(20);
    pids = await scan();
  }
  const killEnd = Date.now() + KILL_ROUNDS_MS;
  while (!done(pids) && Date.now() < killEnd) {
    signalAll(group, pids, 'SIGKILL');
    await delay(10);
    pids = await scan();
  }
}

function signalAll(group: number, pids: readonly number[], signal: NodeJS.Signals): void {
  for (const target of [-group, ...pids]) {
    if (Math.abs(target) <= 1 || target === process.pid) continue;
    try {
      process.kill(target, signal);
    } catch {
      // Already gone, or not ours.
    }
  }
}

function groupAlive(group: number): boolean {
  try {
    process.kill(-group, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Live processes (zombies excluded) in process group `group` or whose environment holds `needle`, from
 * `/proc`. Processes of other users, and those gone mid-scan, are skipped. Asynchronous and in batches:
 * a run that left thousands of processes must not stall Wren's event loop while they are found.
 */
async function runProcesses(group: number, needle: Buffer): Promise<number[]> {
  let entries: string[];
  try {
    entries = (await readdir('/proc')).filter(
      (entry) => /^\d+$/.test(entry) && Number(entry) !== process.pid,
    );
  } catch {
    return [];
  }
  const found: number[] = [];
  const check = async (entry: string) => {
    try {
      const stat = await readFile(`/proc/${entry}/stat`, 'latin1');
      // After the `(comm)` field, which may contain spaces: state, ppid, pgrp …
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (state === 'Z' || state === 'X') return;
      if (Number(pgrp) === group || (await readFile(`/proc/${entry}/environ`)).includes(needle))
        found.push(Number(entry));
    } catch {
      // Gone, or not readable.
    }
  };
  for (let index = 0; index < entries.length; index += SCAN_BATCH)
    await Promise.all(entries.slice(index, index + SCAN_BATCH).map(check));
  return found;
}
