import { readFileSync } from 'node:fs';

let cached: string | undefined;

/** This Wren's version, from its package.json (read once; the same file whether run from a clone or installed). */
export function wrenVersion(): string {
  cached ??= (
    JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
  ).version;
  return cached;
}
