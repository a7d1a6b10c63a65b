import { randomUUID } from 'node:crypto';
import type { Database, Statement } from 'better-sqlite3';
import {
  ConsolidationConflictError,
  type MemoryState,
  type NewMessage,
  type PendingConsolidation,
  type SessionRecord,
  type SessionStore,
  type StoredMessage,
} from '../agent/session-store.js';
import type { ChatMessage } from '../llm/types.js';
import { StoreError } from '../util/store-error.js';

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

const toStored = (row: MessageRow): StoredMessage => ({
  seq: row.seq,
  message: JSON.parse(row.content) as ChatMessage,
  tokens: row.tokens,
  createdAt: row.created_at,
});

interface PendingRow {
  session_id: string;
  from_seq: number;
  through_seq: number;
  summary: string;
  payload: string;
  created_at: number;
}

const toPending = (row: PendingRow): PendingConsolidation => ({
  sessionId: row.session_id,
  fromSeq: row.from_seq,
  throughSeq: row.through_seq,
  summary: row.summary,
  payload: JSON.parse(row.payload) as unknown,
  createdAt: row.created_at,
});

function prepareMemory(db: Database) {
  return {
    marker: db.prepare<[string]>('SELECT consolidated_seq, summary FROM session_memory WHERE session_id = ?'),
    pendingOf: db.prepare<[string]>('SELECT * FROM consolidation_pending WHERE session_id = ?'),
    pendingAll: db.prepare<[]>('SELECT * FROM consolidation_pending ORDER BY created_at, rowid'),
    insertPending: db.prepare<[string, number, number, string, string, number]>(
      'INSERT INTO consolidation_pending (session_id, from_seq, through_seq, summary, payload, created_at) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    deletePending: db.prepare<[string]>('DELETE FROM consolidation_pending WHERE session_id = ?'),
    upsertMarker: db.prepare<[string, number, string, number]>(
      `INSERT INTO session_memory (session_id, consolidated_seq, summary, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (session_id) DO UPDATE SET consolidated_seq = excluded.consolidated_seq,
         summary = excluded.summary, updated_at = excluded.updated_at`,
    ),
  };
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

/** The port (see ports.ts): conversations and their messages, plus the titles the session lists show. */
export interface ConversationStore extends SessionStore {
  /** The first user words of each session (for lists); sessions without one are left out. */
  sessionTitles(ids: readonly string[]): Map<string, string>;
}

/**
 * The SessionStore over SQLite (a database opened and migrated by `openDatabase`). Statements are prepared
 * once; every method runs synchronously inside its promise. Messages are stored as JSON; `appendMessages`
 * is one IMMEDIATE transaction, so a crash leaves either the whole turn or none of it. Sessions are listed
 * by last activity (newest first).
 */
export class SqliteSessionStore implements ConversationStore {
  private readonly statements: {
    newestForKey: Statement<[string]>;
    insertSession: Statement<[string, string, string, string, number, number]>;
    getSession: Statement<[string]>;
    listSessions: Statement<[number]>;
    lastSeq: Statement<[string]>;
    insertMessage: Statement<[string, number, string, string, number, string | null, number]>;
    touchSession: Statement<[number, string]>;
    budgetWalk: Statement<[string, number, number, number]>;
    messagesFrom: Statement<[string, number]>;
    messagesAfter: Statement<[string, number, number]>;
    tokensAfter: Statement<[string, number]>;
  };
  /** Statements over the v2 memory tables; undefined on a database without them (nothing consolidated). */
  private readonly memory: ReturnType<typeof prepareMemory> | undefined;

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
        'SELECT seq, tokens FROM messages WHERE session_id = ? AND seq < ? AND seq > ? ORDER BY seq DESC LIMIT ?',
      ),
      messagesFrom: db.prepare(
        'SELECT seq, role, content, tokens, created_at FROM messages WHERE session_id = ? AND seq >= ? ORDER BY seq',
      ),
      messagesAfter: db.prepare(
        'SELECT seq, role, content, tokens, created_at FROM messages WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?',
      ),
      tokensAfter: db.prepare(
        'SELECT coalesce(sum(tokens), 0) AS tokens, coalesce(max(seq), 0) AS last FROM messages WHERE session_id = ? AND seq > ?',
      ),
    };
    const hasMemory = db
      .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'session_memory'")
      .get();
    this.memory = hasMemory ? prepareMemory(db) : undefined;
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

  /**
   * A title for each session that has one: its first user message's text, on one line, cut to 80 characters
   * (what a sessions list shows). One indexed lookup per session.
   */
  sessionTitles(ids: readonly string[]): Map<string, string> {
    const first = this.db.prepare<[string], { content: string }>(
      "SELECT content FROM messages WHERE session_id = ? AND role = 'user' ORDER BY seq LIMIT 1",
    );
    const titles = new Map<string, string>();
    for (const id of ids) {
      const row = first.get(id);
      if (!row) continue;
      let text = '';
      try {
        const message = JSON.parse(row.content) as ChatMessage;
        if (typeof message.content === 'string') text = message.content;
        else if (Array.isArray(message.content))
          text = message.content.map((part) => ('text' in part ? String(part.text) : '')).join(' ');
      } catch {
        continue;
      }
      const line = text.replace(/\s+/g, ' ').trim();
      if (line) titles.set(id, line.length > 80 ? `${line.slice(0, 79)}…` : line);
    }
    return titles;
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
      const first = this.firstSeqWithin(sessionId, maxTokens, this.marker(sessionId).consolidatedSeq);
      if (first === undefined) return [];
      const rows = this.statements.messagesFrom.all(sessionId, first) as MessageRow[];
      let start = 0;
      while (start < rows.length && rows[start]!.role === 'tool') start++;
      return rows.slice(start).map(toStored);
    })();
  }

  /**
   * The smallest seq above `floor` such that the messages from it to the newest fit `maxTokens`; undefined
   * if none fit.
   */
  private firstSeqWithin(sessionId: string, maxTokens: number, floor: number): number | undefined {
    let total = 0;
    let first: number | undefined;
    let before = Number.MAX_SAFE_INTEGER;
    for (;;) {
      const batch = this.statements.budgetWalk.all(sessionId, before, floor, BUDGET_BATCH) as Array<{
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

  private marker(sessionId: string): { consolidatedSeq: number; summary: string } {
    const row = this.memory?.marker.get(sessionId) as
      | { consolidated_seq: number; summary: string }
      | undefined;
    return row
      ? { consolidatedSeq: row.consolidated_seq, summary: row.summary }
      : { consolidatedSeq: 0, summary: '' };
  }

  private requireMemory(): NonNullable<SqliteSessionStore['memory']> {
    if (!this.memory) {
      throw new StoreError(
        `${this.db.name}: the database has no memory tables (schema version 2); open it with openDatabase so it is migrated`,
      );
    }
    return this.memory;
  }

  async memoryState(sessionId: string): Promise<MemoryState> {
    return this.db.transaction(() => {
      const marker = this.marker(sessionId);
      const after = this.statements.tokensAfter.get(sessionId, marker.consolidatedSeq) as {
        tokens: number;
        last: number;
      };
      const lastSeq = Math.max(after.last, marker.consolidatedSeq);
      return { ...marker, lastSeq, unconsolidatedTokens: after.tokens };
    })();
  }

  async messagesAfter(sessionId: string, afterSeq: number, limit: number): Promise<StoredMessage[]> {
    const rows = this.statements.messagesAfter.all(
      sessionId,
      Math.max(0, Math.floor(afterSeq)),
      Math.max(0, Math.floor(limit)),
    ) as MessageRow[];
    return rows.map(toStored);
  }

  /** @inheritdoc One IMMEDIATE transaction: the checks and the insert cannot interleave with another writer. */
  async beginConsolidation(pending: Omit<PendingConsolidation, 'createdAt'>): Promise<void> {
    const memory = this.requireMemory();
    this.db
      .transaction(() => {
        const { sessionId, fromSeq, throughSeq } = pending;
        if (memory.pendingOf.get(sessionId)) {
          throw new ConsolidationConflictError(`a consolidation of session ${sessionId} is pending`);
        }
        const marker = this.marker(sessionId).consolidatedSeq;
        const last = (this.statements.lastSeq.get(sessionId) as { seq: number | null }).seq ?? 0;
        if (marker !== fromSeq - 1 || throughSeq > last || throughSeq < fromSeq) {
          throw new ConsolidationConflictError(
            `session ${sessionId}: cannot consolidate ${fromSeq}-${throughSeq} (marker ${marker}, last ${last})`,
          );
        }
        memory.insertPending.run(
          sessionId,
          fromSeq,
          throughSeq,
          pending.summary,
          JSON.stringify(pending.payload ?? null),
          this.now(),
        );
      })
      .immediate();
  }

  async pendingConsolidations(sessionId?: string): Promise<PendingConsolidation[]> {
    if (!this.memory) return [];
    const rows = (
      sessionId === undefined ? this.memory.pendingAll.all() : this.memory.pendingOf.all(sessionId)
    ) as PendingRow[];
    return rows.map(toPending);
  }

  async commitConsolidation(sessionId: string): Promise<void> {
    const memory = this.requireMemory();
    this.db
      .transaction(() => {
        const row = memory.pendingOf.get(sessionId) as PendingRow | undefined;
        if (!row) return;
        memory.upsertMarker.run(sessionId, row.through_seq, row.summary, this.now());
        memory.deletePending.run(sessionId);
      })
      .immediate();
  }
}
