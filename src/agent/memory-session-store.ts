import { randomUUID } from 'node:crypto';
import {
  ConsolidationConflictError,
  type MemoryState,
  type NewMessage,
  type PendingConsolidation,
  type SessionRecord,
  type SessionStore,
  type StoredMessage,
} from './session-store.js';

/** The in-memory twin of the SQLite session store: same contract, for tests and throwaway runs. */
export class MemorySessionStore implements SessionStore {
  private readonly sessions = new Map<string, SessionRecord>();
  private readonly messages = new Map<string, StoredMessage[]>();
  private readonly active = new Map<string, string>();
  private readonly markers = new Map<string, { consolidatedSeq: number; summary: string }>();
  private readonly pending = new Map<string, PendingConsolidation>();

  constructor(private readonly clock: () => number = Date.now) {}

  async activeSession(key: string, init: { channel: string; chatId: string }): Promise<SessionRecord> {
    const id = this.active.get(key);
    const existing = id ? this.sessions.get(id) : undefined;
    return existing ?? this.createSession(key, init);
  }

  async createSession(
    key: string,
    init: { channel: string; chatId: string; id?: string },
  ): Promise<SessionRecord> {
    const now = this.clock();
    const record: SessionRecord = {
      id: init.id ?? randomUUID(),
      key,
      channel: init.channel,
      chatId: init.chatId,
      createdAt: now,
      updatedAt: now,
    };
    if (this.sessions.has(record.id)) throw new Error(`session ${record.id} already exists`);
    this.sessions.set(record.id, record);
    this.messages.set(record.id, []);
    this.active.set(key, record.id);
    return { ...record };
  }

  async getSession(id: string): Promise<SessionRecord | undefined> {
    const record = this.sessions.get(id);
    return record ? { ...record } : undefined;
  }

  async listSessions(limit: number): Promise<SessionRecord[]> {
    return [...this.sessions.values()]
      .sort((a, b) => b.updatedAt - a.updatedAt)
      .slice(0, limit)
      .map((record) => ({ ...record }));
  }

  async recentMessages(sessionId: string, maxTokens: number): Promise<StoredMessage[]> {
    const all = this.messages.get(sessionId) ?? [];
    const floor = this.markers.get(sessionId)?.consolidatedSeq ?? 0;
    let start = all.length;
    let total = 0;
    while (start > floor) {
      const candidate = all[start - 1]!;
      if (total + candidate.tokens > maxTokens) break;
      total += candidate.tokens;
      start--;
    }
    while (start < all.length && all[start]!.message.role === 'tool') start++;
    return all.slice(start).map((stored) => structuredClone(stored));
  }

  async appendMessages(sessionId: string, messages: NewMessage[]): Promise<void> {
    const list = this.messages.get(sessionId);
    const record = this.sessions.get(sessionId);
    if (!list || !record) throw new Error(`no session ${sessionId}`);
    const now = this.clock();
    for (const { message, tokens } of messages) {
      list.push({ seq: list.length + 1, message: structuredClone(message), tokens, createdAt: now });
    }
    record.updatedAt = now;
  }

  async memoryState(sessionId: string): Promise<MemoryState> {
    const all = this.messages.get(sessionId) ?? [];
    const marker = this.markers.get(sessionId) ?? { consolidatedSeq: 0, summary: '' };
    const unconsolidatedTokens = all
      .slice(marker.consolidatedSeq)
      .reduce((sum, stored) => sum + stored.tokens, 0);
    return { ...marker, lastSeq: all.length, unconsolidatedTokens };
  }

  async messagesAfter(sessionId: string, afterSeq: number, limit: number): Promise<StoredMessage[]> {
    const all = this.messages.get(sessionId) ?? [];
    return all
      .slice(Math.max(0, afterSeq), Math.max(0, afterSeq) + Math.max(0, limit))
      .map((stored) => structuredClone(stored));
  }

  async beginConsolidation(pending: Omit<PendingConsolidation, 'createdAt'>): Promise<void> {
    const marker = this.markers.get(pending.sessionId)?.consolidatedSeq ?? 0;
    const lastSeq = this.messages.get(pending.sessionId)?.length ?? 0;
    if (this.pending.has(pending.sessionId)) {
      throw new ConsolidationConflictError(`a consolidation of session ${pending.sessionId} is pending`);
    }
    if (
      marker !== pending.fromSeq - 1 ||
      pending.throughSeq > lastSeq ||
      pending.throughSeq < pending.fromSeq
    ) {
      throw new ConsolidationConflictError(
        `session ${pending.sessionId}: cannot consolidate ${pending.fromSeq}-${pending.throughSeq} (marker ${marker}, last ${lastSeq})`,
      );
    }
    this.pending.set(pending.sessionId, { ...structuredClone(pending), createdAt: this.clock() });
  }

  async pendingConsolidations(sessionId?: string): Promise<PendingConsolidation[]> {
    return [...this.pending.values()]
      .filter((item) => sessionId === undefined || item.sessionId === sessionId)
      .sort((a, b) => a.createdAt - b.createdAt)
      .map((item) => structuredClone(item));
  }

  async commitConsolidation(sessionId: string): Promise<void> {
    const pending = this.pending.get(sessionId);
    if (!pending) return;
    this.markers.set(sessionId, { consolidatedSeq: pending.throughSeq, summary: pending.summary });
    this.pending.delete(sessionId);
  }
}
