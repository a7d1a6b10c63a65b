import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redactor } from '../../gate/redactor.js';
import { RUN_MARKER } from './exec-env.js';
import { type RunOptions, runProcess } from './run-process.js';
import { createStreamRedactor } from './stream-redactor.js';

let base: string;
const run = (command: string, overrides: Partial<RunOptions> = {}) =>
  runProcess({
    argv: ['/bin/bash', '-c', command],
    cwd: base,
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin' },
    timeoutMs: 20_000,
    outputCap: 1000,
    logPath: join(base, 'logs', `${Math.random()}.log`),
    ...overrides,
  });

beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'wren-run-')));
});

afterAll(() => {
  rmSync(base, { recursive: true, force: true });
});

const isAlive = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
};

describe('createStreamRedactor', () => {
  const secret = 'ghp_0123456789abcdefXYZ';
  const redactor = new Redactor([secret]);
  const text = `one ${secret} two\nthree ${secret}\n${secret}${secret} four`;
  const expected = redactor.text(text);

  it('redacts a secret split at any point across two chunks', () => {
    for (let cut = 0; cut <= text.length; cut++) {
      const stream = createStreamRedactor((chunk) => redactor.text(chunk));
      const out = stream.push(text.slice(0, cut)) + stream.push(text.slice(cut)) + stream.end();
      expect(out, `cut at ${cut}`).toBe(expected);
    }
  });

  it('redacts a secret arriving one character at a time', () => {
    const stream = createStreamRedactor((chunk) => redactor.text(chunk));
    let out = '';
    for (const char of text) out += stream.push(char);
    expect(out + stream.end()).toBe(expected);
  });

  it('releases a line longer than 64 KiB without splitting a secret at the cut', () => {
    const line = 'a'.repeat(70_000);
    for (const offset of [4096, 4096 + 5, 4096 + secret.length - 1, 4096 + 200]) {
      const stream = createStreamRedactor((chunk) => redactor.text(chunk));
      // The secret sits where the first release would cut without the check (4 KiB before the end).
      const first = `${line.slice(0, line.length - offset)}${secret}${'b'.repeat(offset)}`;
      const released = stream.push(first);
      expect(released.length).toBeGreaterThan(60_000);
      expect(released + stream.end()).toBe(redactor.text(first));
      expect(released).not.toContain(secret.slice(0, 6));
    }
  });
});

describe('runProcess', () => {
  it('marks the command environment with a run id unique to the call', async () => {
    const first = await run(`printf %s "$${RUN_MARKER}"`);
    const second = await run(`printf %s "$${RUN_MARKER}"`);
    expect(first.head).toMatch(/^[0-9a-f-]{36}$/);
    expect(second.head).not.toBe(first.head);
  });

  it('redacts everything written to the log, held-back text included', async () => {
    const redactor = new Redactor(['hunter2-password']);
    const result = await run(
      "printf '%01200d\\n' 0; printf 'pw=hunter2-'; sleep 0.3; printf 'password'; sleep 0.3; printf ' (no newline at the end)'",
      { redact: (text) => redactor.text(text) },
    );
    const saved = readFileSync(result.logPath!, 'utf8');
    expect(saved).toBe(`${'0'.repeat(1200)}\npw=[redacted] (no newline at the end)`);
    expect(result.logDropped).toBe(false);
  });

  it('returns even when a process escapes the sweep (cleared environment, own session) and holds the pipe', async () => {
    const result = await run('env -i /usr/bin/setsid /bin/sleep 300 & echo $!; sleep 0.2');
    const pid = Number(result.head.trim());
    try {
      expect(result.exitCode).toBe(0);
      expect(isAlive(pid)).toBe(true);
    } finally {
      process.kill(pid, 'SIGKILL');
    }
  });

  it('waits for a SIGTERM-ignoring leftover until the grace period, then kills it', async () => {
    const result = await run(
      'setsid bash -c \'trap "" TERM; echo $$; while :; do sleep 0.05; done\' & sleep 0.3; echo done',
      { killGraceMs: 300 },
    );
    const [pid] = result.head.split('\n').map(Number);
    expect(result.head).toMatch(/\ndone\n$/);
    expect(isAlive(pid!)).toBe(false);
  });
});
