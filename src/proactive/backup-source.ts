import type { OutboxKind, OutboxPayload } from '../store/outbox-repository.js';
import type { OutboxStore } from '../store/ports.js';
import type { TaskOutcome, TaskRunner } from './run-executor.js';
import type { DueSource } from './scheduler.js';
import { slotKey, slotSource } from './slot-source.js';

/** The outbox kind of scheduled backups. */
export const BACKUP_KIND: OutboxKind = 'backup';

/** The outbox key of one backup slot: `backup:<ISO start of the slot>`. */
export const backupKey = (slot: number): string => slotKey('backup', slot);

const PAYLOAD: OutboxPayload = {
  title: 'Backup',
  text: 'Write a backup of the home (without secrets) and prune old scheduled ones.',
  mode: 'task',
  autonomous: true,
  // The feed only: a backup speaks to no channel.
  deliverTo: [],
};

export interface BackupSourceDeps {
  /** `backup.every` in ms, read at every tick; undefined: scheduled backups are off. */
  everyMs: () => number | undefined;
  outbox: OutboxStore;
}

/**
 * Scheduled backups as a `DueSource` named `backup`: one per slot of `backup.every`, claimed under
 * `backup:<slot>` (see slotSource); off while `every` is unset.
 */
export function backupSource(deps: BackupSourceDeps): DueSource {
  return slotSource({
    name: 'backup',
    kind: BACKUP_KIND,
    ref: 'home',
    payload: PAYLOAD,
    everyMs: deps.everyMs,
    outbox: deps.outbox,
  });
}

/** What a scheduled backup needs of the backup service (services/backup-service.ts). */
export interface ScheduledBackups {
  create(request: {
    scheduled: true;
  }): Promise<{ ok: true; file: string; bytes: number } | { ok: false; error: string }>;
  /** Removes scheduled archives beyond `backup.keep`; returns what it removed. */
  prune(): string[];
}

/**
 * The runner of backup task runs: writes a scheduled archive (never with secrets), then prunes the
 * scheduled ones to `keep`. The outcome is one quiet feed entry (the feed only), or a failed one saying why.
 */
export function backupTask(backups: ScheduledBackups): TaskRunner {
  return async (): Promise<TaskOutcome> => {
    const made = await backups.create({ scheduled: true });
    if (!made.ok) return { outcome: 'failed', text: `Backup failed: ${made.error}`, error: made.error };
    const pruned = backups.prune();
    const kb = Math.max(1, Math.round(made.bytes / 1000));
    return {
      outcome: 'quiet',
      text: `Backup written: ${made.file} (${kb} kB)${pruned.length ? `; removed ${pruned.length} older` : ''}.`,
    };
  };
}
