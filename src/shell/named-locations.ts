import { posix } from 'node:path';
import { instructionTarget } from './check-file-effects.js';
import { knownAccess } from './program-kinds.js';
import { resolvePaths } from './resolve-paths.js';
import type { RuleHost } from './rule-host.js';
import { type AnalysisContext, PROTECTED_IN_HOME, showPath, type WordValue, within } from './shell-paths.js';

/**
 * Protected locations a program the analysis does not know may write to when it names them: the home
 * folder's keys, credentials and start-up files, /etc and the cron spool, Wren's home. (The system's
 * program folders are root's; reading them is routine.)
 */
function netLocations(ctx: AnalysisContext): Array<{ folder: string; shown: string }> {
  return [
    ...PROTECTED_IN_HOME.map((name) => ({ folder: posix.join(ctx.home, name), shown: `~/${name}` })),
    ...['/etc', '/var/spool/cron', ...ctx.protectedPaths].map((folder) => ({
      folder,
      shown: showPath(folder, ctx),
    })),
  ];
}

/**
 * A safety net for programs whose file access is not modelled (`mytool --out=~/.bashrc`, `python3 x.py
 * SOUL.md`): an argument, or an option's value after `=`, naming a protected location is a signature, and
 * one naming Wren's instruction files may change them. Programs that only read or show names, and those
 * whose writes are known, are exempt; `targets` are arguments already checked as writes.
 */
export function checkNamedLocations(
  host: RuleHost,
  name: string,
  args: WordValue[],
  targets: WordValue[],
): void {
  if (knownAccess(name) || (name === 'ssh-keygen' && args.some((arg) => /^-[a-zA-Z]*[lyFBL]/.test(arg.text))))
    return;
  const { ctx } = host;
  const places = netLocations(ctx);
  for (const arg of args) {
    if (arg.dynamic || targets.includes(arg)) continue;
    const value = /^-[\w-]*=(.+)$/.exec(arg.text)?.[1];
    for (const text of value === undefined ? [arg.text] : [arg.text, value]) {
      if (text.startsWith('-')) continue;
      for (const ref of resolvePaths({ ...arg, text }, host.cwds, ctx).refs) {
        if (within(ref.path, ctx.workspace)) {
          const instruction = name === 'git' ? undefined : instructionTarget(ref, ctx);
          if (instruction) host.flag(`may change Wren's own instructions (${instruction})`);
          continue;
        }
        const place = places.find(({ folder }) => within(ref.path, folder));
        if (place) host.flag(`names a protected location (${showPath(ref.path, ctx)})`);
      }
    }
  }
}
