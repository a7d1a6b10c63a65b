import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { dirname } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { RUN_MARKER } from './exec-env.js';
import { stopRun } from './stop-run.js';
import { createStreamRedactor, type StreamRedactor } from './stream-redactor.js';

export interface RunOptions {
  /** Program and arguments (e.g. `['bash', '-c', command]` or a bwrap line). */
  argv: readonly string[];
  cwd: string;
  /** The command's environment; `RUN_MARKER` is added to it. */
  env: Record<string, string>;
  timeoutMs: number;
  /** Most characters of output kept for the model (half head, half tail). */
  outputCap: number;
  /** Where the output goes once it exceeds `outputCap` (created on demand). */
  logPath: string;
  /** Most bytes written to `logPath` (default 10 MB); the rest is dropped and a closing note says so. */
  logCapBytes?: number;
  /** Applied to everything written to `logPath` (secrets → `[redacted]`); see `createStreamRedactor`. */
  redact?: (text: string) => string;
  /** After SIGTERM, how long to wait before SIGKILL. */
  killGraceMs?: number;
  /** Put in front of the run's marker value (see runMarkerPrefix): what sweepOrphans looks for. */
  markerPrefix?: string;
}

export interface RunResult {
  /** Head of the output (all of it when not truncated). */
  head: string;
  /** Tail of the output (empty when not truncated). */
  tail: string;
  /** Total characters of output. */
  totalChars: number;
  truncated: boolean;
  /** Set when the output exceeded the cap: the file holding it. */
  logPath?: string;
  /** The file reached `logCapBytes`: the output after that point was not saved. */
  logDropped: boolean;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  aborted: boolean;
  durationMs: number;
  /** The program could not start (ENOENT …). */
  spawnError?: string;
}

const DEFAULT_LOG_CAP_BYTES = 10 * 1024 * 1024;
/**
 * After the sweep, pipes still open are held by a process it could not find: they are closed once no
 * output came for PIPE_WAIT_MS (what is still buffered gets read first), or after PIPE_WAIT_MAX_MS.
 */
const PIPE_WAIT_MS = 500;
const PIPE_WAIT_MAX_MS = 5000;

/**
 * Runs one process in its own process group and session with stdin closed, stdout and stderr merged, and
 * `RUN_MARKER=<unique id>` in its environment. Memory stays bounded whatever it prints: only `outputCap`
 * characters are kept (head + rolling tail); once the output passes the cap it is streamed, redacted, to
 * `logPath` with back-pressure (the child is paused while the disk catches up) up to `logCapBytes`.
 * When the command exits, times out or `signal` aborts, everything it started is stopped before this
 * resolves: its process group and, on Linux, every process carrying its marker (which finds what left the
 * group: `setsid`, `nohup … &`, double forks), SIGTERM first and SIGKILL after `killGraceMs`. A process that
 * both leaves the group and clears its environment (`env -i setsid …`) escapes; a bwrap sandbox's PID
 * namespace and `--die-with-parent` cover that case. Never rejects.
 */
