import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { processAlive } from '../../util/process-alive.js';
import { RUN_MARKER } from './exec-env.js';

/**
 * The start of the marker value of every command a Wren process runs for `home`: `<home tag>.<pid>.`. A
 * command started by a Wren that has since died (kill -9, a crash) carries a pid that is no longer alive,
 * which is how the next start finds it.
 */
export function runMarkerPrefix(home: string, pid = process.pid): string {
  return `${homeTag(home)}.${pid}.`;
}

function homeTag(home: string): string {
  return createHash('sha256').update(home).digest('hex').slice(0, 12);
}

/**
 * Kills (SIGKILL) the processes that commands of a dead Wren of `home` left running — without a sandbox
 * they outlive the process that started them — and returns their pids. Processes of a live Wren (another
 * in-process chat) and of other homes are left alone. Linux only (reads /proc); elsewhere it finds none.
 */
export async function sweepOrphans(home: string): Promise<number[]> {
  if (!existsSync('/proc/self/environ')) return [];
  const needle = Buffer.from(`${RUN_MARKER}=${homeTag(home)}.`);
  const killed: number[] = [];
  for (const entry of await readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let environ: Buffer;
    try {
      environ = await readFile(`/proc/${entry}/environ`);
    } catch {
      continue;
    }
    const at = environ.indexOf(needle);
    if (at < 0) continue;
    const owner = Number(
      /^(\d+)\./.exec(environ.subarray(at + needle.length, at + needle.length + 16).toString())?.[1],
    );
    if (processAlive(owner)) continue;
    try {
      process.kill(Number(entry), 'SIGKILL');
      killed.push(Number(entry));
    } catch {
      // Gone already, or not ours.
    }
  }
  return killed;
}
