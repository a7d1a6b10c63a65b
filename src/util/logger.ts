import { mkdirSync } from 'node:fs';
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

/** A JSON-lines logger writing to `<home>/logs/wren.log` (0600), secrets redacted by key. */
export function createLogger(home: string, level: string): Logger {
  const dir = join(home, 'logs');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const destination = pino.destination({
    dest: join(dir, 'wren.log'),
    mkdir: true,
    sync: false,
    mode: 0o600,
  });
  return pino(
    { level, redact: { paths: REDACT, censor: '[redacted]' }, base: { pid: process.pid } },
    destination,
  );
}

/** A logger that drops everything (tests, one-shot commands that must not touch the log). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
