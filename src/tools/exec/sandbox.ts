import { spawn } from 'node:child_process';

/** Where a sandboxed command may write and what it may reach. All paths absolute. */
export interface SandboxPlan {
  workspace: string;
  cwd: string;
  home: string;
  /** Folders hidden behind an empty tmpfs (e.g. Wren's home with its config and secrets). */
  hidden: readonly string[];
  network: boolean;
}

/**
 * The bubblewrap arguments that run `argv` with the whole file system read-only, the home folder and
 * `hidden` folders replaced by empty ones (the workspace is mounted back inside), only the workspace writable, a private /tmp, new namespaces
 * (no network unless `plan.network`), and the sandbox ending with its parent. Pure.
 */
export function bwrapArguments(plan: SandboxPlan, argv: readonly string[]): string[] {
  const args = ['--die-with-parent', '--new-session', '--unshare-all'];
  if (plan.network) args.push('--share-net');
  args.push('--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp');
  for (const folder of new Set([plan.home, ...plan.hidden])) {
    if (folder === '/' || folder === plan.workspace) continue;
    args.push('--tmpfs', folder);
  }
  args.push('--bind', plan.workspace, plan.workspace, '--chdir', plan.cwd, '--', ...argv);
  return args;
}

let cached: Promise<{ available: boolean; reason?: string }> | undefined;

/**
 * Whether `bwrap` is installed and can create its namespaces here (containers often refuse user
 * namespaces). Runs `bwrap … true` once and caches the answer; never throws.
 */
export function checkSandbox(options: { command?: string; fresh?: boolean } = {}): Promise<{
  available: boolean;
  reason?: string;
}> {
  if (cached && !options.fresh && !options.command) return cached;
  const command = options.command ?? 'bwrap';
  const probe = new Promise<{ available: boolean; reason?: string }>((resolveProbe) => {
    const child = spawn(
      command,
      [
        '--die-with-parent',
        '--unshare-all',
        '--ro-bind',
        '/',
        '/',
        '--dev',
        '/dev',
        '--proc',
        '/proc',
        'true',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(0, 2000);
    });
    child.on('error', (error: NodeJS.ErrnoException) => {
      resolveProbe({
        available: false,
        reason:
          error.code === 'ENOENT'
            ? 'bwrap (bubblewrap) is not installed; install it (e.g. apt-get install bubblewrap) or set tools.exec.sandbox: none'
            : `bwrap could not start: ${error.message}`,
      });
    });
    child.on('close', (code) => {
      if (code === 0) resolveProbe({ available: true });
      else
        resolveProbe({
          available: false,
          reason: `bwrap cannot create a sandbox here (${stderr.trim().split('\n')[0] || `exit code ${code}`}); user namespaces may be disabled`,
        });
    });
  });
  if (!options.command) cached = probe;
  return probe;
}
