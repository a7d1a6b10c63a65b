import { mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import pino, { type Logger } from 'pino';

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

/**
 * A JSON-lines logger writing to `<home>/logs/wren.log` (0600). Secrets are redacted by key, and by value
 * when a `redactor` is given.
 */
export function createLogger(home: string, level: string, redactor?: LogRedactor): Logger {
  const dir = join(home, 'logs');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // Opened here, synchronously: a destination that opens its file itself is "not ready" for a moment, and
  // a process exiting in that moment (a one-shot command, an early error) crashed in pino's exit flush.
  const fd = openSync(join(dir, 'wren.log'), 'a', 0o600);
  const destination = pino.destination({ dest: fd, sync: false });
  return pino(
    {
      level,
      redact: { paths: REDACT, censor: '[redacted]' },
      base: { pid: process.pid },
      ...(redactor ? { hooks: { logMethod: redactor.logHook() as never } } : {}),
    },
    destination,
  );
}

/** A logger that drops everything (tests, one-shot commands that must not touch the log). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
