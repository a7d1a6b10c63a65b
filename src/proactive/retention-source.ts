import { lstatSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { RetentionConfig } from '../config/operations-config.js';
import type { OutboxKind, OutboxPayload } from '../store/outbox-repository.js';
import type { OutboxStore } from '../store/ports.js';
import type { PruneResult, RetentionStore } from '../store/retention-repository.js';
import { EXEC_LOG_DIR } from '../tools/exec/exec-log-dir.js';
import type { TaskOutcome, TaskRunner } from './run-executor.js';
import type { DueSource } from './scheduler.js';
import { slotKey, slotSource } from './slot-source.js';

const DAY = 24 * 60 * 60 * 1000;

/** The outbox kind of retention runs. */
export const RETENTION_KIND: OutboxKind = 'retention';

/** The outbox key of one day's prune: `retention:<ISO start of the UTC day>`. */
export const retentionKey = (slot: number): string => slotKey('retention', slot);

export { EXEC_LOG_DIR };

const PAYLOAD: OutboxPayload = {
  title: 'Retention',
  text: 'Prune old messages, outbox runs, audit and feed entries and exec logs; compact the database.',
  mode: 'task',
  autonomous: true,
  // The feed only: housekeeping speaks to no channel.
  deliverTo: [],
};

const keepsAll = (ages: RetentionConfig) =>
  ages.messagesMs <= 0 && ages.outboxMs <= 0 && ages.auditMs <= 0 && ages.feedMs <= 0 && ages.execLogMs <= 0;

/**
 * Retention as a `DueSource` named `retention`: one prune per UTC day, claimed under `retention:<day>` (see
 * slotSource); a day missed while Wren was down is pruned at the first tick after, older missed days are
 * not caught up — one prune covers them. Claims nothing while every age is 0 (keep everything). The run is
 * a `task` (`retentionTask`), not a turn: no model is called.
 */
export function retentionSource(deps: { config: () => RetentionConfig; outbox: OutboxStore }): DueSource {
  return slotSource({
    name: 'retention',
    kind: RETENTION_KIND,
    ref: 'database',
    payload: PAYLOAD,
    everyMs: () => (keepsAll(deps.config()) ? undefined : DAY),
    outbox: deps.outbox,
  });
}

export interface RetentionTaskDeps {
  store: RetentionStore;
  /** `config.retention`, read at each run. */
  config: () => RetentionConfig;
  /** The workspace folder (exec logs live in `<workspace>/.wren/exec`). */
  workspace: () => string;
  clock?: () => number;
}

/**
 * The runner of retention runs: prunes the database (see RetentionStore.prune) and the exec tool's saved
 * outputs older than `execLogMs`. Nothing pruned leaves no feed entry; otherwise one quiet entry says what
 * went. A failure is a failed run (the feed shows it) and the next day tries again.
 */
export function retentionTask(deps: RetentionTaskDeps): TaskRunner {
  return async () => {
    const now = (deps.clock ?? Date.now)();
    const ages = deps.config();
    const pruned = deps.store.prune(ages, now);
    const execLogs =
      ages.execLogMs > 0 ? pruneExecLogs(join(deps.workspace(), EXEC_LOG_DIR), now - ages.execLogMs) : 0;
    return retentionOutcome(pruned, execLogs);
  };
}

/** The feed entry of one prune (none when nothing went). Pure. */
export function retentionOutcome(pruned: PruneResult, execLogs: number): TaskOutcome {
  const parts = [
    pruned.sessions ? `${pruned.messages} messages of ${pruned.sessions} idle sessions` : '',
    pruned.outbox ? `${pruned.outbox} finished scheduler runs` : '',
    pruned.audit ? `${pruned.audit} audit entries` : '',
    pruned.feed ? `${pruned.feed} feed entries` : '',
    execLogs ? `${execLogs} saved command outputs` : '',
  ].filter(Boolean);
  if (parts.length === 0) return { outcome: 'quiet', text: 'Nothing old enough to prune.', feed: false };
  return {
    outcome: 'quiet',
    text: `Pruned ${parts.join(', ')}${pruned.vacuumed ? '; the database was compacted' : ''}.`,
  };
}

/**
 * Deletes the regular `*.log` files in `dir` last modified before `cutoff` (a command still writing its
 * log keeps it fresh). Never follows a link nor enters a folder. @returns how many went; a missing folder
 * is 0.
 */
export function pruneExecLogs(dir: string, cutoff: number): number {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    if (!name.endsWith('.log')) continue;
    const path = join(dir, name);
    try {
      const stat = lstatSync(path);
      if (!stat.isFile() || stat.mtimeMs >= cutoff) continue;
      rmSync(path);
      removed++;
    } catch {
      // Gone meanwhile, or not ours to delete: the next prune looks again.
    }
  }
  return removed;
}
