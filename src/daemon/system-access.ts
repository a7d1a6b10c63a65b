import { spawnSync } from 'node:child_process';
import { homedir, userInfo } from 'node:os';
import type { CommandResult, SystemAccess } from './service-manager.js';

/** The real machine: this process's platform, user and home, and programs run with spawnSync (no shell). */
export function nodeSystemAccess(): SystemAccess {
  return {
    platform: process.platform,
    homeDir: homedir(),
    uid: process.getuid?.() ?? -1,
    user: process.env['USER'] ?? userInfo().username,
    run(command: string, args: string[]): CommandResult {
      const result = spawnSync(command, args, { encoding: 'utf8', timeout: 30_000 });
      if ((result.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') {
        return { code: 127, stdout: '', stderr: `${command} is not installed`, missing: true };
      }
      return { code: result.status ?? 1, stdout: result.stdout ?? '', stderr: result.stderr ?? '' };
    },
  };
}

/** The home folder of `user` from a passwd file, or undefined when there is no such user. */
export function userHomeOf(user: string, passwd: string): string | undefined {
  for (const line of passwd.split('\n')) {
    const fields = line.split(':');
    if (fields[0] === user && fields.length >= 7) return fields[5] || undefined;
  }
  return undefined;
}
