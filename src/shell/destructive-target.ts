import { posix } from 'node:path';
import { broadGlobBase, isPattern, overlap } from './path-glob.js';
import type { PathRef } from './resolve-paths.js';
import { RUNTIME, type ShellContext, SYSTEM_FOLDERS, showPath, type WordValue } from './shell-paths.js';

/** The signature for a recursive delete (or change) of a path only known at run time. */
export function runTimeTarget(value: WordValue, verb: string): string {
  return `${verb} of a path only known at run time (${value.text.replaceAll(RUNTIME, '$…')})`;
}

/** The special folders a destructive command must not hit, each with its signature. */
function specialFolders(verb: string, ctx: ShellContext): Array<[string, string]> {
  const folders: Array<[string, string]> = [
    ['/', `${verb} of /`],
    [ctx.home, `${verb} of the home folder (~)`],
    ...[...SYSTEM_FOLDERS].map((folder): [string, string] => [folder, `${verb} of system folder ${folder}`]),
    [ctx.workspace, `${verb} of the workspace root`],
  ];
  for (let folder = posix.dirname(ctx.workspace); folder !== '/'; folder = posix.dirname(folder)) {
    folders.push([folder, `${verb} of ${showPath(folder, ctx)}, which contains the workspace`]);
  }
  return folders;
}

/**
 * What deleting, moving or recursively changing `ref` (spelled `text`) would hit, as a signature, or
 * undefined for an ordinary path: `/`, the home folder, another home folder, a system folder, the workspace
 * root or a folder holding it. A pattern counts by the folder whose whole contents it names (`~/*` is `~`)
 * or by any special folder it can name (`/e*` can name `/etc`).
 */
export function destructiveTarget(
  ref: PathRef,
  text: string,
  verb: string,
  ctx: ShellContext,
): string | undefined {
  const path = ref.pattern ? broadGlobBase(ref.path) : ref.path;
  const folders = specialFolders(verb, ctx);
  if (!isPattern(path)) {
    if (/^~[^/]+$/.test(text.replace(/\/+$/, '')) && path !== ctx.home)
      return `${verb} of a home folder (${text})`;
    return folders.find(([folder]) => folder === path)?.[1];
  }
  return folders.find(([folder]) => overlap(path, folder)?.self)?.[1];
}
