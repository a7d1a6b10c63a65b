import { StoreError } from '../store/store-error.js';
import { ConfigError } from '../util/config-error.js';

/** Exit codes a script can rely on. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/**
 * Prints a failure as one line for the user (no stack for the errors we expect) and returns the exit code:
 * 2 for configuration and storage problems the user must fix, 1 otherwise.
 */
export function reportFailure(error: unknown): number {
  if (error instanceof ConfigError || error instanceof StoreError) {
    process.stderr.write(`wren: ${error.message}\n`);
    return EXIT.usage;
  }
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`wren: ${message}\n`);
  if (process.env['WREN_DEBUG'] && error instanceof Error && error.stack)
    process.stderr.write(`${error.stack}\n`);
  return EXIT.failed;
}
