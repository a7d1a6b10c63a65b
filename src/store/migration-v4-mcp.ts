import type { Migration } from './migration.js';

/**
 * Schema v4: pinned MCP tool definitions. One row per (server, definitions hash): `approved_at` is set once the
 * owner approved that version (the first version a server shows is approved on first sight, since adding the
 * server was the approval); a newer unapproved row holds the server's tools until `wren mcp approve`.
 * `definitions` keeps the hashed tool list (names, descriptions, schemas) so the change can be shown.
 */
const v4 = `
CREATE TABLE mcp_tool_pins (
  server TEXT NOT NULL,
  hash TEXT NOT NULL,
  definitions TEXT NOT NULL CHECK (json_valid(definitions)),
  first_seen_at INTEGER NOT NULL,
  approved_at INTEGER,
  PRIMARY KEY (server, hash)
) STRICT;
CREATE INDEX mcp_tool_pins_approved ON mcp_tool_pins (server, approved_at);
`;

export const MIGRATION_V4: Migration = {
  version: 4,
  description: 'MCP tool-definition pins and their approvals',
  up: (db) => db.exec(v4),
};
