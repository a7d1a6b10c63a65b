import { join } from 'node:path';
import {
  checkDatabaseFile,
  type DatabaseSchema,
  probeVectorSupport,
  type VectorSupport,
} from '../store/open-database.js';

export type { DatabaseSchema, VectorSupport };

/**
 * Checks the home's database file (`wren.db`) the way `wren doctor` reports it: it opens and passes SQLite's
 * quick check, without migrating it or taking it over from a running Wren.
 * @returns its path, its schema version (0: new, empty) and the newest this Wren knows.
 * @throws StoreError saying what is wrong with the file and what to do (a newer schema included).
 */
export function checkHomeDatabase(home: string): { path: string } & DatabaseSchema {
  const path = join(home, 'wren.db');
  return { path, ...checkDatabaseFile(path) };
}

/** Whether vector search (sqlite-vec) loads on this machine; never throws, the result says why not. */
export function checkVectorSupport(): VectorSupport {
  return probeVectorSupport();
}
