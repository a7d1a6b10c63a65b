import { randomUUID } from 'node:crypto';
import type { NewMessage, SessionRecord, SessionStore, StoredMessage } from './session-store.js';

/** The in-memory twin of the SQLite session store: same contract, for tests and throwaway runs. */
export class MemorySessionStore implements SessionStore {
  private readonly sessions = new Map<string, SessionRecord>();
  private readonly messages = new Map<string, StoredMessage[]>();
  private readonly active = new Map<string, string>();

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
    let start = all.length;
    let total = 0;
    while (start > 0) {
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
}
