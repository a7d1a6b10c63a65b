import type { Migration } from './migration.js';

/**
 * Schema v11: embeddings for semantic memory search. Plain tables only, so every Wren can open the file
 * whether or not the sqlite-vec extension loads; nothing here (no trigger) may touch the vec0 index that
 * semantic search builds next to them at run time.
 * - `embeddings`: content hash (SHA-256 of the embedded text) → vector, per embedding model. `vector` is
 *   `dimensions` little-endian float32 values; `id` is the row of the vector in the vec0 index. One text is
 *   embedded once per model, whoever said it and however often.
 * - `message_embeddings`: which searchable message (`messages.rowid`, as in `message_search`) has which
 *   hash; rows go with their message.
 */
const v11 = `
CREATE TABLE embeddings (
  id INTEGER PRIMARY KEY,
  model TEXT NOT NULL,
  hash TEXT NOT NULL,
  dimensions INTEGER NOT NULL CHECK (dimensions > 0),
  vector BLOB NOT NULL CHECK (length(vector) = dimensions * 4),
  created_at INTEGER NOT NULL,
  UNIQUE (model, hash)
) STRICT;

CREATE TABLE message_embeddings (
  message_rowid INTEGER PRIMARY KEY,
  hash TEXT NOT NULL
) STRICT;
CREATE INDEX message_embeddings_by_hash ON message_embeddings (hash);
CREATE TRIGGER message_embeddings_delete AFTER DELETE ON messages BEGIN
  DELETE FROM message_embeddings WHERE message_rowid = old.rowid;
END;
`;

export const MIGRATION_V11: Migration = {
  version: 11,
  description: 'embeddings for semantic memory search',
  up: (db) => db.exec(v11),
};
