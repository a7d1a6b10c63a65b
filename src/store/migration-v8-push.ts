import type { Migration } from './migration.js';

/**
 * Schema v8: web push subscriptions (the browsers the owner allowed to show notifications). `endpoint` is
 * the push service URL the browser gave, UNIQUE so a browser subscribing again replaces its keys; `keys`
 * holds `{p256dh, auth}` as JSON (needed to encrypt each message). `last_ok_at` is the last accepted send,
 * `failures` the failed sends since then. Times are UTC Unix milliseconds. At most 20 rows are kept (the
 * repository drops the oldest), so no index beyond the UNIQUE one is needed.
 */
const v8 = `
CREATE TABLE push_subscriptions (
  id INTEGER PRIMARY KEY,
  endpoint TEXT NOT NULL UNIQUE CHECK (length(endpoint) > 0),
  keys TEXT NOT NULL CHECK (json_valid(keys)),
  created_at INTEGER NOT NULL,
  last_ok_at INTEGER,
  failures INTEGER NOT NULL DEFAULT 0 CHECK (failures >= 0)
) STRICT;
`;

export const MIGRATION_V8: Migration = {
  version: 8,
  description: 'web push subscriptions',
  up: (db) => db.exec(v8),
};
