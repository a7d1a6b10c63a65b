import { type Cwd, type PathRef, type ResolveOptions, resolvePaths } from './resolve-paths.js';
import type { RuleHost } from './rule-host.js';
import { RUNTIME, type WordValue } from './shell-paths.js';

/** Devices that are safe to write to (and to link to). */
export const SAFE_DEVICES = /^\/dev\/(null|zero|stdout|stderr|stdin|tty|fd\/\d+|full|random|urandom)$/;
export const UNKNOWN_CWD = 'a relative path after `cd` to a folder only known at run time';

/** Text with run-time parts shown as `$…`. */
export function shown(text: string): string {
  return text.replaceAll(RUNTIME, '$…');
}

/** The paths of a written, deleted or linked argument; what is only known at run time is unanalysable. */
export function refsOf(
  host: RuleHost,
  value: WordValue,
  cwds: readonly Cwd[] = host.cwds,
  options: ResolveOptions = {},
): PathRef[] {
  const { refs, unknownCwd, unknown } = resolvePaths(value, cwds, host.ctx, options);
  if (unknownCwd) host.cannot(UNKNOWN_CWD);
  if (unknown || value.dynamic) host.cannot(`a path only known at run time (${shown(value.text)})`);
  return refs;
}
