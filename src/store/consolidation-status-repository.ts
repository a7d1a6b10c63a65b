import type { Database } from 'better-sqlite3';

/** Where consolidation of one session stands (for `wren status` and `/memory`). */
export interface ConsolidationStatusEntry {
  sessionId: string;
  /** Consecutive failures since the last success (0 when healthy). */
  failures: number;
  lastError?: string;
  lastAttemptAt?: number;
  /** When the next retry is due (Unix ms), while failing. */
  nextAttemptAt?: number;
  lastSuccessAt?: number;
  /** Messages consolidated so far, and the tokens that cost. */
  consolidatedMessages: number;
  inputTokens: number;
  outputTokens: number;
}

/** Persists consolidation outcomes. Implementations must not throw for unknown sessions on reads. */
export interface ConsolidationStatusStore {
  get(sessionId: string): ConsolidationStatusEntry | undefined;
  recordFailure(sessionId: string, failure: { error: string; at: number; nextAttemptAt: number }): void;
  recordSuccess(
    sessionId: string,
    success: { at: number; messages: number; inputTokens: number; outputTokens: number },
  ): void;
  list(): ConsolidationStatusEntry[];
}

interface StatusRow {
  session_id: string;
  failures: number;
  last_error: string | null;
  last_attempt_at: number | null;
  next_attempt_at: number | null;
  last_success_at: number | null;
  consolidated_messages: number;
  input_tokens: number;
  output_tokens: number;
}

const toEntry = (row: StatusRow): ConsolidationStatusEntry => ({
  sessionId: row.session_id,
  failures: row.failures,
  ...(row.last_error !== null ? { lastError: row.last_error } : {}),
  ...(row.last_attempt_at !== null ? { lastAttemptAt: row.last_attempt_at } : {}),
  ...(row.next_attempt_at !== null ? { nextAttemptAt: row.next_attempt_at } : {}),
  ...(row.last_success_at !== null ? { lastSuccessAt: row.last_success_at } : {}),
  consolidatedMessages: row.consolidated_messages,
  inputTokens: row.input_tokens,
  outputTokens: row.output_tokens,
});

/** The status table of schema v2 (`consolidation_status`). Error texts are capped at 500 characters. */
export class SqliteConsolidationStatusStore implements ConsolidationStatusStore {
  constructor(private readonly db: Database) {}

  get(sessionId: string): ConsolidationStatusEntry | undefined {
    const row = this.db.prepare('SELECT * FROM consolidation_status WHERE session_id = ?').get(sessionId);
    return row ? toEntry(row as StatusRow) : undefined;
  }

  recordFailure(sessionId: string, failure: { error: string; at: number; nextAttemptAt: number }): void {
    this.db
      .prepare(
        `INSERT INTO consolidation_status (session_id, failures, last_error, last_attempt_at, next_attempt_at)
         VALUES (@sessionId, 1, @error, @at, @next)
         ON CONFLICT (session_id) DO UPDATE SET failures = failures + 1, last_error = @error,
           last_attempt_at = @at, next_attempt_at = @next`,
      )
      .run({ sessionId, error: failure.error.slice(0, 500), at: failure.at, next: failure.nextAttemptAt });
  }

  recordSuccess(
    sessionId: string,
    success: { at: number; messages: number; inputTokens: number; outputTokens: number },
  ): void {
    this.db
      .prepare(
        `INSERT INTO consolidation_status (session_id, failures, last_attempt_at, last_success_at,
           consolidated_messages, input_tokens, output_tokens)
         VALUES (@sessionId, 0, @at, @at, @messages, @input, @output)
         ON CONFLICT (session_id) DO UPDATE SET failures = 0, last_error = NULL, next_attempt_at = NULL,
           last_attempt_at = @at, last_success_at = @at,
           consolidated_messages = consolidated_messages + @messages,
           input_tokens = input_tokens + @input, output_tokens = output_tokens + @output`,
      )
      .run({
        sessionId,
        at: success.at,
        messages: success.messages,
        input: Math.round(success.inputTokens),
        output: Math.round(success.outputTokens),
      });
  }

  list(): ConsolidationStatusEntry[] {
    return (
      this.db.prepare('SELECT * FROM consolidation_status ORDER BY last_attempt_at DESC').all() as StatusRow[]
    ).map(toEntry);
  }
}

/** The summary `wren status` shows. */
export interface ConsolidationStatus {
  /** Sessions whose last consolidation failed, most recent first. */
  failing: ConsolidationStatusEntry[];
  /** Consolidations whose model work is saved but not yet applied (normally 0; replayed at start). */
  pending: number;
  lastSuccessAt?: number;
  consolidatedMessages: number;
  inputTokens: number;
  outputTokens: number;
}

/**
 * The consolidation health of a database, read-only (for `wren status`). A database without the memory
 * schema reports nothing consolidated.
 */
export function consolidationStatus(db: Database): ConsolidationStatus {
  const hasTable = db
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'consolidation_status'")
    .get();
  if (!hasTable) return { failing: [], pending: 0, consolidatedMessages: 0, inputTokens: 0, outputTokens: 0 };
  const entries = new SqliteConsolidationStatusStore(db).list();
  const pending = (db.prepare('SELECT count(*) AS n FROM consolidation_pending').get() as { n: number }).n;
  const successes = entries.map((entry) => entry.lastSuccessAt ?? 0).filter((at) => at > 0);
  const sum = (pick: (entry: ConsolidationStatusEntry) => number) =>
    entries.reduce((total, entry) => total + pick(entry), 0);
  return {
    failing: entries.filter((entry) => entry.failures > 0),
    pending,
    ...(successes.length ? { lastSuccessAt: Math.max(...successes) } : {}),
    consolidatedMessages: sum((entry) => entry.consolidatedMessages),
    inputTokens: sum((entry) => entry.inputTokens),
    outputTokens: sum((entry) => entry.outputTokens),
  };
}

/** The in-memory twin (tests, throwaway runs). */
export class MemoryConsolidationStatusStore implements ConsolidationStatusStore {
  private readonly entries = new Map<string, ConsolidationStatusEntry>();

  get(sessionId: string): ConsolidationStatusEntry | undefined {
    const entry = this.entries.get(sessionId);
    return entry ? { ...entry } : undefined;
  }

  private entry(sessionId: string): ConsolidationStatusEntry {
    let entry = this.entries.get(sessionId);
    if (!entry) {
      entry = { sessionId, failures: 0, consolidatedMessages: 0, inputTokens: 0, outputTokens: 0 };
      this.entries.set(sessionId, entry);
    }
    return entry;
  }

  recordFailure(sessionId: string, failure: { error: string; at: number; nextAttemptAt: number }): void {
    const entry = this.entry(sessionId);
    entry.failures++;
    entry.lastError = failure.error.slice(0, 500);
    entry.lastAttemptAt = failure.at;
    entry.nextAttemptAt = failure.nextAttemptAt;
  }

  recordSuccess(
    sessionId: string,
    success: { at: number; messages: number; inputTokens: number; outputTokens: number },
  ): void {
    const entry = this.entry(sessionId);
    entry.failures = 0;
    delete entry.lastError;
    delete entry.nextAttemptAt;
    entry.lastAttemptAt = success.at;
    entry.lastSuccessAt = success.at;
    entry.consolidatedMessages += success.messages;
    entry.inputTokens += success.inputTokens;
    entry.outputTokens += success.outputTokens;
  }

  list(): ConsolidationStatusEntry[] {
    return [...this.entries.values()].map((entry) => ({ ...entry }));
  }
}
