import { ConfigError } from '../util/config-error.js';
import { StoreError } from '../util/store-error.js';

/** Exit codes a script can rely on. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/** A problem the owner must fix before the command can work (exit 2), such as a port already in use. */
export class MustFixError extends Error {}

/**
 * Prints a failure as one line for the user (no stack for the errors we expect) and returns the exit code:
 * 2 for configuration, storage and other problems the user must fix first, 1 otherwise.
 */
export function reportFailure(error: unknown): number {
  if (error instanceof ConfigError || error instanceof StoreError || error instanceof MustFixError) {
    process.stderr.write(`wren: ${error.message}\n`);
    return EXIT.usage;
  }
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`wren: ${message}\n`);
  if (process.env['WREN_DEBUG'] && error instanceof Error && error.stack)
    process.stderr.write(`${error.stack}\n`);
  return EXIT.failed;
}
