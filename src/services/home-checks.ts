import { join } from 'node:path';
import { checkDatabaseFile, probeVectorSupport, type VectorSupport } from '../store/open-database.js';

export type { VectorSupport };

/**
 * Checks the home's database file (`wren.db`) the way `wren doctor` reports it: it opens and passes SQLite's
 * quick check, without migrating it or taking it over from a running Wren.
 * @throws StoreError saying what is wrong with the file and what to do.
 */
export function checkHomeDatabase(home: string): string {
  const path = join(home, 'wren.db');
  checkDatabaseFile(path);
  return path;
}

/** Whether vector search (sqlite-vec) loads on this machine; never throws, the result says why not. */
export function checkVectorSupport(): VectorSupport {
  return probeVectorSupport();
}