export function runProcess(options: RunOptions, signal?: AbortSignal): Promise<RunResult> {
  const started = Date.now();
  const kept = new KeptOutput(options.outputCap);
  const log = new OutputLog(options.logPath, options.logCapBytes ?? DEFAULT_LOG_CAP_BYTES, options.redact);
  const id = `${options.markerPrefix ?? ''}${randomUUID()}`;
  let timedOut = false;
  let aborted = false;

  return new Promise((resolveRun) => {
    const [program, ...args] = options.argv;
    const child = spawn(program!, args, {
      cwd: options.cwd,
      env: { ...options.env, [RUN_MARKER]: id },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stopping: Promise<void> | undefined;
    const stop = () => {
      stopping ??= stopRun(child.pid, `${RUN_MARKER}=${id}`, options.killGraceMs ?? 2000);
      return stopping;
    };
    const timer = setTimeout(() => {
      timedOut = true;
      void stop();
    }, options.timeoutMs);
    const onAbort = () => {
      aborted = true;
      void stop();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) onAbort();

    const output = collectOutput(child, kept, log, options.outputCap);

    let spawnError: string | undefined;
    child.on('error', (error) => {
      spawnError = error.message;
    });
    child.on('exit', () => {
      clearTimeout(timer);
      // What the command left running (background jobs, detached daemons) ends with it; then a process
      // that escaped the sweep and still holds the pipes must not hold the result too.
      void stop().then(() => {
        const giveUp = Date.now() + PIPE_WAIT_MAX_MS;
        const release = () => {
          if (child.stdout?.closed !== false && child.stderr?.closed !== false) return;
          const busy = Date.now() - output.lastData() < PIPE_WAIT_MS || child.stdout?.isPaused();
          if (busy && Date.now() < giveUp) {
            setTimeout(release, PIPE_WAIT_MS / 5).unref();
            return;
          }
          child.stdout?.destroy();
          child.stderr?.destroy();
        };
        setTimeout(release, PIPE_WAIT_MS).unref();
      });
    });
    child.on('close', (exitCode, exitSignal) => {
      clearTimeout(timer);
      void (stopping ?? Promise.resolve()).then(() => {
        signal?.removeEventListener('abort', onAbort);
        output.flush();
        log.end(() =>
          resolveRun({
            head: kept.truncated ? kept.head : kept.text(),
            tail: kept.keptTail(),
            totalChars: kept.total,
            truncated: kept.truncated,
            ...(log.started ? { logPath: options.logPath } : {}),
            logDropped: log.dropped,
            exitCode,
            signal: exitSignal,
            timedOut,
            aborted,
            durationMs: Date.now() - started,
            ...(spawnError ? { spawnError } : {}),
          }),
        );
      });
    });
  });
}

/**
 * Feeds the child's stdout and stderr to `kept` and, once past `outputCap`, to `log` (pausing the child
 * while the disk is behind). `flush` takes what the decoder still holds at the end; `lastData` is when
 * output last arrived.
 */
function collectOutput(
  child: ChildProcess,
  kept: KeptOutput,
  log: OutputLog,
  outputCap: number,
): { flush: () => void; lastData: () => number } {
  const decoder = new StringDecoder('utf8');
  let last = Date.now();
  const take = (text: string) => {
    last = Date.now();
    if (text === '') return;
    if (!log.started && kept.total + text.length > outputCap) log.write(kept.text());
    kept.add(text);
    if (log.started && !log.write(text)) {
      child.stdout?.pause();
      child.stderr?.pause();
      log.onDrain(() => {
        child.stdout?.resume();
        child.stderr?.resume();
      });
    }
  };
  child.stdout?.on('data', (chunk: Buffer) => take(decoder.write(chunk)));
  child.stderr?.on('data', (chunk: Buffer) => take(decoder.write(chunk)));
  return { flush: () => take(decoder.end()), lastData: () => last };
}

/** The first and last characters of the output: memory stays bounded whatever the command prints. */
class KeptOutput {
  head = '';
  total = 0;
  private tail = '';
  private readonly headCap: number;
  private readonly tailCap: number;

  constructor(private readonly cap: number) {
    this.headCap = Math.floor(cap / 2);
    this.tailCap = cap - this.headCap;
  }

  add(text: string): void {
    this.total += text.length;
    if (this.head.length < this.headCap) {
      const room = this.headCap - this.head.length;
      this.head += text.slice(0, room);
      text = text.slice(room);
    }
    if (text === '') return;
    this.tail += text;
    if (this.tail.length > this.tailCap * 2) this.tail = this.tail.slice(-this.tailCap);
  }

  get truncated(): boolean {
    return this.total > this.cap;
  }

  /** Everything so far; complete only while not truncated. */
  text(): string {
    return this.head + this.tail;
  }

  keptTail(): string {
    return this.truncated ? this.tail.slice(-this.tailCap) : '';
  }
}

/** The saved output: created on the first write, redacted, cut at `capBytes` with a closing note. */
class OutputLog {
  started = false;
  dropped = false;
  private stream: WriteStream | undefined;
  private bytes = 0;
  private readonly redactor: StreamRedactor | undefined;

  constructor(
    private readonly path: string,
    private readonly capBytes: number,
    redact?: (text: string) => string,
  ) {
    this.redactor = redact ? createStreamRedactor(redact) : undefined;
  }

  /** Appends `text`; false when the disk is behind (wait for `onDrain`). */
  write(text: string): boolean {
    if (!this.stream) {
      this.started = true;
      mkdirSync(dirname(this.path), { recursive: true });
      this.stream = createWriteStream(this.path, { mode: 0o600 });
      this.stream.on('error', () => {});
    }
    if (this.dropped) return true;
    return this.append(this.redactor ? this.redactor.push(text) : text);
  }

  onDrain(listener: () => void): void {
    this.stream?.once('drain', listener);
  }

  /** Flushes what the redactor held back and closes the file; `done` runs when it is on disk. */
  end(done: () => void): void {
    if (!this.stream) {
      done();
      return;
    }
    if (this.redactor && !this.dropped) this.append(this.redactor.end());
    this.stream.end(done);
  }

  private append(text: string): boolean {
    if (text === '') return true;
    const bytes = Buffer.from(text, 'utf8');
    const room = this.capBytes - this.bytes;
    if (bytes.length <= room) {
      this.bytes += bytes.length;
      return this.stream!.write(bytes);
    }
    let cut = room;
    while (cut > 0 && (bytes[cut]! & 0xc0) === 0x80) cut--;
    this.stream!.write(bytes.subarray(0, cut));
    this.bytes += cut;
    this.dropped = true;
    const size = `${Math.round((this.capBytes / 1024 / 1024) * 10) / 10} MB`;
    return this.stream!.write(`\n[… the rest of the output was dropped: this file is capped at ${size}]\n`);
  }
}
