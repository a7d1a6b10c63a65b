import * as z from 'zod';
import { parseDuration } from '../proactive/parse-duration.js';
import { fromString } from '../util/from-string.js';

const integer = (min: number, max: number) => z.preprocess(fromString, z.number().int().min(min).max(max));
const DAY = 24 * 60 * 60 * 1000;
const HOUR = 60 * 60 * 1000;

/**
 * `backup:` in config.yaml — scheduled backups of the home (off unless `every` is set):
 *
 * ```yaml
 * backup:
 *   every: 1d        # a duration, at least 1h ("12h", "1d", "1w"); absent = no scheduled backups
 *   keep: 7          # archives kept in `to`; older scheduled ones are deleted
 *   to: backups      # folder for the archives, relative to the home (default <home>/backups)
 * ```
 * Scheduled backups never include secrets (`wren backup --with-secrets` is a deliberate, manual act).
 */
export const backupSectionSchema = z.strictObject({
  every: z
    .string()
    .trim()
    .refine((text) => (parseDuration(text) ?? 0) >= HOUR, {
      message: 'use a duration of at least an hour, such as 12h, 1d or 1w',
    })
    .optional(),
  keep: integer(1, 1000).default(7),
  to: z.string().trim().min(1).default('backups'),
});

/**
 * `retention:` in config.yaml — how many days old rows are kept before the scheduler prunes them (0 = keep
 * forever). Tasks, memos, goals, reminders still pending and the memory files are never pruned.
 *
 * ```yaml
 * retention:
 *   messages_days: 365   # chat messages of sessions not used for this long
 *   outbox_days: 90      # delivered or failed scheduler deliveries
 *   audit_days: 90       # the gate's audit log
 *   feed_days: 90        # the activity feed
 *   exec_log_days: 30    # saved output of shell commands
 * ```
 */
export const retentionSectionSchema = z.strictObject({
  messages_days: integer(0, 36_500).default(365),
  outbox_days: integer(0, 36_500).default(90),
  audit_days: integer(0, 36_500).default(90),
  feed_days: integer(0, 36_500).default(90),
  exec_log_days: integer(0, 36_500).default(30),
});

export type BackupSection = z.output<typeof backupSectionSchema>;
export type RetentionSection = z.output<typeof retentionSectionSchema>;

export interface BackupConfig {
  /** Interval of scheduled backups; undefined = none. */
  readonly everyMs?: number;
  readonly keep: number;
  /** Absolute path of the folder scheduled backups go to. */
  readonly dir: string;
}

/** Ages in milliseconds after which rows are pruned; 0 = never. */
export interface RetentionConfig {
  readonly messagesMs: number;
  readonly outboxMs: number;
  readonly auditMs: number;
  readonly feedMs: number;
  readonly execLogMs: number;
}

/** Maps a parsed `backup:` section; `resolve` makes `to` absolute against the home. Pure. */
export function toBackupConfig(parsed: BackupSection, resolve: (path: string) => string): BackupConfig {
  const everyMs = parsed.every === undefined ? undefined : parseDuration(parsed.every);
  return { ...(everyMs === undefined ? {} : { everyMs }), keep: parsed.keep, dir: resolve(parsed.to) };
}

/** Maps a parsed `retention:` section. Pure. */
export function toRetentionConfig(parsed: RetentionSection): RetentionConfig {
  return {
    messagesMs: parsed.messages_days * DAY,
    outboxMs: parsed.outbox_days * DAY,
    auditMs: parsed.audit_days * DAY,
    feedMs: parsed.feed_days * DAY,
    execLogMs: parsed.exec_log_days * DAY,
  };
}
