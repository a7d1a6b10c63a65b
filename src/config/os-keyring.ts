import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/**
 * The OS keyring through its own command-line tool: `secret-tool` (libsecret: GNOME Keyring, KWallet) when
 * it is on PATH, else `security` (the login keychain) on macOS. No package is added for it, and a machine without one
 * (a server) simply has none. Values go in on stdin, never in argv; each call is bounded by a timeout, so
 * a locked keyring that wants a password prompt cannot hang Wren.
 */
export interface OsKeyring {
  /** `secret-tool` or `security`, for messages. */
  readonly tool: string;
  get(account: string): string | undefined;
  /** @throws Error when the keyring refused (locked, no session bus); the message names the tool only. */
  set(account: string, value: string): void;
  delete(account: string): boolean;
}

const SERVICE = 'wren';
const TIMEOUT_MS = 5000;

function onPath(tool: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env['PATH'] ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, tool);
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** Runs the tool; its stdout, or undefined when it exits non-zero (not found, refused). Never shows stderr. */
function run(path: string, args: string[], env: NodeJS.ProcessEnv, input = ''): string | undefined {
  try {
    return execFileSync(path, args, {
      input,
      env,
      timeout: TIMEOUT_MS,
      stdio: ['pipe', 'pipe', 'ignore'],
    }).toString('utf8');
  } catch {
    return undefined;
  }
}

/** A `security -i` argument, double-quoted (the account is a path and may hold spaces or quotes). */
const quoted = (text: string) => `"${text.replace(/["\\]/g, '\\$&')}"`;

/**
 * The keyring of this machine, or undefined when it has none Wren can drive (or `WREN_KEYRING=off`).
 * @param env where PATH is read and the tool runs (its D-Bus session or keychain comes from it).
 */
export function osKeyring(env: NodeJS.ProcessEnv = process.env): OsKeyring | undefined {
  if (env['WREN_KEYRING'] === 'off') return undefined;
  const secretTool = onPath('secret-tool', env);
  if (secretTool) {
    const attributes = (account: string) => ['service', SERVICE, 'home', account];
    return {
      tool: 'secret-tool',
      get: (account) =>
        run(secretTool, ['lookup', ...attributes(account)], env)?.replace(/\n$/, '') || undefined,
      set(account, value) {
        const stored = run(
          secretTool,
          ['store', `--label=Wren secret key (${account})`, ...attributes(account)],
          env,
          value,
        );
        if (stored === undefined)
          throw new Error('secret-tool could not store the key (is a keyring unlocked in this session?)');
      },
      delete: (account) => run(secretTool, ['clear', ...attributes(account)], env) !== undefined,
    };
  }
  const security = process.platform === 'darwin' ? onPath('security', env) : undefined;
  if (security) {
    return {
      tool: 'security',
      get: (account) =>
        run(security, ['find-generic-password', '-s', SERVICE, '-a', account, '-w'], env)?.replace(
          /\n$/,
          '',
        ) || undefined,
      set(account, value) {
        const command = `add-generic-password -U -s ${SERVICE} -a ${quoted(account)} -w ${quoted(value)}\n`;
        if (run(security, ['-i'], env, command) === undefined)
          throw new Error('security could not store the key in the login keychain');
      },
      delete: (account) =>
        run(security, ['delete-generic-password', '-s', SERVICE, '-a', account], env) !== undefined,
    };
  }
  return undefined;
}
