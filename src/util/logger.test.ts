import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { closeLogger, createLogger, type LogRedactor } from './logger.js';

const homes: string[] = [];
function tempHome(): string {
  const home = mkdtempSync(join(tmpdir(), 'wren-logger-'));
  homes.push(home);
  return home;
}
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

const logFiles = (home: string) => readdirSync(join(home, 'logs')).sort();
const lines = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

/** A value redactor like the gate's: replaces one secret wherever it appears in the arguments. */
function redactorOf(secret: string): LogRedactor {
  return {
    logHook: () =>
      function hook(args, method) {
        const clean = JSON.parse(JSON.stringify(args).replaceAll(secret, '[redacted]')) as unknown[];
        method.apply(this, clean);
      },
  };
}

describe('createLogger', () => {
  it('keeps a 100 MB flood under the cap, newest lines in wren.log, files 0600 and folder 0700', async () => {
    const home = tempHome();
    const maxBytes = 1024 * 1024;
    const keep = 3;
    const logger = createLogger(home, { level: 'info', maxBytes, keep });
    const filler = 'x'.repeat(8 * 1024);
    const count = Math.ceil((100 * 1024 * 1024) / filler.length);
    for (let seq = 0; seq < count; seq++) logger.info({ seq, filler }, 'flood');
    await closeLogger(logger);

    const files = logFiles(home);
    expect(files).toEqual(['wren.log', 'wren.log.1', 'wren.log.2', 'wren.log.3']);
    const sizes = files.map((name) => statSync(join(home, 'logs', name)).size);
    // Rotation is checked after each line is written and a line is never split, so each of the keep + 1
    // files may pass maxBytes by at most one line.
    const lineBytes =
      Buffer.byteLength(readFileSync(join(home, 'logs', 'wren.log.1'), 'utf8').split('\n')[0] ?? '') + 1;
    const total = sizes.reduce((sum, size) => sum + size, 0);
    expect(total).toBeLessThanOrEqual(maxBytes * (keep + 1) + (keep + 1) * lineBytes);
    for (const size of sizes.slice(1)) expect(size).toBeGreaterThanOrEqual(maxBytes);

    // Oldest to newest: wren.log.3, .2, .1, wren.log — one unbroken run of sequence numbers ending in the last.
    const kept = [...files.slice(1).reverse(), 'wren.log'].flatMap((name) => lines(join(home, 'logs', name)));
    const seqs = kept.map((line) => line['seq'] as number);
    expect(seqs.at(-1)).toBe(count - 1);
    expect(seqs).toEqual(seqs.map((_, index) => (seqs[0] ?? 0) + index));

    expect(statSync(join(home, 'logs')).mode & 0o777).toBe(0o700);
    for (const name of files) expect(statSync(join(home, 'logs', name)).mode & 0o777).toBe(0o600);
  }, 120_000);

  it('rotates an oversized wren.log left by an earlier run before writing to it', async () => {
    const home = tempHome();
    await closeLogger(createLogger(home, { level: 'info', maxBytes: 1024, keep: 2 }));
    writeFileSync(join(home, 'logs', 'wren.log'), `${'{"old":true}\n'.repeat(200)}`);
    const logger = createLogger(home, { level: 'info', maxBytes: 1024, keep: 2 });
    logger.info('fresh');
    await closeLogger(logger);
    expect(lines(join(home, 'logs', 'wren.log')).map((line) => line['msg'])).toEqual(['fresh']);
    expect(readFileSync(join(home, 'logs', 'wren.log.1'), 'utf8')).toContain('"old":true');
  });

  it('redacts secrets by key and by value', async () => {
    const home = tempHome();
    const secret = 'sk-live-0123456789abcdef';
    const logger = createLogger(home, { level: 'debug', maxBytes: 1024 * 1024, keep: 1 }, redactorOf(secret));
    logger.info(
      { apiKey: 'key-value-1', nested: { token: 'token-value-2' }, url: `https://x/?k=${secret}` },
      `msg ${secret}`,
    );
    logger.trace('below the level');
    await closeLogger(logger);
    const text = readFileSync(join(home, 'logs', 'wren.log'), 'utf8');
    for (const value of [secret, 'key-value-1', 'token-value-2', 'below the level'])
      expect(text).not.toContain(value);
    expect(text).toContain('msg [redacted]');
  });

  it('survives a process that logs and exits at once, by itself or through process.exit', () => {
    const logger = fileURLToPath(new URL('./logger.ts', import.meta.url));
    const run = (home: string, exit: string) => {
      const script = `import { createLogger } from ${JSON.stringify(logger)};
        const log = createLogger(${JSON.stringify(home)}, { level: 'info', maxBytes: 4096, keep: 2 });
        for (let i = 0; i < 100; i++) log.info({ i }, 'one-shot');
        ${exit}`;
      try {
        execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
          stdio: 'pipe',
        });
        return { status: 0, stderr: '' };
      } catch (error) {
        const failed = error as { status: number; stderr: Buffer };
        return { status: failed.status, stderr: failed.stderr.toString() };
      }
    };
    const natural = tempHome();
    expect(run(natural, '')).toEqual({ status: 0, stderr: '' });
    // Ended by itself: every line written, the newest last in wren.log.
    expect(lines(join(natural, 'logs', 'wren.log')).at(-1)?.['i']).toBe(99);
    expect(logFiles(natural)).toEqual(['wren.log', 'wren.log.1']);

    const exited = run(tempHome(), 'process.exit(3);');
    expect(exited).toEqual({ status: 3, stderr: '' });
    const thrown = run(tempHome(), 'throw new Error("early failure");');
    expect(thrown.status).toBe(1);
    expect(thrown.stderr).toContain('early failure');
    expect(thrown.stderr).not.toMatch(/sonic|not ready|flush/i);
  }, 60_000);
});
