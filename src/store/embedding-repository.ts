import type { Database } from 'better-sqlite3';

/** A searchable message and its text (schema v2 `message_search`). */
export interface SearchableMessage {
  rowid: number;
  text: string;
}

/** A past message found by meaning. */
export interface VectorMessageHit {
  rowid: number;
  sessionId: string;
  seq: number;
  role: 'user' | 'assistant';
  createdAt: number;
  text: string;
  /** Cosine distance to the query (0 = same direction, 2 = opposite). */
  distance: number;
}

/** How far semantic indexing has come for one model. */
export interface EmbeddingCounts {
  /** Distinct texts with a vector of this model. */
  embedded: number;
  /** Searchable messages still without one (not yet hashed, or hashed and not yet embedded). */
  waiting: number;
}

/** The vec0 index: rowid = `embeddings.id`, only the vectors of the model it was built for. */
const INDEX = 'memory_vectors';
const INDEX_KEY = 'memory.vector_index';
/** sqlite-vec's largest `k` for one KNN query. */
const MAX_K = 4096;

const toBlob = (vector: readonly number[]) => Buffer.from(new Float32Array(vector).buffer);

/**
 * The stored embeddings of memory search (schema v11) and their sqlite-vec index.
 *
 * - Linking (`unlinkedMessages`, `link`, `counts`) needs plain SQLite only.
 * - Everything that touches vectors (`save`, `nearestMessages`, `distances`, `useModel`, `collect`) needs
 *   the sqlite-vec extension loaded into the connection (`loadVectorExtension`); without it they throw.
 *
 * The vec0 table `memory_vectors` is derived data: built at run time for one model and dimension (recorded
 * in `settings`), rebuilt from `embeddings` whenever that changes, so a Wren without the extension never has
 * to touch it. Writes are synchronous and each is one transaction.
 */
export class EmbeddingRepository {
  constructor(
    private readonly db: Database,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Searchable messages not yet given a hash, oldest first. Messages only ever get larger rowids. */
  unlinkedMessages(limit: number): SearchableMessage[] {
    return this.db
      .prepare(
        `SELECT rowid, text FROM message_search
         WHERE rowid > (SELECT coalesce(max(message_rowid), 0) FROM message_embeddings)
         ORDER BY rowid LIMIT ?`,
      )
      .all(limit) as SearchableMessage[];
  }

  /** Records the hash of each message's embedded text. Idempotent. */
  link(rows: ReadonlyArray<{ rowid: number; hash: string }>): void {
    const insert = this.db.prepare(
      'INSERT OR REPLACE INTO message_embeddings (message_rowid, hash) VALUES (?, ?)',
    );
    this.db.transaction(() => {
      for (const row of rows) insert.run(row.rowid, row.hash);
    })();
  }

  /** Linked messages whose hash has no vector of `model` yet: one (hash, text) per hash, oldest first. */
  messagesWithoutVector(model: string, limit: number): Array<{ hash: string; text: string }> {
    return this.db
      .prepare(
        `SELECT me.hash AS hash, ms.text AS text
         FROM message_embeddings AS me JOIN message_search AS ms ON ms.rowid = me.message_rowid
         WHERE NOT EXISTS (SELECT 1 FROM embeddings AS e WHERE e.model = @model AND e.hash = me.hash)
         GROUP BY me.hash ORDER BY min(me.message_rowid) LIMIT @limit`,
      )
      .all({ model, limit }) as Array<{ hash: string; text: string }>;
  }

  /** Those of `hashes` that have no vector of `model`. */
  missing(model: string, hashes: readonly string[]): string[] {
    if (hashes.length === 0) return [];
    const have = new Set(
      this.db
        .prepare(`SELECT hash FROM embeddings WHERE model = ? AND hash IN (SELECT value FROM json_each(?))`)
        .pluck()
        .all(model, JSON.stringify(hashes)) as string[],
    );
    return hashes.filter((hash) => !have.has(hash));
  }

  /**
   * Makes `model` the one the index serves: vectors of any other model are deleted (a new model re-embeds
   * everything) and the index is rebuilt from what `model` already has. Cheap when nothing changed.
   */
  useModel(model: string): void {
    const current = this.#indexInfo();
    if (current?.model === model && this.#indexExists()) return;
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM embeddings WHERE model <> ?').run(model);
      const dimensions = this.db
        .prepare('SELECT dimensions FROM embeddings WHERE model = ? LIMIT 1')
        .pluck()
        .get(model) as number | undefined;
      if (dimensions === undefined) this.#dropIndex();
      else this.#buildIndex(model, dimensions);
    })();
  }

