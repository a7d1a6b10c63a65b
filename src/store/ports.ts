/**
 * The storage ports: what the rest of Wren may ask of storage. `store/` implements them over SQLite
 * (openStores); a second backend implements the same interfaces. No signature names a driver type, and a
 * change that must be atomic is one method (or a callback the method runs inside its own unit of work, as
 * `OutboxStore.claim`'s `advance`), never a transaction handle the caller holds.
 *
 * Consumers import these types (or `Stores`), never a repository class.
 */
import type { AuditEntry, AuditQuery, NewAuditEntry } from './audit-repository.js';
import type {
  CalendarChanges,
  CalendarOccurrence,
  CalendarSyncState,
  StoredCalendarObject,
} from './calendar-repository.js';
import type { ConsolidationStatus, ConsolidationStatusStore } from './consolidation-status-repository.js';
import type { CronJobState, JobToSync } from './cron-job-repository.js';
import type { EmbeddingCounts, SearchableMessage, VectorMessageHit } from './embedding-repository.js';
import type { FileVersionRepository } from './file-version-repository.js';
import type {
  Goal,
  GoalDetail,
  GoalFields,
  GoalProposal,
  GoalStatus,
  GoalStep,
  NewGoalRecord,
  ProposedStep,
  StepFields,
} from './goal-records.js';
import type { Grant, NewGrant } from './grant-repository.js';
import type { PendingPin, PinCheck, PinnedToolDefinition } from './mcp-pin-repository.js';
import type { Memo } from './memo-repository.js';
import type { MemoryProposalRepository } from './memory-proposal-repository.js';
import type { MessageHit, MessageSearchQuery } from './message-search-repository.js';
import type {
  Delivery,
  FeedItem,
  NewClaim,
  OutboxKind,
  OutboxOutcome,
  OutboxRun,
} from './outbox-repository.js';
import type { ProactiveSummary } from './proactive-summary.js';
import type { PushSubscriptionKeys, StoredPushSubscription } from './push-subscription-repository.js';
import type { NewReminder, Reminder, ReminderMode } from './reminder-repository.js';
import type { TaintRecord } from './taint-repository.js';
import type { Task, TaskFields, TaskStatus } from './task-repository.js';
import type { TriggerEvent } from './trigger-repository.js';
import type { UsageQuery, UsageRecord, UsageTotals } from './usage-repository.js';
import type { VaultRepository } from './vault-repository.js';

// Two ports sit beside their implementation, since their records are the agent's and the bus's types.
export type { PendingApprovalStore } from './pending-approval-repository.js';
export type { ConversationStore } from './sqlite-session-store.js';
export type { ConsolidationStatusStore };

/** Small string settings under free-form keys prefixed by their owner (`gateway.token_hash`). */
export interface SettingsStore {
  get(key: string): string | undefined;
  /** Replaces any previous value. Idempotent. */
  set(key: string, value: string): void;
  /** True when the key existed. */
  delete(key: string): boolean;
}

/** A pairing code given to an unknown sender of a chat platform. */
export interface Pairing {
  code: string;
  channel: string;
  senderId: string;
  chatId: string;
  senderName: string;
  createdAt: number;
  expiresAt: number;
  approvedAt: number | null;
}

/** What came of asking for a pairing code. */
export type PairingAsk =
  | { kind: 'new'; pairing: Pairing }
  | { kind: 'pending'; pairing: Pairing }
  | { kind: 'full' }
  | { kind: 'approved' };

/** What platform channels keep across restarts: inbound ids already taken in, read cursors, pairings. */
export interface ChannelStore {
  /** Records a platform message id; true the first time it is seen for that channel and chat. */
  firstSeen(channel: string, chatId: string, platformId: string, now: number): boolean;
  cursor(channel: string, key: string): string | undefined;
  setCursor(channel: string, key: string, value: string): void;
  /** Forgets one cursor, or every cursor whose key starts with `prefix` (a linked device's session). */
  deleteCursors(channel: string, match: { key: string } | { prefix: string }): void;
  isPaired(channel: string, senderId: string): boolean;
  askPairing(
    request: { channel: string; senderId: string; chatId: string; senderName: string },
    now: number,
  ): PairingAsk;
  listPairings(now: number): Pairing[];
  approvePairing(code: string, now: number): Pairing | undefined;
  revokePairing(match: { code: string } | { channel: string; senderId: string }): boolean;
}

/** The gate's audit log: every decision, appended. */
export interface AuditStore {
  /** @returns the entry's id. */
  append(entry: NewAuditEntry): number;
  list(query?: AuditQuery): AuditEntry[];
}

