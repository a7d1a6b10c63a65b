import type { Migration } from './migration.js';

/**
 * Schema v14: the vault. One row per secret: its `name` (what `{{vault:NAME}}` names), the value sealed with
 * AES-256-GCM under the home's WREN_SECRET_KEY (`sealed`, bound to its name), and where it may go
 * (`bindings`, JSON: `{"hosts": [...], "programs": [...], "mcp": [...]}`; any other use asks the owner).
 * `used_at`: the last time a call used it. Times are Unix ms.
 */
const v14 = `
CREATE TABLE vault_secrets (
  name TEXT PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 64),
  sealed TEXT NOT NULL,
  bindings TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(bindings)),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  used_at INTEGER
) STRICT;
`;

export const MIGRATION_V14: Migration = {
  version: 14,
  description: 'vault secrets, sealed, with where each may go',
  up: (db) => db.exec(v14),
};
