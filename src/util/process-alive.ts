import { readFileSync } from 'node:fs';

/** What /proc/<pid>/stat says of a process: its state letter and start time (clock ticks since boot). */
function procStat(pid: number): { state: string; start: string } | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may itself contain spaces or parentheses.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { state: fields[0] ?? '', start: fields[19] ?? '' };
}

/**
 * An identity for this process that survives pid reuse: its start time on Linux (from /proc), else ''.
 * Record it next to the pid so a later check can tell this process from a new one with the same pid.
 */
export function processStartId(pid = process.pid): string {
  return procStat(pid)?.start ?? '';
}

/**
 * Whether `pid` is a live process — and, when `startId` is given, still the same one. A zombie (killed,
 * not yet reaped by its parent) is dead: `kill -0` succeeds on it, which is why a restart right after
 * `kill -9` used to be refused. Without /proc (macOS) it falls back to `kill -0`.
 */
export function processAlive(pid: number, startId?: string): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  const stat = procStat(pid);
  if (stat) {
    if (stat.state === 'Z' || stat.state === 'X') return false;
    return !startId || stat.start === startId;
  }
  if (process.platform === 'linux') return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
