import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';
import { createStream } from 'rotating-file-stream';

export type { Logger };

/** Keys whose values are secrets wherever they appear in a log record. */
const REDACT = [
  'apiKey',
  'api_key',
  'token',
  'authorization',
  '*.apiKey',
  '*.api_key',
  '*.token',
  '*.authorization',
  'headers.authorization',
  '*.headers.authorization',
];

/** Rewrites every log call's arguments (the gate's secret-value redactor provides one). */
export interface LogRedactor {
  logHook(): (this: unknown, args: unknown[], method: (...args: unknown[]) => void) => void;
}

/** The log's level and size-based rotation (config.log). */
export interface LogOptions {
  readonly level: string;
  /** The live file is rotated once it reaches this size (a single line is never split, so it may pass it by one line). */
  readonly maxBytes: number;
  /** Rotated files kept besides the live one: `wren.log.1` (newest) … `wren.log.<keep>` (oldest). */
  readonly keep: number;
}

/** The log file's name in `<home>/logs`; rotated copies are this name plus `.1` … `.<keep>`. */
export const LOG_FILE = 'wren.log';

/**
 * A JSON-lines logger writing to `<home>/logs/wren.log` (0600, folder 0700), rotated by size the logrotate
 * way: at `maxBytes` the live file becomes `wren.log.1`, `wren.log.1` becomes `wren.log.2` … and the one past
 * `keep` is dropped, so the folder holds at most `keep + 1` files of about `maxBytes` each. Secrets are
 * redacted by key, and by value when a `redactor` is given.
 *
 * Writes are asynchronous and never block the process: a process that ends by itself has written every line,
 * one that calls `process.exit()` may lose the lines of its last moment — but never crashes in an exit
 * flush (pino registers none for this stream; its own file destination did, and crashed when the process
 * exited before the file was open). A failing log file (disk full, folder removed) is reported once on
 * stderr and logging stops; it never takes the process down.
 */
export function createLogger(home: string, options: LogOptions, redactor?: LogRedactor): Logger {
  const dir = join(home, 'logs');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const stream = createStream(LOG_FILE, {
    path: dir,
    size: `${Math.max(1, Math.floor(options.maxBytes))}B`,
    rotate: Math.max(1, Math.floor(options.keep)),
    mode: 0o600,
  });
  let reported = false;
  stream.on('error', (error) => {
    if (reported) return;
    reported = true;
    process.stderr.write(
      `wren: the log file ${join(dir, LOG_FILE)} failed (${error.message}); logging stopped.\n`,
    );
  });
  return pino(
    {
      level: options.level,
      redact: { paths: REDACT, censor: '[redacted]' },
      base: { pid: process.pid },
      ...(redactor ? { hooks: { logMethod: redactor.logHook() as never } } : {}),
    },
    stream,
  );
}

/**
 * Writes out what a logger made by `createLogger` still holds and closes its file; resolves at once for any
 * other logger. For an orderly shutdown and for tests that read the file.
 */
export function closeLogger(logger: Logger): Promise<void> {
  const stream = (logger as unknown as Record<symbol, unknown>)[pino.symbols.streamSym];
  if (!(stream instanceof Writable) || stream.writableFinished || stream.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    stream.once('close', () => resolve());
    stream.once('error', () => resolve());
    stream.end();
  });
}

/** A logger that drops everything (tests, one-shot commands that must not touch the log). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