  /**
   * Stores vectors of `model` by hash (a hash it already has is kept) and adds them to the index. Vectors
   * of another length than the index's mean the model changed under the same name: its old vectors are
   * dropped and the index is rebuilt for the new length.
   * @returns how many were new.
   */
  save(model: string, items: ReadonlyArray<{ hash: string; vector: readonly number[] }>): number {
    if (items.length === 0) return 0;
    const dimensions = items[0]!.vector.length;
    const insert = this.db.prepare(
      `INSERT INTO embeddings (model, hash, dimensions, vector, created_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (model, hash) DO NOTHING`,
    );
    const index = () => this.db.prepare(`INSERT INTO ${INDEX} (rowid, embedding) VALUES (?, ?)`);
    return this.db.transaction(() => {
      const info = this.#indexInfo();
      if (info?.model !== model || info.dimensions !== dimensions || !this.#indexExists()) {
        this.db.prepare('DELETE FROM embeddings WHERE model <> ? OR dimensions <> ?').run(model, dimensions);
        this.#buildIndex(model, dimensions);
      }
      const add = index();
      let added = 0;
      for (const item of items) {
        if (item.vector.length !== dimensions)
          throw new RangeError('vectors of one save must have one length');
        const blob = toBlob(item.vector);
        const result = insert.run(model, item.hash, dimensions, blob, this.clock());
        if (result.changes === 0) continue;
        add.run(BigInt(result.lastInsertRowid), blob);
        added++;
      }
      return added;
    })();
  }

