import type { Database } from 'better-sqlite3';
import { defineLazy } from '../util/define-lazy.js';
import { AuditRepository } from './audit-repository.js';
import { backupDatabase } from './backup-database.js';
import { CalendarRepository } from './calendar-repository.js';
import { ChannelRepository } from './channel-repository.js';
import { consolidationStatus, SqliteConsolidationStatusStore } from './consolidation-status-repository.js';
import { CronJobRepository } from './cron-job-repository.js';
import { EmbeddingRepository } from './embedding-repository.js';
import { FileVersionRepository } from './file-version-repository.js';
import { GoalRepository } from './goal-repository.js';
import { GrantRepository } from './grant-repository.js';
import { McpPinRepository } from './mcp-pin-repository.js';
import { MemoRepository } from './memo-repository.js';
import { MemoryProposalRepository } from './memory-proposal-repository.js';
import { searchMessages } from './message-search-repository.js';
import {
  loadVectorExtension,
  openDatabase,
  type SchemaUpgrade,
  upgradeNotice,
  type VectorSupport,
} from './open-database.js';
import { OutboxRepository } from './outbox-repository.js';
import { PendingApprovalRepository } from './pending-approval-repository.js';
import type {
  AuditStore,
  CalendarStore,
  ChannelStore,
  ConsolidationStatusStore,
  ConversationStore,
  CronJobStore,
  DatabaseSnapshot,
  EmbeddingStore,
  FileVersionStore,
  GoalStore,
  GrantStore,
  McpPinStore,
  MemoryProposalStore,
  MemoStore,
  MessageSearchStore,
  OutboxStore,
  PendingApprovalStore,
  PushSubscriptionStore,
  ReminderStore,
  RetentionStore,
  SettingsStore,
  StatusStore,
  TaintStore,
  TaskStore,
  TriggerStore,
  UsageStore,
  VaultStore,
} from './ports.js';
import { proactiveSummary } from './proactive-summary.js';
import { PushSubscriptionRepository } from './push-subscription-repository.js';
import { ReminderRepository } from './reminder-repository.js';
import { RetentionRepository } from './retention-repository.js';
import { SettingsRepository } from './settings-repository.js';
import { SqliteSessionStore } from './sqlite-session-store.js';
import { TaintRepository } from './taint-repository.js';
import { TaskRepository } from './task-repository.js';
import { TriggerRepository } from './trigger-repository.js';
import { recordUsage, usageTotals } from './usage-repository.js';
import { VaultRepository } from './vault-repository.js';

export type * from './ports.js';
export type { SchemaUpgrade };
export { upgradeNotice };

export interface StoresOptions {
  /** The clock repositories stamp rows with (Unix ms); default Date.now. */
  clock?: () => number;
  /** The owner's IANA zone, for goals created without one. */
  timezone?: () => string;
  /** Told when opening upgraded the schema (after copying the old database to `backups/`). */
  onUpgrade?: (upgrade: SchemaUpgrade) => void;
}

/**
 * Every store of one home, each built once (on first use, so a command that needs one table prepares no
 * other statements). The bundle is the only way the rest of the code reaches storage; each member is a
 * port (see ports.ts), so a second backend can provide the same bundle.
 */
export interface Stores {
  readonly sessions: ConversationStore;
  readonly settings: SettingsStore;
  readonly channels: ChannelStore;
  readonly audit: AuditStore;
  readonly grants: GrantStore;
  readonly taint: TaintStore;
  readonly approvals: PendingApprovalStore;
  readonly memos: MemoStore;
  readonly tasks: TaskStore;
  readonly consolidation: ConsolidationStatusStore;
  readonly embeddings: EmbeddingStore;
  readonly messages: MessageSearchStore;
  readonly reminders: ReminderStore;
  readonly outbox: OutboxStore;
  readonly cronJobs: CronJobStore;
  readonly triggers: TriggerStore;
  readonly goals: GoalStore;
  readonly pushSubscriptions: PushSubscriptionStore;
  readonly mcpPins: McpPinStore;
  readonly usage: UsageStore;
  readonly status: StatusStore;
  readonly retention: RetentionStore;
  readonly calendars: CalendarStore;
  readonly fileVersions: FileVersionStore;
  readonly vault: VaultStore;
  readonly memoryProposals: MemoryProposalStore;
  /**
   * Makes vector search available (the SQLite store loads sqlite-vec, memoised); `path` overrides where the
   * extension is found. Never throws: the result says why it is unavailable.
   */
  loadVectors(path?: string): VectorSupport;
  /**
   * Writes a consistent copy of the whole database to `dest` (must not exist; its folder must) while the
   * stores stay in use, checks it and says what it holds (see backupDatabase).
   */
  backup(dest: string): Promise<DatabaseSnapshot>;
  /** Closes the connection; every store of the bundle is unusable afterwards. Idempotent. */
  close(): void;
}

/**
 * Opens the database file at `path` (created private and migrated when needed, see openDatabase) and builds
 * the bundle over it; `close()` closes the file. @throws StoreError as openDatabase does.
 */
export function openStoresAt(path: string, options: StoresOptions = {}): Stores {
  return openStores(openDatabase(path, options.onUpgrade ? { onUpgrade: options.onUpgrade } : {}), options);
}

/** Builds the bundle over a migrated database (see openDatabase); the bundle owns the connection from now on. */
export function openStores(db: Database, options: StoresOptions = {}): Stores {
  const clock = options.clock;
  let closed = false;
  const stores = {
    loadVectors: (path?: string) => loadVectorExtension(db, path),
    backup: (dest: string) => backupDatabase(db, dest),
    close() {
      if (closed) return;
      closed = true;
      db.close();
    },
  } as Stores;
  const define = <K extends keyof Stores>(name: K, build: () => Stores[K]) => defineLazy(stores, name, build);
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
  define('retention', () => new RetentionRepository(db));
  define('calendars', () => new CalendarRepository(db));
  define('fileVersions', () => new FileVersionRepository(db, clock));
  define('vault', () => new VaultRepository(db, clock));
  define('memoryProposals', () => new MemoryProposalRepository(db, clock));
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
