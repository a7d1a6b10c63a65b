import type { Database } from 'better-sqlite3';
import { AuditRepository } from './audit-repository.js';
import { ChannelRepository } from './channel-repository.js';
import {
  type ConsolidationStatus,
  consolidationStatus,
  SqliteConsolidationStatusStore,
} from './consolidation-status-repository.js';
import { CronJobRepository } from './cron-job-repository.js';
import { EmbeddingRepository } from './embedding-repository.js';
import { GoalRepository } from './goal-repository.js';
import { GrantRepository } from './grant-repository.js';
import { McpPinRepository } from './mcp-pin-repository.js';
import { MemoRepository } from './memo-repository.js';
import { type MessageHit, type MessageSearchQuery, searchMessages } from './message-search-repository.js';
import { loadVectorExtension, type VectorSupport } from './open-database.js';
import { OutboxRepository } from './outbox-repository.js';
import { PendingApprovalRepository } from './pending-approval-repository.js';
import { type ProactiveSummary, proactiveSummary } from './proactive-summary.js';
import { PushSubscriptionRepository } from './push-subscription-repository.js';
import { ReminderRepository } from './reminder-repository.js';
import { SettingsRepository } from './settings-repository.js';
import { SqliteSessionStore } from './sqlite-session-store.js';
import { TaintRepository } from './taint-repository.js';
import { TaskRepository } from './task-repository.js';
import { TriggerRepository } from './trigger-repository.js';
import {
  recordUsage,
  type UsageQuery,
  type UsageRecord,
  type UsageTotals,
  usageTotals,
} from './usage-repository.js';

export interface StoresOptions {
  /** The clock repositories stamp rows with (Unix ms); default Date.now. */
  clock?: () => number;
  /** The owner's IANA zone, for goals created without one. */
  timezone?: () => string;
}

/** Token usage per model call (for `wren status` and `GET /api/status`). */
export interface UsageStore {
  record(record: UsageRecord): void;
  totals(query?: UsageQuery): UsageTotals;
}

/** Full-text search over past messages. */
export interface MessageSearchStore {
  search(query: MessageSearchQuery): MessageHit[];
}

/** Read-only figures of the whole home for `wren status`. */
export interface StatusStore {
  sessionCount(): number;
  consolidation(): ConsolidationStatus;
  proactive(): ProactiveSummary;
}

/**
 * Every repository of one home's database, each built once (on first use, so a command that needs one
 * table prepares no other statements). The bundle is the only way the rest of the code reaches storage.
 */
export interface Stores {
  readonly sessions: SqliteSessionStore;
  readonly settings: SettingsRepository;
  readonly channels: ChannelRepository;
  readonly audit: AuditRepository;
  readonly grants: GrantRepository;
  readonly taint: TaintRepository;
  readonly approvals: PendingApprovalRepository;
  readonly memos: MemoRepository;
  readonly tasks: TaskRepository;
  readonly consolidation: SqliteConsolidationStatusStore;
  readonly embeddings: EmbeddingRepository;
  readonly messages: MessageSearchStore;
  readonly reminders: ReminderRepository;
  readonly outbox: OutboxRepository;
  readonly cronJobs: CronJobRepository;
  readonly triggers: TriggerRepository;
  readonly goals: GoalRepository;
  readonly pushSubscriptions: PushSubscriptionRepository;
  readonly mcpPins: McpPinRepository;
  readonly usage: UsageStore;
  readonly status: StatusStore;
  /**
   * Makes vector search available (loads sqlite-vec into the connection, memoised by the extension loader);
   * `path` overrides where the extension is found. Never throws: the result says why it is unavailable.
   */
  loadVectors(path?: string): VectorSupport;
  /** Closes the connection; every repository of the bundle is unusable afterwards. Idempotent. */
  close(): void;
}

/** Defines `name` on `target` as a getter that builds its value on first use and keeps it. */
function lazy<T extends object, K extends keyof T>(target: T, name: K, build: () => T[K]): void {
  let value: T[K] | undefined;
  Object.defineProperty(target, name, {
    enumerable: true,
    get: () => {
      value ??= build();
      return value;
    },
  });
}

/** Builds the bundle over a migrated database (see openDatabase); the bundle owns the connection from now on. */
export function openStores(db: Database, options: StoresOptions = {}): Stores {
  const clock = options.clock;
  let closed = false;
  const stores = {
    loadVectors: (path?: string) => loadVectorExtension(db, path),
    close() {
      if (closed) return;
      closed = true;
      db.close();
    },
  } as Stores;
  const define = <K extends keyof Stores>(name: K, build: () => Stores[K]) => lazy(stores, name, build);
  define('sessions', () => new SqliteSessionStore(db, clock));
  define('settings', () => new SettingsRepository(db));
  define('channels', () => new ChannelRepository(db));
  define('audit', () => new AuditRepository(db));
  define('grants', () => new GrantRepository(db, clock));
  define('taint', () => new TaintRepository(db));
  define('approvals', () => new PendingApprovalRepository(db));
  define('memos', () => new MemoRepository(db, clock));
  define('tasks', () => new TaskRepository(db, clock));
  define('consolidation', () => new SqliteConsolidationStatusStore(db));
  define('embeddings', () => new EmbeddingRepository(db, clock));
  define('messages', () => ({ search: (query) => searchMessages(db, query) }));
  define('reminders', () => new ReminderRepository(db, clock));
  define('outbox', () => new OutboxRepository(db, clock));
  define('cronJobs', () => new CronJobRepository(db, clock));
  define('triggers', () => new TriggerRepository(db));
  define(
    'goals',
    () =>
      new GoalRepository(db, {
        ...(clock ? { now: clock } : {}),
        ...(options.timezone ? { timezone: options.timezone } : {}),
      }),
  );
  define('pushSubscriptions', () => new PushSubscriptionRepository(db, clock));
  define('mcpPins', () => new McpPinRepository(db, clock));
  define('usage', () => ({
    record: (record) => recordUsage(db, record),
    totals: (query) => usageTotals(db, query),
  }));
  define('status', () => ({
    sessionCount: () => (db.prepare('SELECT count(*) AS n FROM sessions').get() as { n: number }).n,
    consolidation: () => consolidationStatus(db),
    proactive: () => proactiveSummary(db),
  }));
  return stores;
}