/** Approvals the owner gave for later calls (once, for a session, always). */
export interface GrantStore {
  add(grant: NewGrant): Grant;
  active(sessionId?: string): Grant[];
  /** Finds a grant covering the call and uses it up when it was for one call only, atomically. */
  take(tool: string, target: string | undefined, sessionId: string): Grant | undefined;
  revoke(id: string): boolean;
}

/** Which sessions read untrusted or private data (the first source of each kind is kept). */
export interface TaintStore {
  /** A second mark of the same kind keeps the first. Idempotent. */
  mark(sessionId: string, kind: TaintRecord['kind'], source: string, at?: number): void;
  untrustedSessions(): Set<string>;
  of(sessionId: string): TaintRecord[];
}

export interface MemoStore {
  add(text: string): Memo;
  get(id: number): Memo | undefined;
  list(limit?: number, offset?: number): Memo[];
  count(): number;
  search(text: string, limit?: number): Memo[];
  update(id: number, text: string): Memo | undefined;
  delete(id: number): boolean;
}

export interface TaskStore {
  create(fields: TaskFields & { title: string }): Task;
  get(id: number): Task | undefined;
  list(status?: TaskStatus | 'all', limit?: number): Task[];
  countOpen(): number;
  update(id: number, fields: TaskFields): Task | undefined;
  complete(id: number): Task | undefined;
  reopen(id: number): Task | undefined;
  delete(id: number): boolean;
}

/** Vectors of past messages and HISTORY.md entries, by embedding model and content hash. */
export interface EmbeddingStore {
  unlinkedMessages(limit: number): SearchableMessage[];
  link(rows: ReadonlyArray<{ rowid: number; hash: string }>): void;
  messagesWithoutVector(model: string, limit: number): Array<{ hash: string; text: string }>;
  missing(model: string, hashes: readonly string[]): string[];
  useModel(model: string): void;
  save(model: string, items: ReadonlyArray<{ hash: string; vector: readonly number[] }>): number;
  nearestMessages(query: {
    model: string;
    vector: readonly number[];
    limit: number;
    maxDistance: number;
    since?: number;
    until?: number;
  }): VectorMessageHit[];
  distances(query: {
    model: string;
    vector: readonly number[];
    hashes: readonly string[];
  }): Map<string, number>;
  collect(model: string, keep: readonly string[]): number;
  counts(model: string): EmbeddingCounts;
}

/** Full-text search over the user and assistant messages of every session, best match first. */
export interface MessageSearchStore {
  /** Read-only; an empty or unsearchable query gives []. */
  search(query: MessageSearchQuery): MessageHit[];
}

export interface ReminderStore {
  create(reminder: NewReminder): Reminder;
  get(id: number): Reminder | undefined;
  list(which?: 'active' | 'all', limit?: number): Reminder[];
  cancel(id: number): boolean;
  update(
    id: number,
    changes: {
      text?: string;
      mode?: ReminderMode;
      schedule?: { at?: number; cron?: string; timezone: string; nextAt: number };
    },
  ): Reminder | undefined;
  due(now: number, limit?: number): Reminder[];
  nextDue(): number | undefined;
  /** Moves the reminder on only when its next time is still `expectedNext` (another process may have). */
  advance(id: number, expectedNext: number, next: number | undefined): void;
}

/** Runs claimed under unique keys, their feed entries and deliveries. */
export interface OutboxStore {
  /**
   * Claims a run under its unique key and runs `advance` (moving the item to its next occurrence) in the
   * same unit of work; undefined (and nothing advanced) when the key was claimed before.
   */
  claim(claim: NewClaim, advance: () => void): OutboxRun | undefined;
  get(id: number): OutboxRun | undefined;
  bySourceKey(sourceKey: string): OutboxRun | undefined;
  start(id: number): void;
  /** Writes the outcome, the feed entry and one pending delivery per target at once. */
  finish(
    id: number,
    ended: {
      outcome: OutboxOutcome;
      text: string;
      error?: string;
      targets: readonly string[];
      feed?: boolean;
    },
  ): void;
  unfinished(): OutboxRun[];
  dueDeliveries(now: number, limit?: number): Delivery[];
  nextDeliveryAt(): number | undefined;
  markSent(id: number): void;
  markAttempt(id: number, error: string, retryAt: number | undefined): void;
  deliveriesOf(outboxId: number): Array<Pick<Delivery, 'target' | 'state' | 'attempts' | 'lastError'>>;
  hasFeedEntry(outboxId: number): boolean;
  feed(limit?: number, beforeId?: number): FeedItem[];
  runsOf(kind: OutboxKind, ref: string, limit?: number): OutboxRun[];
}

