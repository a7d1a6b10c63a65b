import { Command } from 'commander';
import { vi } from 'vitest';

/**
 * Runs `wren ARGS` in this process with the commands `register` adds, for a home, and returns what they
 * printed and the exit code they set (stdout and stderr are captured for the run only).
 */
export async function runCommands(
  register: (program: Command, home: () => string) => void,
  home: string,
  args: string[],
): Promise<{ stdout: string; stderr: string; code: number }> {
  let stdout = '';
  let stderr = '';
  process.exitCode = undefined;
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    stdout += String(chunk);
    return true;
  });
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    stderr += String(chunk);
    return true;
  });
  try {
    const program = new Command().exitOverride();
    register(program, () => home);
    await program.parseAsync(['node', 'wren', ...args]);
  } finally {
    vi.restoreAllMocks();
  }
  return { stdout, stderr, code: Number(process.exitCode ?? 0) };
}
