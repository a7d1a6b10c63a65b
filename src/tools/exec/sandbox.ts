import { type ChildProcess, spawn } from 'node:child_process';

/** Where a sandboxed command may write and what it may reach. All paths absolute. */
export interface SandboxPlan {
  workspace: string;
  cwd: string;
  home: string;
  /** Folders hidden behind an empty tmpfs (e.g. Wren's home with its config and secrets). */
  hidden: readonly string[];
  network: boolean;
  /** The real path of /etc/resolv.conf when it lives under /run (systemd-resolved): kept for `network`. */
  resolvConf?: string;
}

/**
 * The bubblewrap arguments that run `argv` with the whole file system read-only, the home folder and
 * `hidden` folders replaced by empty ones (the workspace is mounted back inside), only the workspace
 * writable, a private /tmp and /run (no host sockets), new namespaces (no network unless `plan.network`),
 * and the sandbox ending with its parent. Pure.
 */
export function bwrapArguments(plan: SandboxPlan, argv: readonly string[]): string[] {
  const args = ['--die-with-parent', '--new-session', '--unshare-all'];
  if (plan.network) args.push('--share-net');
  args.push('--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp');
  // /run holds the host's unix sockets (the D-Bus session bus that can start systemd units, docker.sock,
  // agents); a socket needs no write access to be used, so the read-only bind alone would leave them open.
  args.push('--tmpfs', '/run');
  if (plan.network && plan.resolvConf?.startsWith('/run/'))
    args.push('--ro-bind-try', plan.resolvConf, plan.resolvConf);
  for (const folder of new Set([plan.home, ...plan.hidden])) {
    if (folder === '/' || folder === plan.workspace) continue;
    args.push('--tmpfs', folder);
  }
  args.push('--bind', plan.workspace, plan.workspace, '--chdir', plan.cwd, '--', ...argv);
  return args;
}

/** What the probe found: whether bubblewrap can run here, and if not why and what to do about it. */
export interface SandboxProbe {
  available: boolean;
  /** Set when unavailable: the cause and the fix, lower-case, without a final period. */
  reason?: string;
  /** The probe was stopped (Wren is stopping) before it answered: nothing is known, so nothing runs. */
  stopped?: true;
}

let cached: Promise<SandboxProbe> | undefined;

/** Probes still running: each child and a promise that settles once it has exited and been reaped. */
const running = new Map<ChildProcess, Promise<void>>();

/**
 * Stops every probe still running (SIGKILL) and resolves once each child has exited and been reaped, so
 * none is left behind as a zombie or an orphan when Wren stops right after starting. A stopped probe's
 * answer is not cached (the next checkSandbox probes again). Idempotent; never throws.
 */
export async function stopSandboxProbes(): Promise<void> {
  if (running.size === 0) return;
  const exits = [...running.entries()].map(([child, exited]) => {
    child.kill('SIGKILL');
    return exited;
  });
  cached = undefined;
  await Promise.all(exits);
}

/**
 * Whether `bwrap` is installed and can create its namespaces here (containers often refuse user
 * namespaces). Runs `bwrap … true` once and caches the answer (`fresh` probes again; a custom `command`
 * is never cached); never throws. Whoever stops the process should await stopSandboxProbes() first, so the
 * child is reaped here rather than orphaned.
 */
export function checkSandbox(options: { command?: string; fresh?: boolean } = {}): Promise<SandboxProbe> {
  if (cached && !options.fresh && !options.command) return cached;
  const command = options.command ?? 'bwrap';
  const probe = new Promise<SandboxProbe>((resolveProbe) => {
    // `--as-pid-1`: without it bwrap starts an init in the new pid namespace and exits without reaping it,
    // which leaves that init a zombie for whatever adopts it; as pid 1, `true` is bwrap's own child, reaped.
    const child = spawn(
      command,
      [
        '--die-with-parent',
        '--unshare-all',
        '--as-pid-1',
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
    let reaped!: () => void;
    running.set(
      child,
      new Promise<void>((resolveExit) => {
        reaped = resolveExit;
      }),
    );
    const settle = (answer: SandboxProbe) => {
      running.delete(child);
      reaped();
      resolveProbe(answer);
    };
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(0, 2000);
    });
    child.on('error', (error: NodeJS.ErrnoException) => {
      settle({
        available: false,
        reason:
          error.code === 'ENOENT'
            ? 'bubblewrap (bwrap) is not installed; install it (e.g. apt-get install bubblewrap)'
            : `bwrap could not start (${error.message}); check that ${command} is an executable bubblewrap`,
      });
    });
    // 'close' comes after 'exit', which Node emits once the child has been reaped.
    child.on('close', (code, signal) => {
      if (code === 0) settle({ available: true });
      else if (signal === 'SIGKILL')
        settle({
          available: false,
          stopped: true,
          reason: 'the bubblewrap check was stopped before it answered (Wren is stopping)',
        });
      else
        settle({
          available: false,
          reason: `bwrap cannot create a sandbox here (${stderr.trim().split('\n')[0] || `exit code ${code}`}), usually because unprivileged user namespaces are disabled; allow them (sysctl kernel.unprivileged_userns_clone=1, or kernel.apparmor_restrict_unprivileged_userns=0 on Ubuntu 24.04+)`,
        });
    });
  });
  if (!options.command) cached = probe;
  return probe;
}

/** `tools.exec.sandbox`: `auto` uses bubblewrap when it works here and runs without a sandbox otherwise. */
export type SandboxSetting = 'none' | 'bwrap' | 'auto';

/** How exec runs commands, for exec itself and for `wren start`, `doctor` and `security audit` to report. */
export interface SandboxResolution {
  /** `bwrap`: inside bubblewrap; `none`: as the user, with the user's file system and network. */
  mode: 'bwrap' | 'none';
  /**
   * Set whenever commands do not run sandboxed (or do not run): one sentence, starting lower-case so it
   * reads after "sandbox: none, because …", naming the cause and how to fix it.
   */
  reason?: string;
  /** `tools.exec.sandbox` is `bwrap` and bubblewrap cannot run here: exec refuses every command. */
  refused?: true;
}

/**
 * Decides how commands run from the setting and the probe's answer (`probe` may be omitted for `none`;
 * a missing probe counts as unavailable otherwise). `bwrap` is strict: unavailable means refused. Pure.
 */
export function resolveSandbox(setting: SandboxSetting, probe?: SandboxProbe): SandboxResolution {
  if (setting === 'none')
    return {
      mode: 'none',
      reason:
        'tools.exec.sandbox is none in config.yaml; set it to auto to run commands in bubblewrap wherever it works.',
    };
  if (probe?.available) return { mode: 'bwrap' };
  // Stopped before it answered: whether bubblewrap works is unknown, so even `auto` runs nothing unsandboxed.
  if (probe?.stopped) return { mode: 'bwrap', refused: true, reason: `${probe.reason}.` };
  const cause = probe?.reason ?? 'bubblewrap was not checked';
  if (setting === 'bwrap')
    return {
      mode: 'bwrap',
      refused: true,
      reason: `tools.exec.sandbox is bwrap but ${cause}, or set tools.exec.sandbox: auto to run commands without a sandbox here.`,
    };
  return { mode: 'none', reason: `${cause}, then restart Wren to run commands in a sandbox.` };
}
