import { randomUUID } from 'node:crypto';
import type { Database, Statement } from 'better-sqlite3';
import type { NewMessage, SessionRecord, SessionStore, StoredMessage } from '../agent/session-store.js';
import type { ChatMessage } from '../llm/types.js';
import { StoreError } from './store-error.js';

interface SessionRow {
  id: string;
  key: string;
  channel: string;
  chat_id: string;
  created_at: number;
  updated_at: number;
}

interface MessageRow {
  seq: number;
  role: string;
  content: string;
  tokens: number;
  created_at: number;
}

const toRecord = (row: SessionRow): SessionRecord => ({
  id: row.id,
  key: row.key,
  channel: row.channel,
  chatId: row.chat_id,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** Token estimates are stored as non-negative integers (fractions round up). */
const wholeTokens = (tokens: number): number =>
  Number.isFinite(tokens) && tokens > 0 ? Math.ceil(tokens) : 0;

/** Rows fetched per step when walking a session backwards to fill a token budget. */
const BUDGET_BATCH = 256;

/**
 * The SessionStore over SQLite (a database opened and migrated by `openDatabase`). Statements are prepared
 * once; every method runs synchronously inside its promise. Messages are stored as JSON; `appendMessages`
 * is one IMMEDIATE transaction, so a crash leaves either the whole turn or none of it. Sessions are listed
 * by last activity (newest first).
 */
export class SqliteSessionStore implements SessionStore {
  private readonly statements: {
    newestForKey: Statement<[string]>;
    insertSession: Statement<[string, string, string, string, number, number]>;
    getSession: Statement<[string]>;
    listSessions: Statement<[number]>;
    lastSeq: Statement<[string]>;
    insertMessage: Statement<[string, number, string, string, number, string | null, number]>;
    touchSession: Statement<[number, string]>;
    budgetWalk: Statement<[string, number, number]>;
    messagesFrom: Statement<[string, number]>;
  };

  /** @param now the clock, injectable for tests (Unix milliseconds). */
  constructor(
    private readonly db: Database,
    private readonly now: () => number = Date.now,
  ) {
    this.statements = {
      newestForKey: db.prepare(
        'SELECT * FROM sessions WHERE key = ? ORDER BY created_at DESC, rowid DESC LIMIT 1',
      ),
      insertSession: db.prepare(
        'INSERT INTO sessions (id, key, channel, chat_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
      ),
      getSession: db.prepare('SELECT * FROM sessions WHERE id = ?'),
      listSessions: db.prepare('SELECT * FROM sessions ORDER BY updated_at DESC, rowid DESC LIMIT ?'),
      lastSeq: db.prepare('SELECT max(seq) AS seq FROM messages WHERE session_id = ?'),
      insertMessage: db.prepare(
        'INSERT INTO messages (session_id, seq, role, content, tokens, details, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ),
      touchSession: db.prepare('UPDATE sessions SET updated_at = ? WHERE id = ?'),
      budgetWalk: db.prepare(
        'SELECT seq, tokens FROM messages WHERE session_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?',
      ),
      messagesFrom: db.prepare(
        'SELECT seq, role, content, tokens, created_at FROM messages WHERE session_id = ? AND seq >= ? ORDER BY seq',
      ),
    };
  }

  /** @inheritdoc */
  async activeSession(key: string, init: { channel: string; chatId: string }): Promise<SessionRecord> {
    return this.db
      .transaction(() => {
        const row = this.statements.newestForKey.get(key) as SessionRow | undefined;
        return row ? toRecord(row) : this.insertSession(key, init);
      })
      .immediate();
  }

  /** @inheritdoc @throws StoreError when a session with the given `id` exists. */
  async createSession(
    key: string,
    init: { channel: string; chatId: string; id?: string },
  ): Promise<SessionRecord> {
    return this.insertSession(key, init);
  }

  private insertSession(key: string, init: { channel: string; chatId: string; id?: string }): SessionRecord {
    const now = this.now();
    const record: SessionRecord = {
      id: init.id ?? randomUUID(),
      key,
      channel: init.channel,
      chatId: init.chatId,
      createdAt: now,
      updatedAt: now,
    };
    try {
      this.statements.insertSession.run(record.id, key, init.channel, init.chatId, now, now);
    } catch (error) {
      if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
        throw new StoreError(`session ${record.id} already exists`, { cause: error });
      }
      throw error;
    }
    return record;
  }

  async getSession(id: string): Promise<SessionRecord | undefined> {
    const row = this.statements.getSession.get(id) as SessionRow | undefined;
    return row ? toRecord(row) : undefined;
  }

  /** Most recently active first. */
  async listSessions(limit: number): Promise<SessionRecord[]> {
    return (this.statements.listSessions.all(Math.max(0, Math.floor(limit))) as SessionRow[]).map(toRecord);
  }

  /**
   * @inheritdoc Walks backwards from the newest message in batches over a covering index (token counts
   * only), then reads the bodies of the messages that fit; cost grows with what is returned, not with the
   * session's length. A newest message larger than the budget yields an empty list.
   */
  async recentMessages(sessionId: string, maxTokens: number): Promise<StoredMessage[]> {
    return this.db.transaction(() => {
      const first = this.firstSeqWithin(sessionId, maxTokens);
      if (first === undefined) return [];
      const rows = this.statements.messagesFrom.all(sessionId, first) as MessageRow[];
      let start = 0;
      while (start < rows.length && rows[start]!.role === 'tool') start++;
      return rows.slice(start).map((row) => ({
        seq: row.seq,
        message: JSON.parse(row.content) as ChatMessage,
        tokens: row.tokens,
        createdAt: row.created_at,
      }));
    })();
  }

  /** The smallest seq such that the messages from it to the newest fit `maxTokens`; undefined if none fit. */
  private firstSeqWithin(sessionId: string, maxTokens: number): number | undefined {
    let total = 0;
    let first: number | undefined;
    let before = Number.MAX_SAFE_INTEGER;
    for (;;) {
      const batch = this.statements.budgetWalk.all(sessionId, before, BUDGET_BATCH) as Array<{
        seq: number;
        tokens: number;
      }>;
      for (const row of batch) {
        if (total + row.tokens > maxTokens) return first;
        total += row.tokens;
        first = row.seq;
      }
      if (batch.length < BUDGET_BATCH) return first;
      before = batch[batch.length - 1]!.seq;
    }
  }

  /**
   * @inheritdoc Seqs continue from the session's last one; the session's `updatedAt` moves to now.
   * @throws StoreError for an unknown session; nothing is stored then.
   */
  async appendMessages(sessionId: string, messages: NewMessage[]): Promise<void> {
    this.db
      .transaction(() => {
        if (!this.statements.getSession.get(sessionId)) throw new StoreError(`no session ${sessionId}`);
        const now = this.now();
        let seq = ((this.statements.lastSeq.get(sessionId) as { seq: number | null }).seq ?? 0) + 1;
        for (const { message, tokens, details } of messages) {
          const detailsJson = details === undefined ? null : JSON.stringify(details);
          const content = JSON.stringify(message);
          this.statements.insertMessage.run(
            sessionId,
            seq++,
            message.role,
            content,
            wholeTokens(tokens),
            detailsJson,
            now,
          );
        }
        this.statements.touchSession.run(now, sessionId);
      })
      .immediate();
  }
}