  /**
   * Past messages nearest to `vector` (cosine), best first, at most `limit`, no farther than `maxDistance`,
   * created in [since, until). Messages with the same text share a vector and a rank (newest first).
   * Empty when the index does not serve `model` (nothing embedded yet).
   */
  nearestMessages(query: {
    model: string;
    vector: readonly number[];
    limit: number;
    maxDistance: number;
    since?: number;
    until?: number;
  }): VectorMessageHit[] {
    const info = this.#indexInfo();
    if (info?.model !== query.model || info.dimensions !== query.vector.length || !this.#indexExists())
      return [];
    // The KNN runs before the date filter: ask for the most a date range may need.
    const k =
      query.since !== undefined || query.until !== undefined ? MAX_K : Math.min(MAX_K, query.limit * 4);
    const rows = this.db
      .prepare(
        `WITH knn AS (SELECT rowid AS id, distance FROM ${INDEX} WHERE embedding MATCH @vector AND k = @k)
         SELECT ms.rowid AS rowid, ms.session_id AS sessionId, ms.seq AS seq, ms.role AS role,
           ms.created_at AS createdAt, ms.text AS text, knn.distance AS distance
         FROM knn JOIN embeddings AS e ON e.id = knn.id
           JOIN message_embeddings AS me ON me.hash = e.hash
           JOIN message_search AS ms ON ms.rowid = me.message_rowid
         WHERE knn.distance <= @maxDistance AND ms.created_at >= @since AND ms.created_at < @until
         ORDER BY knn.distance, ms.created_at DESC
         LIMIT @limit`,
      )
      .all({
        vector: toBlob(query.vector),
        k,
        maxDistance: query.maxDistance,
        since: query.since ?? Number.MIN_SAFE_INTEGER,
        until: query.until ?? Number.MAX_SAFE_INTEGER,
        limit: query.limit,
      }) as VectorMessageHit[];
    return rows.map((row) => ({
      ...row,
      rowid: Number(row.rowid),
      seq: Number(row.seq),
      createdAt: Number(row.createdAt),
    }));
  }

  /** Cosine distance from `vector` to each of `hashes` that has a vector of `model` (of its length). */
  distances(query: {
    model: string;
    vector: readonly number[];
    hashes: readonly string[];
  }): Map<string, number> {
    const { model, vector, hashes } = query;
    if (hashes.length === 0) return new Map();
    const rows = this.db
      .prepare(
        `SELECT hash, vec_distance_cosine(vector, @vector) AS distance FROM embeddings
         WHERE model = @model AND dimensions = @dimensions AND hash IN (SELECT value FROM json_each(@hashes))`,
      )
      .all({
        vector: toBlob(vector),
        model,
        dimensions: vector.length,
        hashes: JSON.stringify(hashes),
      }) as Array<{ hash: string; distance: number }>;
    return new Map(rows.map((row) => [row.hash, row.distance]));
  }

  /**
   * Deletes vectors no message and none of `keep` (the current HISTORY.md entries) has any more, e.g.
   * after a session was deleted or HISTORY.md edited. @returns how many went.
   */
  collect(model: string, keep: readonly string[]): number {
    return this.db.transaction(() => {
      const ids = this.db
        .prepare(
          `SELECT id FROM embeddings AS e WHERE model = ?
             AND NOT EXISTS (SELECT 1 FROM message_embeddings AS me WHERE me.hash = e.hash)
             AND hash NOT IN (SELECT value FROM json_each(?))`,
        )
        .pluck()
        .all(model, JSON.stringify(keep)) as number[];
      const removeVector = this.#indexExists()
        ? this.db.prepare(`DELETE FROM ${INDEX} WHERE rowid = ?`)
        : undefined;
      const remove = this.db.prepare('DELETE FROM embeddings WHERE id = ?');
      for (const id of ids) {
        removeVector?.run(BigInt(id));
        remove.run(id);
      }
      return ids.length;
    })();
  }

  /** What is embedded for `model` and how many messages wait. Plain SQL: works without the extension. */
  counts(model: string): EmbeddingCounts {
    const embedded = this.db
      .prepare('SELECT count(*) FROM embeddings WHERE model = ?')
      .pluck()
      .get(model) as number;
    const unlinked = this.db
      .prepare(
        `SELECT count(*) FROM message_search
         WHERE rowid > (SELECT coalesce(max(message_rowid), 0) FROM message_embeddings)`,
      )
      .pluck()
      .get() as number;
    const unembedded = this.db
      .prepare(
        `SELECT count(*) FROM message_embeddings AS me
         WHERE NOT EXISTS (SELECT 1 FROM embeddings AS e WHERE e.model = ? AND e.hash = me.hash)`,
      )
      .pluck()
      .get(model) as number;
    return { embedded, waiting: unlinked + unembedded };
  }

  #indexInfo(): { model: string; dimensions: number } | undefined {
    const value = this.db.prepare('SELECT value FROM settings WHERE key = ?').pluck().get(INDEX_KEY) as
      | string
      | undefined;
    return value ? (JSON.parse(value) as { model: string; dimensions: number }) : undefined;
  }

  #indexExists(): boolean {
    return (
      this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(INDEX) !==
      undefined
    );
  }

  #dropIndex(): void {
    this.db.exec(`DROP TABLE IF EXISTS ${INDEX}`);
    this.db.prepare('DELETE FROM settings WHERE key = ?').run(INDEX_KEY);
  }

  /** (Re)creates the index for `model`'s vectors of `dimensions` and fills it from `embeddings`. */
  #buildIndex(model: string, dimensions: number): void {
    if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > 8192)
      throw new RangeError(`vectors of ${dimensions} dimensions cannot be indexed (1 to 8192)`);
    this.db.exec(`DROP TABLE IF EXISTS ${INDEX}`);
    this.db.exec(
      `CREATE VIRTUAL TABLE ${INDEX} USING vec0(embedding float[${dimensions}] distance_metric=cosine)`,
    );
    this.db
      .prepare(
        `INSERT INTO ${INDEX} (rowid, embedding) SELECT id, vector FROM embeddings WHERE model = ? AND dimensions = ?`,
      )
      .run(model, dimensions);
    this.db
      .prepare(
        'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
      )
      .run(INDEX_KEY, JSON.stringify({ model, dimensions }));
  }
}
