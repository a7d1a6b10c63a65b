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
 * Where a session's consolidation stands. Messages with `seq <= consolidatedSeq` have been summarised into
 * `summary` (and the memory files) and no longer belong to the live history.
 */
export interface MemoryState {
  consolidatedSeq: number;
  /** The cascading session summary ('' before the first consolidation). */
  summary: string;
  /** The session's newest seq (0 when empty). */
  lastSeq: number;
  /** Token sum of the messages after `consolidatedSeq`. */
  unconsolidatedTokens: number;
}

/**
 * A consolidation whose model work is done and saved, but whose effects (memory files, the marker) may not
 * be applied yet. At most one per session. `payload` is opaque JSON for the consolidator (file edits).
 */
export interface PendingConsolidation {
  sessionId: string;
  /** First seq covered (the marker + 1 when it was begun). */
  fromSeq: number;
  /** Last seq covered; becomes the marker on commit. */
  throughSeq: number;
  /** The new cascading summary; replaces the session summary on commit. */
  summary: string;
  payload: unknown;
  createdAt: number;
}

/** Thrown by `beginConsolidation` when another consolidation got there first (or the range is wrong). */
export class ConsolidationConflictError extends Error {
  override name = 'ConsolidationConflictError';
}

/**
 * Persistence of sessions and their messages, as the agent needs it. The SQLite implementation lives in
 * src/store; an in-memory twin serves tests. Promise-returning so a networked store can stand behind it.
 *
 * Consolidation protocol (crash-safe, never twice): `beginConsolidation` saves the finished model work as a
 * pending record (only when the marker is still where the consolidator read it); the consolidator applies the
 * record's file edits idempotently; `commitConsolidation` then moves the marker and replaces the summary in
 * one transaction. After a crash, `pendingConsolidations` returns what to re-apply and commit.
 */
export interface SessionStore {
  /** The active session for `key`, created when there is none. */
  activeSession(key: string, init: { channel: string; chatId: string }): Promise<SessionRecord>;
  /** A fresh session that becomes the active one for `key` (the `/new` command). */
  createSession(key: string, init: { channel: string; chatId: string; id?: string }): Promise<SessionRecord>;
  getSession(id: string): Promise<SessionRecord | undefined>;
  listSessions(limit: number): Promise<SessionRecord[]>;
  /**
   * The newest live messages (after the consolidation marker) whose token sum fits `maxTokens`, in
   * chronological order. Never starts with a `tool` message (an orphaned tool result is dropped together
   * with anything before it).
   */
  recentMessages(sessionId: string, maxTokens: number): Promise<StoredMessage[]>;
  /** Appends all messages of one turn atomically: either all are stored or none. */
  appendMessages(sessionId: string, messages: NewMessage[]): Promise<void>;
  /** The session's consolidation state; all zeros and '' for an unknown or empty session. */
  memoryState(sessionId: string): Promise<MemoryState>;
  /** Up to `limit` messages with `seq > afterSeq`, oldest first (what a consolidation reads). */
  messagesAfter(sessionId: string, afterSeq: number, limit: number): Promise<StoredMessage[]>;
  /**
   * Saves finished consolidation work as pending.
   * @throws ConsolidationConflictError when the marker is not `fromSeq - 1`, another consolidation is
   * pending for the session, or `throughSeq` is past the newest message or before `fromSeq`.
   */
  beginConsolidation(pending: Omit<PendingConsolidation, 'createdAt'>): Promise<void>;
  /** Pending consolidations (of one session, or all), oldest first. */
  pendingConsolidations(sessionId?: string): Promise<PendingConsolidation[]>;
  /**
   * Moves the marker to the pending record's `throughSeq`, sets its summary and deletes the record, in one
   * transaction. Idempotent: without a pending record it does nothing.
   */
  commitConsolidation(sessionId: string): Promise<void>;
}
