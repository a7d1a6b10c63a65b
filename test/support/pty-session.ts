import { spawn } from 'node:child_process';

export interface PtyResult {
  code: number | null;
  /** Everything the program drew, escape sequences included. */
  screen: string;
}

/**
 * Runs `command` (one program and its arguments) in a real pseudo-terminal (util-linux `script`, 120×40) and
 * answers it: each step waits until
 * `expect` matches the output drawn since the previous step, then sends `keys`. Rejects with the recent
 * screen when a step does not come within `timeoutMs`. The shell `exec`s the program, so a Ctrl+C reaches only
 * it: a shell left between the pty and the program could die of SIGINT itself (exit 130) while the program
 * exits 0.
 */
export function runInPty(
  command: string,
  env: NodeJS.ProcessEnv,
  steps: Array<[expect: RegExp, keys: string]>,
  timeoutMs = 15_000,
): Promise<PtyResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qfec', `stty cols 120 rows 40; exec ${command}`, '/dev/null'], {
      env: { ...env, TERM: 'xterm' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let screen = '';
    let next = 0;
    let seenUpTo = 0;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`stuck before step ${next}:\n${screen.slice(-1500)}`));
    }, timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => {
      screen += chunk.toString();
      const step = steps[next];
      if (step?.[0].test(screen.slice(seenUpTo))) {
        seenUpTo = screen.length;
        next++;
        const keys = step[1];
        setTimeout(() => child.stdin.write(keys), 100);
      }
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, screen });
    });
  });
}