/** The state of jobs.yaml's cron jobs (next run, manual run requests). */
export interface CronJobStore {
  sync(jobs: readonly JobToSync[], firstAfterNow: (job: JobToSync) => number | undefined): void;
  get(name: string): CronJobState | undefined;
  list(): CronJobState[];
  due(now: number): CronJobState[];
  nextDue(): number | undefined;
  advance(name: string, from: number, next: number | undefined): void;
  requestRun(job: Pick<JobToSync, 'name' | 'cron' | 'timezone'>, at: number): void;
  clearRequest(name: string, requestedAt: number): void;
}

/** Synced calendars: occurrences inside the sync window and each calendar's sync state. */
export interface CalendarStore {
  /** One sync's rows and its new state, in one unit of work. */
  apply(calendar: string, changes: CalendarChanges): void;
  setState(calendar: string, state: CalendarSyncState): void;
  state(calendar: string): CalendarSyncState | undefined;
  /** Stored objects of a calendar: href → ETag. */
  etags(calendar: string): Map<string, string | undefined>;
  object(calendar: string, uid: string): StoredCalendarObject | undefined;
  /** Occurrences overlapping [from, to), by start. */
  between(from: number, to: number, calendars?: readonly string[]): CalendarOccurrence[];
  /** Occurrences starting in (after, until], by start. */
  startingBetween(after: number, until: number): CalendarOccurrence[];
  /** Forgets calendars not in `keep`. */
  retain(keep: readonly string[]): void;
}

/** Events (a watched mail) the scheduler runs once each. */
export interface TriggerStore {
  /** False when the event was recorded before. */
  record(event: Omit<TriggerEvent, 'id'>): boolean;
  unclaimed(after: number, limit: number): TriggerEvent[];
}

/**
 * Goals, their steps and proposals, as storage keeps them: plain reads and writes of values the goal rules
 * (src/proactive/goals/) already checked, plus `transaction`, the unit of work those rules run a
 * check-then-write in. Writes stamp rows with the store's clock; none checks a rule or throws one.
 */
export interface GoalStore {
  /**
   * Runs `work` (synchronous) as one unit of work: what it reads and writes through this store sees one
   * state and lands together, or not at all when it throws (the error is rethrown). Nested calls join the
   * outer unit.
   */
  transaction<T>(work: () => T): T;
  /** Writes a new active goal with its first plan (in one unit of work); absent zone: the store's. */
  create(goal: NewGoalRecord): GoalDetail;
  /** `open`: active and paused goals; by status (active first), then soonest due, then oldest. */
  list(which?: 'open' | 'all' | GoalStatus, limit?: number): Goal[];
  /** The goal alone. */
  goal(id: number): Goal | undefined;
  /** The goal with its plan and its pending proposals. */
  get(id: number): GoalDetail | undefined;
  /** Writes the goal's fields (not its touch time: see `touch`). */
  change(id: number, fields: GoalFields): void;
  /** Marks the goal changed now (a change after a pass counts as newer than the pass). */
  touch(goalId: number): void;
  step(id: number): GoalStep | undefined;
  /** How many steps the plan has, and the last position used (0 for none). */
  planSize(goalId: number): { count: number; lastPosition: number };
  appendStep(goalId: number, position: number, step: StepFields): GoalStep;
  changeStep(stepId: number, fields: StepFields): GoalStep | undefined;
  /** The goal's plan becomes `steps`, in order (in one unit of work). */
  replacePlan(goalId: number, steps: readonly StepFields[]): void;
  /** How many proposals of the goal wait for the owner. */
  pendingProposals(goalId: number): number;
  /** Records a pending proposal. */
  addProposal(goalId: number, proposal: { reason: string; steps: readonly ProposedStep[] }): GoalProposal;
  proposal(id: number): GoalProposal | undefined;
  /** Writes the owner's decision on a proposal, stamped now. */
  decideProposal(id: number, status: 'accepted' | 'dismissed'): GoalProposal | undefined;
  /** Active goals due before day `before` (`YYYY-MM-DD`), least recently touched first. */
  overdue(before: string): Goal[];
  /**
   * The least recently touched active goal eligible for a pass at `now`: new or changed since its last pass,
   * or unchanged but rested a day since.
   */
  firstEligible(now: number): Goal | undefined;
  /**
   * When the next pass is due with passes `intervalMs` apart: an interval after the latest pass of any goal
   * (before the first: after the earliest goal became eligible), no sooner than some active goal is eligible;
   * undefined when none is active.
   */
  nextPassAt(intervalMs: number): number | undefined;
  /**
   * Counts pass `expectedPasses + 1` of goal `id` at `at` (touching it), only while the goal is active, still
   * has `expectedPasses`, and no goal had a pass in the `intervalMs` before `at`. @returns whether it counted.
   */
  recordPass(pass: { id: number; expectedPasses: number; at: number; intervalMs: number }): boolean;
  /** Active goals whose check-in is due at `now`, earliest first. */
  dueCheckins(now: number, limit?: number): Goal[];
  /** The earliest next check-in of any active goal. */
  nextCheckinAt(): number | undefined;
  /** Moves a goal's check-in from `expected` to `next`, only while it still waits for `expected`. */
  advanceCheckin(id: number, expected: number, next: number | undefined): void;
}

