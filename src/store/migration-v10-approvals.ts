import type { Migration } from './migration.js';

/**
 * Schema v10: approval requests still waiting for the owner. A row lives from the moment a call is held
 * until it is answered, times out or its turn is stopped; a shutdown or a crash leaves it, so the next start
 * asks again instead of turning the question into a silent denial. `request` is the request as shown
 * (arguments already redacted). Times are UTC Unix milliseconds.
 */
const v10 = `
CREATE TABLE pending_approvals (
  id TEXT PRIMARY KEY,
  request TEXT NOT NULL CHECK (json_valid(request)),
  created_at INTEGER NOT NULL
) STRICT;
`;

export const MIGRATION_V10: Migration = {
  version: 10,
  description: 'pending approvals',
  up: (db) => db.exec(v10),
};
