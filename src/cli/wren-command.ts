import { existsSync, realpathSync } from 'node:fs';
import { delimiter, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where this CLI lives and how the owner's shell finds things, injectable for tests. */
export interface WrenCommandContext {
  /** This CLI's entry point (`dist/cli/main.js`). */
  main: string;
  path: string | undefined;
  cwd: string;
}

function realpath(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/**
 * How the owner runs *this* CLI from their shell, for the commands Wren's hints suggest: `wren` when a `wren`
 * on PATH is this very CLI (npm link, a global install, the clone's shim symlinked there); in a clone, its
 * shim — `./wren` from the clone's folder, its absolute path from anywhere else; otherwise
 * `node <main.js>`. Never suggests a command that would run another Wren, or rebuild one (as `npx wren` does).
 */
export function wrenCommand(context: WrenCommandContext = defaultContext()): string {
  const main = realpath(context.main) ?? resolve(context.main);
  const root = resolve(main, '..', '..', '..');
  const shim = join(root, 'wren');
  const hasShim = existsSync(shim) && existsSync(join(root, 'package.json'));
  for (const dir of (context.path ?? '').split(delimiter)) {
    if (!dir) continue;
    const found = realpath(join(dir, 'wren'));
    if (found && (found === main || (hasShim && found === realpath(shim)))) return 'wren';
  }
  if (!hasShim) return `node ${main}`;
  return (realpath(context.cwd) ?? resolve(context.cwd)) === root ? `.${sep}wren` : shim;
}

let cached: string | undefined;

function defaultContext(): WrenCommandContext {
  return {
    main: fileURLToPath(new URL('./main.js', import.meta.url)),
    path: process.env['PATH'],
    cwd: process.cwd(),
  };
}

/** `wrenCommand()` for this process, worked out once. */
export function wren(): string {
  cached ??= wrenCommand();
  return cached;
}
