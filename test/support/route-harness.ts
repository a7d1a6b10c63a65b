import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Hono } from 'hono';
import { afterEach } from 'vitest';
import { openDatabase } from '../../src/store/open-database.js';

/** What a JSON route answered: its status and its parsed body. */
export interface JsonAnswer<Body> {
  status: number;
  body: Body;
}

/**
 * The setup the route groups' tests share. Call it once at the top of a test file: it registers an
 * `afterEach` that removes what the test made, newest first (a database is closed before its folder goes).
 */
export function routeHarness() {
  const cleanups: Array<() => void> = [];
  afterEach(() => {
    for (const cleanup of cleanups.splice(0).reverse()) cleanup();
  });
  /** A fresh folder under the system's temp folder, removed after the test. */
  const folder = (prefix: string): string => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    return dir;
  };
  return {
    folder,
    /** A fresh `wren.db` (migrated) in a fresh folder; closed and removed after the test. */
    database(prefix: string) {
      const dir = folder(prefix);
      const db = openDatabase(join(dir, 'wren.db'));
      cleanups.push(() => db.close());
      return { dir, db };
    },
  };
}

/**
 * `send(method, path, body?)` against a Hono app through `app.request` (no server): a string body goes as is
 * (to test malformed JSON), anything else as JSON; the answer must be JSON.
 */
export function jsonSender<Body>(app: Hono) {
  return async (method: string, path: string, body?: unknown): Promise<JsonAnswer<Body>> => {
    const response = await app.request(path, {
      method,
      ...(body === undefined
        ? {}
        : {
            body: typeof body === 'string' ? body : JSON.stringify(body),
            headers: { 'content-type': 'application/json' },
          }),
    });
    return { status: response.status, body: (await response.json()) as Body };
  };
}
