import type { OutboxKind, OutboxPayload, OutboxRun } from '../store/outbox-repository.js';
import type { OutboxStore } from '../store/ports.js';
import type { TaskOutcome, TaskRunner } from './run-executor.js';
import type { DueSource } from './scheduler.js';

/** The outbox kind of scheduled backups. */
export const BACKUP_KIND: OutboxKind = 'backup';

/** The outbox key of one backup slot: `backup:<ISO start of the slot>`. */
export function backupKey(slot: number): string {
  return `backup:${new Date(slot).toISOString()}`;
}

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
 * Scheduled backups as a `DueSource` named `backup`. Time is cut into slots of `backup.every` (slot =
 * floor(now / every) × every); each slot is claimed once, under `backup:<slot>`, so two ticks or two
 * processes back up a slot once. After downtime the current slot runs (late slots are not caught up one by
 * one: one fresh backup is what is wanted). Off (claims and queries nothing) while `every` is unset.
 */
export function backupSource(deps: BackupSourceDeps): DueSource {
  /** The slot last claimed (or found claimed) by this process: each tick after it costs no write. */
  let handled: number | undefined;
  return {
    name: 'backup',
    claimDue(now): OutboxRun[] {
      const every = deps.everyMs();
      if (!every) return [];
      const slot = now - (now % every);
      if (slot === handled) return [];
      handled = slot;
      const run = deps.outbox.claim(
        {
          sourceKey: backupKey(slot),
          kind: BACKUP_KIND,
          ref: 'home',
          dueAt: slot,
          late: false,
          payload: PAYLOAD,
        },
        () => {},
      );
      return run ? [run] : [];
    },
    nextDue(now) {
      const every = deps.everyMs();
      if (!every) return undefined;
      const slot = now - (now % every);
      return slot === handled ? slot + every : slot;
    },
  };
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
