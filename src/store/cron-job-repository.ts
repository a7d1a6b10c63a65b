import type { Database } from 'better-sqlite3';

/** Where one cron job stands (schema v7); its definition lives in jobs.yaml. */
export interface CronJobState {
  name: string;
  /** The schedule `nextAt` was computed from. */
  cron: string;
  timezone: string;
  /** The next occurrence to run (UTC ms); undefined while disabled or when the cron has no future one. */
  nextAt?: number;
  definitionHash: string;
  updatedAt: number;
  /** A manual run asked for (`wren jobs run`) and not claimed yet. */
  runRequestedAt?: number;
}

/** A job as the sync sees it: its schedule, whether it runs, and the hash of its whole definition. */
export interface JobToSync {
  name: string;
  cron: string;
  timezone: string;
  enabled: boolean;
  hash: string;
}

interface Row {
  name: string;
  cron: string;
  timezone: string;
  next_at: number | null;
  definition_hash: string;
  updated_at: number;
  run_requested_at: number | null;
}

function toState(row: Row): CronJobState {
  return {
    name: row.name,
    cron: row.cron,
    timezone: row.timezone,
    ...(row.next_at !== null ? { nextAt: row.next_at } : {}),
    definitionHash: row.definition_hash,
    updatedAt: row.updated_at,
    ...(row.run_requested_at !== null ? { runRequestedAt: row.run_requested_at } : {}),
  };
}

/**
 * The scheduler's state of the cron jobs (schema v7). `sync` makes the rows follow the jobs in force; "what
 * is due" is one range of a partial index, however many jobs there are. Any process of a home may write
 * here (`wren jobs run` while `wren start` runs): the running scheduler sees the change at its next tick.
 */
export class CronJobRepository {
  constructor(
    private readonly db: Database,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Makes the rows follow `jobs` in one transaction, writing only what differs: a new job gets its first
   * occurrence (`firstAfterNow`), a changed cron or time zone is recomputed from now, a disabled job has no
   * next occurrence, a re-enabled one gets one from now, a job no longer listed loses its row. An unchanged
   * job keeps its `next_at`, so a reload never skips or repeats an occurrence. Idempotent.
   */
  sync(jobs: readonly JobToSync[], firstAfterNow: (job: JobToSync) => number | undefined): void {
    const rows = new Map(
      (this.db.prepare('SELECT * FROM cron_jobs').all() as Row[]).map((row) => [row.name, row]),
    );
    const changes: Array<() => void> = [];
    const at = this.now();
    for (const job of jobs) {
      const row = rows.get(job.name);
      rows.delete(job.name);
      const scheduleChanged = !row || row.cron !== job.cron || row.timezone !== job.timezone;
      const hashChanged = !row || row.definition_hash !== job.hash;
      if (!scheduleChanged && !hashChanged && (job.enabled || row.next_at === null)) continue;
      const recompute = scheduleChanged || !job.enabled || (row.next_at === null && hashChanged);
      changes.push(() => {
        // Undefined keeps the row's next occurrence (only the definition around it changed).
        let nextAt: number | null | undefined;
        if (recompute) nextAt = job.enabled ? (firstAfterNow(job) ?? null) : null;
        this.db
          .prepare(
            `INSERT INTO cron_jobs (name, cron, timezone, next_at, definition_hash, updated_at)
             VALUES (@name, @cron, @timezone, @nextAt, @hash, @at)
             ON CONFLICT (name) DO UPDATE SET cron = @cron, timezone = @timezone, definition_hash = @hash,
               updated_at = @at, next_at = CASE WHEN @keep THEN next_at ELSE @nextAt END`,
          )
          .run({
            name: job.name,
            cron: job.cron,
            timezone: job.timezone,
            hash: job.hash,
            nextAt: nextAt ?? null,
            at,
            keep: nextAt === undefined ? 1 : 0,
          });
      });
    }
    for (const name of rows.keys())
      changes.push(() => this.db.prepare('DELETE FROM cron_jobs WHERE name = ?').run(name));
    if (changes.length === 0) return;
    this.db
      .transaction(() => {
        for (const change of changes) change();
      })
      .immediate();
  }

  get(name: string): CronJobState | undefined {
    const row = this.db.prepare('SELECT * FROM cron_jobs WHERE name = ?').get(name) as Row | undefined;
    return row ? toState(row) : undefined;
  }

  list(): CronJobState[] {
    return (this.db.prepare('SELECT * FROM cron_jobs ORDER BY name').all() as Row[]).map(toState);
  }

  /** Jobs with an occurrence due at `now` or a manual run requested. */
  due(now: number): CronJobState[] {
    return (
      this.db
        .prepare(
          `SELECT * FROM cron_jobs WHERE next_at <= ?
           UNION SELECT * FROM cron_jobs WHERE run_requested_at IS NOT NULL ORDER BY name`,
        )
        .all(now) as Row[]
    ).map(toState);
  }

  /** The earliest next occurrence of any job, if any. */
  nextDue(): number | undefined {
    const row = this.db.prepare('SELECT min(next_at) AS at FROM cron_jobs').get() as { at: number | null };
    return row.at ?? undefined;
  }

  /** Moves a job from its occurrence `from` to `next` (undefined: none). No-op when it already moved. */
  advance(name: string, from: number, next: number | undefined): void {
    this.db
      .prepare('UPDATE cron_jobs SET next_at = ?, updated_at = ? WHERE name = ? AND next_at = ?')
      .run(next ?? null, this.now(), name, from);
  }

  /**
   * Asks the scheduler for one manual run of `job` (claimed at its next tick). A job that has no row yet
   * (Wren has not run since it was added) gets one, with an empty hash so the scheduler's next sync gives it
   * its first occurrence. Asking again before the run is claimed asks once.
   */
  requestRun(job: Pick<JobToSync, 'name' | 'cron' | 'timezone'>, at: number): void {
    this.db
      .prepare(
        `INSERT INTO cron_jobs (name, cron, timezone, next_at, definition_hash, updated_at, run_requested_at)
         VALUES (?, ?, ?, NULL, '', ?, ?)
         ON CONFLICT (name) DO UPDATE SET run_requested_at = coalesce(run_requested_at, excluded.run_requested_at)`,
      )
      .run(job.name, job.cron, job.timezone, at, at);
  }

  /** Clears the manual run request made at `requestedAt` (a newer request stays). */
  clearRequest(name: string, requestedAt: number): void {
    this.db
      .prepare('UPDATE cron_jobs SET run_requested_at = NULL WHERE name = ? AND run_requested_at = ?')
      .run(name, requestedAt);
  }
}
