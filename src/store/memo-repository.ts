import type { Database } from 'better-sqlite3';
import { toFtsQuery } from './fts-query.js';

export interface Memo {
  id: number;
  text: string;
  createdAt: number;
  updatedAt: number;
}

interface MemoRow {
  id: number;
  text: string;
  created_at: number;
  updated_at: number;
}

const toMemo = (row: MemoRow): Memo => ({
  id: row.id,
  text: row.text,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** Notes the owner keeps through Wren (`memo` tool, `wren memo`), schema v2 `memos` + FTS5 `memo_search`. */
export class MemoRepository {
  constructor(
    private readonly db: Database,
    private readonly now: () => number = Date.now,
  ) {}

  /** Saves a memo; `text` is trimmed. @throws Error when it is empty. */
  add(text: string): Memo {
    const body = text.trim();
    if (!body) throw new Error('A memo needs some text.');
    const at = this.now();
    const info = this.db
      .prepare('INSERT INTO memos (text, created_at, updated_at) VALUES (?, ?, ?)')
      .run(body, at, at);
    return { id: Number(info.lastInsertRowid), text: body, createdAt: at, updatedAt: at };
  }

  get(id: number): Memo | undefined {
    const row = this.db.prepare('SELECT * FROM memos WHERE id = ?').get(id) as MemoRow | undefined;
    return row ? toMemo(row) : undefined;
  }

  /** Newest first. */
  list(limit = 20, offset = 0): Memo[] {
    return (
      this.db
        .prepare('SELECT * FROM memos ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?')
        .all(Math.max(1, limit), Math.max(0, offset)) as MemoRow[]
    ).map(toMemo);
  }

  count(): number {
    return (this.db.prepare('SELECT count(*) AS n FROM memos').get() as { n: number }).n;
  }

  /** Best match first; [] for a query without searchable words. */
  search(text: string, limit = 10): Memo[] {
    const match = toFtsQuery(text);
    if (!match) return [];
    return (
      this.db
        .prepare(
          `SELECT memos.* FROM memo_search JOIN memos ON memos.id = memo_search.rowid
           WHERE memo_search MATCH ? ORDER BY bm25(memo_search), memos.created_at DESC LIMIT ?`,
        )
        .all(match, Math.max(1, limit)) as MemoRow[]
    ).map(toMemo);
  }

  /**
   * Replaces a memo's text (trimmed; the search index follows by trigger).
   * @returns the memo, or undefined when there is none with `id`. @throws Error when the text is empty.
   */
  update(id: number, text: string): Memo | undefined {
    const body = text.trim();
    if (!body) throw new Error('A memo needs some text.');
    this.db.prepare('UPDATE memos SET text = ?, updated_at = ? WHERE id = ?').run(body, this.now(), id);
    return this.get(id);
  }

  /** @returns whether a memo was deleted. */
  delete(id: number): boolean {
    return this.db.prepare('DELETE FROM memos WHERE id = ?').run(id).changes > 0;
  }
}
