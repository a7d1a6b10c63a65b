import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { dirname } from 'node:path';
import { StringDecoder } from 'node:string_decoder';

export interface RunOptions {
  /** Program and arguments (e.g. `['bash', '-c', command]` or a bwrap line). */
  argv: readonly string[];
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  /** Most characters of output kept for the model (half head, half tail). */
  outputCap: number;
  /** Where the full output goes once it exceeds the cap (created on demand). */
  logPath: string;
  /** After a kill, how long to wait before SIGKILL. */
  killGraceMs?: number;
}

export interface RunResult {
  /** Head of the output (all of it when not truncated). */
  head: string;
  /** Tail of the output (empty when not truncated). */
  tail: string;
  /** Total characters of output. */
  totalChars: number;
  truncated: boolean;
  /** Set when the output exceeded the cap: the file holding all of it. */
  logPath?: string;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  aborted: boolean;
  durationMs: number;
  /** The program could not start (ENOENT …). */
  spawnError?: string;
}

/** Sends `signal` to the whole process group of `pid` (the child was started detached, as a group leader). */
function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}

/**
 * Runs one process in its own process group with stdin closed, stdout and stderr merged. Memory stays
 * bounded whatever it prints: only `outputCap` characters are kept (head + rolling tail); once the output
 * passes the cap, everything is streamed to `logPath` with back-pressure (the child is paused while the
 * disk catches up). On timeout or abort the whole group gets SIGTERM, then SIGKILL after a grace period;
 * when the main process exits, stragglers left in the group are killed too. Never rejects.
 */
export function runProcess(options: RunOptions, signal?: AbortSignal): Promise<RunResult> {
  const started = Date.now();
  const headCap = Math.floor(options.outputCap / 2);
  const tailCap = options.outputCap - headCap;
  let head = '';
  let tail = '';
  let total = 0;
  let log: WriteStream | undefined;
  let timedOut = false;
  let aborted = false;
  const decoder = new StringDecoder('utf8');

  return new Promise((resolveRun) => {
    const [program, ...args] = options.argv;
    const child = spawn(program!, args, {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let killTimer: NodeJS.Timeout | undefined;
    const stop = () => {
      killGroup(child.pid, 'SIGTERM');
      killTimer ??= setTimeout(() => killGroup(child.pid, 'SIGKILL'), options.killGraceMs ?? 2000);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, options.timeoutMs);
    const onAbort = () => {
      aborted = true;
      stop();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) onAbort();

    const take = (text: string) => {
      if (text === '') return;
      total += text.length;
      if (!log && total > options.outputCap) {
        mkdirSync(dirname(options.logPath), { recursive: true });
        log = createWriteStream(options.logPath, { mode: 0o600 });
        log.on('error', () => {});
        log.write(head + tail);
      }
      if (log && !log.write(text)) {
        child.stdout?.pause();
        child.stderr?.pause();
        log.once('drain', () => {
          child.stdout?.resume();
          child.stderr?.resume();
        });
      }
      if (head.length < headCap) {
        const room = headCap - head.length;
        head += text.slice(0, room);
        text = text.slice(room);
      }
      if (text === '') return;
      tail += text;
      if (tail.length > tailCap * 2) tail = tail.slice(-tailCap);
    };
    child.stdout?.on('data', (chunk: Buffer) => take(decoder.write(chunk)));
    child.stderr?.on('data', (chunk: Buffer) => take(decoder.write(chunk)));

    let spawnError: string | undefined;
    child.on('error', (error) => {
      spawnError = error.message;
    });
    child.on('exit', () => {
      // Background jobs the command left behind would keep the pipes open: end the group.
      setTimeout(() => killGroup(child.pid, 'SIGKILL'), 200).unref();
    });
    child.on('close', (exitCode, exitSignal) => {
      clearTimeout(timer);
      clearTimeout(killTimer);
      signal?.removeEventListener('abort', onAbort);
      take(decoder.end());
      const finish = () => {
        const truncated = total > options.outputCap;
        const keptTail = truncated ? tail.slice(-tailCap) : '';
        resolveRun({
          head: truncated ? head : head + tail,
          tail: keptTail,
          totalChars: total,
          truncated,
          ...(log ? { logPath: options.logPath } : {}),
          exitCode,
          signal: exitSignal,
          timedOut,
          aborted,
          durationMs: Date.now() - started,
          ...(spawnError ? { spawnError } : {}),
        });
      };
      if (log) log.end(finish);
      else finish();
    });
  });
}
