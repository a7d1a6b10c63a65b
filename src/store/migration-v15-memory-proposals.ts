import type { Migration } from './migration.js';

/**
 * Schema v15: memory proposals. Dream (the nightly memory pass) may only propose moving a MEMORY.md line to
 * USER.md, AGENTS.md (the standing instructions) or SOUL.md; the owner accepts or dismisses each. `text` is
 * the line as MEMORY.md holds it (a proposal never carries words of its own); `key` is its normalised form,
 * unique per target file, so a dismissed proposal is never made again. `dream_key`: the pass that made it.
 * Times are Unix ms.
 */
const v15 = `
CREATE TABLE memory_proposals (
  id INTEGER PRIMARY KEY,
  file TEXT NOT NULL CHECK (file IN ('USER.md', 'AGENTS.md', 'SOUL.md')),
  text TEXT NOT NULL CHECK (length(text) BETWEEN 1 AND 2000),
  key TEXT NOT NULL,
  reason TEXT NOT NULL DEFAULT '',
  dream_key TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'accepted', 'dismissed')),
  created_at INTEGER NOT NULL,
  decided_at INTEGER,
  UNIQUE (file, key)
) STRICT;
CREATE INDEX memory_proposals_pending ON memory_proposals (status, id);
`;

export const MIGRATION_V15: Migration = {
  version: 15,
  description:
    'memory proposals: Dream moves a fact to USER.md, AGENTS.md or SOUL.md only when the owner accepts',
  up: (db) => db.exec(v15),
};
