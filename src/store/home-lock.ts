import { randomUUID } from 'node:crypto';
import { linkSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { processAlive, processStartId } from '../util/process-alive.js';
import { StoreError } from '../util/store-error.js';

/** Thrown when another live process holds the home. */
export class HomeLockedError extends StoreError {
  override name = 'HomeLockedError';
  readonly pid: number;

  constructor(message: string, details: { path: string; pid: number }) {
    super(message, { path: details.path });
    this.pid = details.pid;
  }
}

export interface HomeLock {
  readonly path: string;
  /** Removes the lock file if it is still ours. Idempotent; also runs on process exit. */
  release(): void;
}

interface Holder {
  pid: number;
  host?: string;
  /** The holder's start id (see processStartId): a reused pid is not the holder. */
  start?: string;
  /** The file's content, trimmed: what identifies one particular lock. */
  text: string;
}

function readHolder(path: string): Holder | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8').trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const parsed = JSON.parse(text) as { pid?: unknown; host?: unknown; start?: unknown } | number;
    if (typeof parsed === 'number') return { pid: parsed, text };
    return {
      pid: Number(parsed.pid),
      ...(typeof parsed.host === 'string' ? { host: parsed.host } : {}),
      ...(typeof parsed.start === 'string' && parsed.start ? { start: parsed.start } : {}),
      text,
    };
  } catch {
    return { pid: Number.NaN, text };
  }
}

function sameHolder(a: Holder | undefined, b: Holder): boolean {
  return a?.text === b.text;
}

/**
 * Moves a stale lock aside. The rename is atomic, so of several processes taking over at once only one
 * removes the stale file; one that finds it grabbed a fresh lock instead puts it back.
 */
function removeStale(path: string, stale: Holder): void {
  const aside = `${path}.stale-${process.pid}-${randomUUID().slice(0, 8)}`;
  try {
    renameSync(path, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  if (sameHolder(readHolder(aside), stale)) {
    rmSync(aside, { force: true });
    return;
  }
  try {
    linkSync(aside, path);
  } catch {
    // Someone locked in the meantime; the retry below sees their lock.
  }
  rmSync(aside, { force: true });
}

/**
 * Claims `<home>/wren.lock` (or `file`: `scheduler.lock` elects the one scheduler of a home) for this
 * process, so that a second `wren start` on the same home refuses to run.
 * The lock file (JSON with pid, host and a random token) appears atomically (hard link of a complete temp
 * file). A lock whose pid is dead on this host (exited, a zombie, or reused by another process) is stale and
 * taken over; a lock from another host is
 * respected (its pid cannot be checked). Released by `release()` or on process exit; after SIGKILL the next
 * start finds it stale.
 * @throws HomeLockedError naming the pid that holds the home; StoreError when the folder is not writable.
 */
export function acquireHomeLock(home: string, file = 'wren.lock'): HomeLock {
  const path = join(home, file);
  const token = randomUUID();
  const text = JSON.stringify({ pid: process.pid, host: hostname(), start: processStartId(), token });
  const me: Holder = { pid: process.pid, host: hostname(), text };
  const temp = `${path}.${process.pid}.${token.slice(0, 8)}.tmp`;
  try {
    writeFileSync(temp, `${text}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    throw new StoreError(
      `${home}: cannot create the lock file (${(error as Error).message}); check the folder is writable`,
      {
        path,
        cause: error,
      },
    );
  }
  try {
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        linkSync(temp, path);
        return ownLock(path, me);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const holder = readHolder(path);
      if (!holder) continue;
      const foreign = holder.host !== undefined && holder.host !== me.host;
      if (foreign || processAlive(holder.pid, holder.start)) {
        const where = foreign
          ? ` on host ${holder.host}`
          : holder.pid === process.pid
            ? ' (this process)'
            : '';
        throw new HomeLockedError(
          `${home} is in use by Wren process ${holder.pid}${where}; stop it first (kill ${holder.pid}), or use ` +
            `another home with WREN_HOME. If that process is not Wren, delete ${path}`,
          { path, pid: holder.pid },
        );
      }
      removeStale(path, holder);
    }
    throw new StoreError(`${path}: could not take the lock after several attempts; try again`, { path });
  } finally {
    rmSync(temp, { force: true });
  }
}

function ownLock(path: string, me: Holder): HomeLock {
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    process.removeListener('exit', release);
    try {
      if (sameHolder(readHolder(path), me)) rmSync(path, { force: true });
    } catch {
      // Unreadable or already gone: nothing of ours left to remove (and exit handlers must not throw).
    }
  };
  process.on('exit', release);
  return { path, release };
}
