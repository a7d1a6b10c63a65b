import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const CLI = resolve('dist/cli/main.js');

/** Temp folders made by makeHome, removed when the test process ends. */
const made: string[] = [];
process.once('exit', () => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A fresh WREN_HOME in a temp folder with the given config.yaml (and optional .env); removed at exit. */
export function makeHome(config: string, dotEnv?: string): string {
  const root = mkdtempSync(join(tmpdir(), 'wren-e2e-'));
  made.push(root);
  const home = join(root, 'home');
  mkdirSync(home, { mode: 0o700 });
  writeFileSync(join(home, 'config.yaml'), config, { mode: 0o600 });
  if (dotEnv !== undefined) writeFileSync(join(home, '.env'), dotEnv, { mode: 0o600 });
  return home;
}

/** The environment a spawned `wren` gets: this one minus anything that could leak a real config in. */
export function cliEnv(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env['PATH'],
    HOME: process.env['HOME'],
    WREN_HOME: home,
    ...extra,
  };
  return env;
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `wren ARGS` to completion. */
export function runCli(args: string[], env: NodeJS.ProcessEnv, input?: string): Promise<CliResult> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [CLI, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
}

export interface RunningWren {
  child: ChildProcess;
  url: string;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the exit code once the process has ended. */
  exited: Promise<number | null>;
  stop(): Promise<number | null>;
}

/** Starts `wren start --port 0` and resolves once it prints the address it listens on. */
export function startWren(env: NodeJS.ProcessEnv, args: string[] = []): Promise<RunningWren> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [CLI, 'start', '--port', '0', ...args], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    const exited = new Promise<number | null>((resolveExit) => child.on('exit', (code) => resolveExit(code)));
    const timer = setTimeout(
      () => fail(new Error(`wren start did not come up.\nstdout: ${stdout}\nstderr: ${stderr}`)),
      15_000,
    );
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = stdout.match(/Listening on (http:\/\/\S+)/);
      if (match) {
        clearTimeout(timer);
        done({
          child,
          url: match[1]!,
          stdout: () => stdout,
          stderr: () => stderr,
          exited,
          stop: async () => {
            if (child.exitCode === null) child.kill('SIGTERM');
            return exited;
          },
        });
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    void exited.then((code) => {
      clearTimeout(timer);
      fail(
        new Error(`wren start exited with ${code} before listening.\nstdout: ${stdout}\nstderr: ${stderr}`),
      );
    });
  });
}

/** Polls `check` until it returns true or `timeoutMs` passes (for effects that happen asynchronously). */
export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolveWait) => setTimeout(resolveWait, 50));
  }
}
