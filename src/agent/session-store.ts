import type { ChatMessage } from '../llm/types.js';

export interface SessionRecord {
  id: string;
  /** Routing key `channel:chatId`; several sessions may share a key, the newest is the active one. */
  key: string;
  channel: string;
  chatId: string;
  createdAt: number;
  updatedAt: number;
}

export interface StoredMessage {
  /** Monotonic position within the session, starting at 1. */
  seq: number;
  message: ChatMessage;
  /** Estimated prompt tokens of `message`, computed once when stored. */
  tokens: number;
  createdAt: number;
}

export interface NewMessage {
  message: ChatMessage;
  tokens: number;
  /** Full tool output or other UI-only data; never sent to the model. */
  details?: unknown;
}

/**
 * Persistence of sessions and their messages, as the agent needs it. The SQLite implementation lives in
 * src/store; an in-memory twin serves tests. Promise-returning so a networked store can stand behind it.
 */
export interface SessionStore {
  /** The active session for `key`, created when there is none. */
  activeSession(key: string, init: { channel: string; chatId: string }): Promise<SessionRecord>;
  /** A fresh session that becomes the active one for `key` (the `/new` command). */
  createSession(key: string, init: { channel: string; chatId: string; id?: string }): Promise<SessionRecord>;
  getSession(id: string): Promise<SessionRecord | undefined>;
  listSessions(limit: number): Promise<SessionRecord[]>;
  /**
   * The newest messages whose token sum fits `maxTokens`, in chronological order. Never starts with a
   * `tool` message (an orphaned tool result is dropped together with anything before it).
   */
  recentMessages(sessionId: string, maxTokens: number): Promise<StoredMessage[]>;
  /** Appends all messages of one turn atomically: either all are stored or none. */
  appendMessages(sessionId: string, messages: NewMessage[]): Promise<void>;
}
