import { createHash } from 'node:crypto';
import type { Database } from 'better-sqlite3';

/** One version of an instruction file (schema v13 `file_versions`). */
export interface FileVersion {
  id: number;
  /** Relative to the workspace: `MEMORY.md`, `skills/<name>/SKILL.md`. */
  path: string;
  content: string;
  /** Hex SHA-256 of `content`: the version's ETag. */
  sha256: string;
  /** Who made it: consolidation, tidy, dream, tool:<name>, web, cli, disk, revert. */
  author: string;
  note: string;
  createdAt: number;
}

/** A version without its content, for logs. */
export type FileVersionEntry = Omit<FileVersion, 'content'> & { bytes: number };

interface Row {
  id: number;
  path: string;
  content: string;
  sha256: string;
  author: string;
  note: string;
  created_at: number;
}

const toVersion = (row: Row): FileVersion => ({
  id: row.id,
  path: row.path,
  content: row.content,
  sha256: row.sha256,
  author: row.author,
  note: row.note,
  createdAt: row.created_at,
});

/** Hex SHA-256 of a file's text (what versions and `If-Match` compare). */
export function contentHash(content: string): string {
  return createHash('sha256').update(content, 'utf8').digest('hex');
}

/** The history of the instruction files (schema v13). */
export class FileVersionRepository {
  constructor(
    private readonly db: Database,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Records `content` as the newest version of `path`, unless it equals the newest one already (then that
   * one is returned and nothing is written): recording is idempotent.
   */
  record(version: { path: string; content: string; author: string; note?: string }): FileVersion {
    const sha256 = contentHash(version.content);
    const latest = this.latest(version.path);
    if (latest?.sha256 === sha256) return latest;
    const createdAt = this.now();
    const note = (version.note ?? '').slice(0, 500);
    const author = version.author.slice(0, 80);
    const { lastInsertRowid } = this.db
      .prepare(
        'INSERT INTO file_versions (path, content, sha256, author, note, created_at) VALUES (?, ?, ?, ?, ?, ?)',
      )
      .run(version.path, version.content, sha256, author, note, createdAt);
    return {
      id: Number(lastInsertRowid),
      path: version.path,
      content: version.content,
      sha256,
      author,
      note,
      createdAt,
    };
  }

  latest(path: string): FileVersion | undefined {
    const row = this.db
      .prepare('SELECT * FROM file_versions WHERE path = ? ORDER BY id DESC LIMIT 1')
      .get(path) as Row | undefined;
    return row ? toVersion(row) : undefined;
  }

  get(id: number): FileVersion | undefined {
    const row = this.db.prepare('SELECT * FROM file_versions WHERE id = ?').get(id) as Row | undefined;
    return row ? toVersion(row) : undefined;
  }

  /** The version of `path` just before `id` (what a diff of `id` compares against). */
  previous(path: string, id: number): FileVersion | undefined {
    const row = this.db
      .prepare('SELECT * FROM file_versions WHERE path = ? AND id < ? ORDER BY id DESC LIMIT 1')
      .get(path, id) as Row | undefined;
    return row ? toVersion(row) : undefined;
  }

  /** Newest first, of one file or of all; without contents. */
  list(query: { path?: string; limit?: number } = {}): FileVersionEntry[] {
    const limit = Math.min(Math.max(query.limit ?? 50, 1), 1000);
    const rows = (
      query.path
        ? this.db
            .prepare(
              'SELECT id, path, sha256, author, note, created_at, length(CAST(content AS BLOB)) AS bytes FROM file_versions WHERE path = ? ORDER BY id DESC LIMIT ?',
            )
            .all(query.path, limit)
        : this.db
            .prepare(
              'SELECT id, path, sha256, author, note, created_at, length(CAST(content AS BLOB)) AS bytes FROM file_versions ORDER BY id DESC LIMIT ?',
            )
            .all(limit)
    ) as Array<Omit<Row, 'content'> & { bytes: number }>;
    return rows.map((row) => ({
      id: row.id,
      path: row.path,
      sha256: row.sha256,
      author: row.author,
      note: row.note,
      createdAt: row.created_at,
      bytes: row.bytes,
    }));
  }
}