/** Browsers subscribed to web push. */
export interface PushSubscriptionStore {
  add(subscription: PushSubscriptionKeys): StoredPushSubscription;
  list(): StoredPushSubscription[];
  count(): number;
  remove(endpoint: string): boolean;
  markOk(id: number): void;
  markFailed(id: number): void;
}

/** The approved tool definitions of each MCP server (a changed definition is held until approved). */
export interface McpPinStore {
  check(server: string, hash: string, definitions: PinnedToolDefinition[]): PinCheck;
  pending(server: string): PendingPin | undefined;
  approvedHash(server: string): string | undefined;
  approve(server: string): string | undefined;
  forget(server: string): void;
  heldServers(): string[];
}

/** Token usage per model call. */
export interface UsageStore {
  record(record: UsageRecord): void;
  totals(query?: UsageQuery): UsageTotals;
}

/** Read-only figures of the whole home for `wren status`. */
export interface StatusStore {
  sessionCount(): number;
  consolidation(): ConsolidationStatus;
  proactive(): ProactiveSummary;
}

/** What a database backup holds: its schema version, the rows of each table and the file's size. */
export interface DatabaseSnapshot {
  schemaVersion: number;
  /** Rows per ordinary table, as the copy holds them (the state it was taken at). */
  counts: Record<string, number>;
  bytes: number;
}

/**
 * How old rows may get before they are pruned, in milliseconds; 0 keeps that kind forever. The same shape as
 * `config.retention` (which also has `execLogMs`, for files this store does not hold).
 */
export interface RetentionAges {
  /** Sessions not used (no message, no turn) for this long go, with their messages. */
  readonly messagesMs: number;
  /** Finished outbox runs whose deliveries are all sent or given up. */
  readonly outboxMs: number;
  /** Gate decisions in the audit log. */
  readonly auditMs: number;
  /** Activity feed entries. */
  readonly feedMs: number;
}

/** What one prune removed, and whether it compacted the file afterwards. */
export interface PruneResult {
  sessions: number;
  messages: number;
  outbox: number;
  audit: number;
  feed: number;
  /** The file was rewritten (VACUUM) because a large share of its pages were free. */
  vacuumed: boolean;
}

/** Space one table takes, its indexes and (for a full-text index) its shadow tables included. */
export interface TableSize {
  name: string;
  bytes: number;
}

/** How big the database is and what takes the space. */
export interface DatabaseSizeReport {
  /** The database file plus its write-ahead log, in bytes (pages × page size for an in-memory one). */
  fileBytes: number;
  walBytes: number;
  pageSize: number;
  pageCount: number;
  /** Pages free inside the file (what a VACUUM would give back). */
  freePages: number;
  /** Largest first; empty when SQLite was built without the dbstat table. */
  tables: TableSize[];
}

/**
 * Retention over the home's database: prunes old rows of the kinds that only pile up (stale sessions'
 * messages, finished outbox runs, audit entries, feed entries) and keeps the file from only growing.
 * Never touches tasks, memos, goals, reminders, grants, settings, usage or event triggers.
 */
export interface RetentionStore {
  /** Deletes what `ages` say is too old at `now`; compacts the file when it deleted anything. */
  prune(ages: RetentionAges, now: number): PruneResult;
  sizeReport(): DatabaseSizeReport;
}

/** The history of the instruction files (see FileVersionRepository). */
export type FileVersionStore = Pick<FileVersionRepository, 'record' | 'latest' | 'get' | 'previous' | 'list'>;

/** Dream's proposals to move a MEMORY.md line elsewhere (see MemoryProposalRepository). */
export type MemoryProposalStore = Pick<MemoryProposalRepository, 'add' | 'get' | 'list' | 'decide'>;

/** The vault's sealed rows (see VaultRepository). */
export type VaultStore = Pick<VaultRepository, 'put' | 'get' | 'list' | 'remove' | 'touch'>;
