import type { Database } from 'better-sqlite3';

/** What kind of item an outbox run belongs to. */
export type OutboxKind =
  | 'reminder'
  | 'cron'
  | 'heartbeat'
  | 'goal'
  | 'checkin'
  | 'trigger'
  | 'tidy'
  | 'backup'
  | 'retention'
  | 'briefing';

/**
 * What a run does, frozen when the occurrence is claimed (a later edit of the item does not change a run
 * already claimed, and a replay after a crash runs the same thing).
 */
export interface OutboxPayload {
  /** Feed title, e.g. `Reminder`, `Daily briefing`. */
  title: string;
  /** notify: the text delivered as is; agent: the prompt run with tools; task: what the task is, for logs. */
  text: string;
  /** `task`: housekeeping run by code registered for the run's kind (the memory tidy), not by the runtime. */
  mode: 'notify' | 'agent' | 'task';
  /** Wren decided to run it (heartbeat, goal pass): it may answer `[quiet]` and waits out quiet hours. */
  autonomous: boolean;
  /** Delivery targets: `channel:chat` (`cli:terminal`, `telegram:123`) or `webhook:<name>`. */
  deliverTo: string[];
  /** The session an agent run continues (the conversation the item came from), when there is one. */
  sessionId?: string;
  /**
   * The prompt carries text from outside (a watched mail): the run does not speak as the owner, so the gate
   * treats its session as untrusted (anything that sends data out asks, and a scheduled run cannot ask).
   */
  untrusted?: boolean;
}

export type OutboxState = 'pending' | 'running' | 'done';
export type OutboxOutcome = 'delivered' | 'quiet' | 'failed';

export interface OutboxRun {
  id: number;
  sourceKey: string;
  kind: OutboxKind;
  ref: string;
  dueAt: number;
  late: boolean;
  payload: OutboxPayload;
  state: OutboxState;
  claimedAt: number;
  startedAt?: number;
  finishedAt?: number;
  attempts: number;
  outcome?: OutboxOutcome;
  result?: string;
  error?: string;
}

export interface Delivery {
  id: number;
  outboxId: number;
  sourceKey: string;
  target: string;
  state: 'pending' | 'sent' | 'failed';
  attempts: number;
  nextAttemptAt: number;
  lastError?: string;
  sentAt?: number;
  /** What to deliver (the run's result) and how to label it. */
  kind: OutboxKind;
  title: string;
  text: string;
  late: boolean;
  dueAt: number;
}

export interface FeedItem {
  id: number;
  outboxId?: number;
  kind: string;
  title: string;
  text: string;
  quiet: boolean;
  late: boolean;
  failed: boolean;
  createdAt: number;
  readAt?: number;
}

interface RunRow {
  id: number;
  source_key: string;
  kind: OutboxKind;
  ref: string;
  due_at: number;
  late: number;
  payload: string;
  state: OutboxState;
  claimed_at: number;
  started_at: number | null;
  finished_at: number | null;
  attempts: number;
  outcome: OutboxOutcome | null;
  result: string | null;
  error: string | null;
}

function toRun(row: RunRow): OutboxRun {
  return {
    id: row.id,
    sourceKey: row.source_key,
    kind: row.kind,
    ref: row.ref,
    dueAt: row.due_at,
    late: row.late === 1,
    payload: JSON.parse(row.payload) as OutboxPayload,
    state: row.state,
    claimedAt: row.claimed_at,
    ...(row.started_at !== null ? { startedAt: row.started_at } : {}),
    ...(row.finished_at !== null ? { finishedAt: row.finished_at } : {}),
    attempts: row.attempts,
    ...(row.outcome !== null ? { outcome: row.outcome } : {}),
    ...(row.result !== null ? { result: row.result } : {}),
    ...(row.error !== null ? { error: row.error } : {}),
  };
}

/** A claim to make: the occurrence's unique key, what it runs, and whether it runs late. */
export interface NewClaim {
  sourceKey: string;
  kind: OutboxKind;
  ref: string;
  dueAt: number;
  late: boolean;
  payload: OutboxPayload;
}

/**
 * The outbox (schema v5): every run of something due is claimed here before it runs, so an occurrence runs
 * once whatever happens. `claim` takes the occurrence's UNIQUE key together with the item's own change
 * (its advance to the next occurrence) in one IMMEDIATE transaction: a second claimer (another tick, another
 * process) finds the key taken and does nothing. `finish` records the outcome, the feed entry and one
 * pending delivery per target in one transaction; `markSent` confirms a delivery. After a crash,
 * `unfinished` lists the runs to run again and `dueDeliveries` what to send again.
 */
export class OutboxRepository {
  constructor(
    private readonly db: Database,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Claims `claim` and runs `advance` (the item's move to its next occurrence) in the same transaction.
   * @returns the new run, or undefined when the key was already claimed (then `advance` did not run).
   */
  claim(claim: NewClaim, advance: () => void): OutboxRun | undefined {
    const at = this.now();
    return this.db
      .transaction(() => {
        const info = this.db
          .prepare(
            `INSERT INTO outbox (source_key, kind, ref, due_at, late, payload, state, claimed_at)
             VALUES (?, ?, ?, ?, ?, ?, 'pending', ?) ON CONFLICT (source_key) DO NOTHING`,
          )
          .run(
            claim.sourceKey,
            claim.kind,
            claim.ref,
            claim.dueAt,
            claim.late ? 1 : 0,
            JSON.stringify(claim.payload),
            at,
          );
        if (info.changes === 0) return undefined;
        advance();
        return this.get(Number(info.lastInsertRowid));
      })
      .immediate();
  }

  get(id: number): OutboxRun | undefined {
    const row = this.db.prepare('SELECT * FROM outbox WHERE id = ?').get(id) as RunRow | undefined;
    return row ? toRun(row) : undefined;
  }

  bySourceKey(sourceKey: string): OutboxRun | undefined {
    const row = this.db.prepare('SELECT * FROM outbox WHERE source_key = ?').get(sourceKey) as
      | RunRow
      | undefined;
    return row ? toRun(row) : undefined;
  }

  /** Marks a run as started (one more attempt). */
  start(id: number): void {
    this.db
      .prepare("UPDATE outbox SET state = 'running', started_at = ?, attempts = attempts + 1 WHERE id = ?")
      .run(this.now(), id);
  }

  /**
   * Ends a run: outcome, result or error, a feed entry, and one pending delivery per target (none for a quiet
   * result, which goes to the feed only), in one transaction. `feed: false` (nothing happened worth showing)
   * records the outcome only: no feed entry, no delivery. Idempotent: a run already done is left alone.
   */
  finish(
    id: number,
    ended: {
      outcome: OutboxOutcome;
      text: string;
      error?: string;
      targets: readonly string[];
      feed?: boolean;
    },
  ): void {
    const at = this.now();
    this.db
      .transaction(() => {
        const run = this.get(id);
        if (!run || run.state === 'done') return;
        this.db
          .prepare(
            "UPDATE outbox SET state = 'done', finished_at = ?, outcome = ?, result = ?, error = ? WHERE id = ?",
          )
          .run(at, ended.outcome, ended.text, ended.error ?? null, id);
        if (ended.feed === false) return;
        this.db
          .prepare(
            `INSERT INTO feed (outbox_id, kind, title, text, quiet, late, failed, created_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (outbox_id) DO NOTHING`,
          )
          .run(
            id,
            run.kind,
            run.payload.title,
            ended.text,
            ended.outcome === 'quiet' ? 1 : 0,
            run.late ? 1 : 0,
            ended.outcome === 'failed' ? 1 : 0,
            at,
          );
        if (ended.outcome === 'quiet') return;
        const insert = this.db.prepare(
          `INSERT INTO deliveries (outbox_id, target, state, next_attempt_at)
           VALUES (?, ?, 'pending', ?) ON CONFLICT (outbox_id, target) DO NOTHING`,
        );
        for (const target of new Set(ended.targets)) insert.run(id, target, at);
      })
      .immediate();
  }

  /** Runs claimed but never finished (a crash, a kill, a shutdown mid-run), oldest first. */
  unfinished(): OutboxRun[] {
    return (
      this.db.prepare("SELECT * FROM outbox WHERE state != 'done' ORDER BY claimed_at, id").all() as RunRow[]
    ).map(toRun);
  }

  /** Deliveries to attempt now (pending and due), oldest first. */
  dueDeliveries(now: number, limit = 100): Delivery[] {
    return (
      this.db
        .prepare(
          `SELECT d.*, o.source_key, o.kind, o.due_at, o.late AS run_late, o.payload, o.result
           FROM deliveries d JOIN outbox o ON o.id = d.outbox_id
           WHERE d.state = 'pending' AND d.next_attempt_at <= ? ORDER BY d.next_attempt_at, d.id LIMIT ?`,
        )
        .all(now, limit) as DeliveryRow[]
    ).map(toDelivery);
  }

  /** The earliest pending delivery's next attempt, if any (for the wake timer). */
  nextDeliveryAt(): number | undefined {
    const row = this.db
      .prepare("SELECT min(next_attempt_at) AS at FROM deliveries WHERE state = 'pending'")
      .get() as { at: number | null };
    return row.at ?? undefined;
  }

  markSent(id: number): void {
    this.db
      .prepare("UPDATE deliveries SET state = 'sent', sent_at = ?, attempts = attempts + 1 WHERE id = ?")
      .run(this.now(), id);
  }

  /** A failed attempt: retried at `retryAt`, or given up (`state` failed) when `retryAt` is undefined. */
  markAttempt(id: number, error: string, retryAt: number | undefined): void {
    this.db
      .prepare(
        `UPDATE deliveries SET attempts = attempts + 1, last_error = ?,
           state = CASE WHEN ? IS NULL THEN 'failed' ELSE 'pending' END,
           next_attempt_at = coalesce(?, next_attempt_at) WHERE id = ?`,
      )
      .run(error, retryAt ?? null, retryAt ?? null, id);
  }

  deliveriesOf(outboxId: number): Array<Pick<Delivery, 'target' | 'state' | 'attempts' | 'lastError'>> {
    return (
      this.db
        .prepare('SELECT target, state, attempts, last_error FROM deliveries WHERE outbox_id = ? ORDER BY id')
        .all(outboxId) as Array<{
        target: string;
        state: Delivery['state'];
        attempts: number;
        last_error: string | null;
      }>
    ).map((row) => ({
      target: row.target,
      state: row.state,
      attempts: row.attempts,
      ...(row.last_error !== null ? { lastError: row.last_error } : {}),
    }));
  }

  /** Whether the run `outboxId` left a feed entry. */
  hasFeedEntry(outboxId: number): boolean {
    return this.db.prepare('SELECT 1 FROM feed WHERE outbox_id = ?').get(outboxId) !== undefined;
  }

  /** The feed, newest first. */
  feed(limit = 50, beforeId?: number): FeedItem[] {
    const rows = this.db
      .prepare(`SELECT * FROM feed WHERE (? IS NULL OR id < ?) ORDER BY created_at DESC, id DESC LIMIT ?`)
      .all(beforeId ?? null, beforeId ?? null, limit) as FeedRow[];
    return rows.map(toFeedItem);
  }

  /** Runs of one item (a reminder, a cron job), newest first. */
  runsOf(kind: OutboxKind, ref: string, limit = 20): OutboxRun[] {
    return (
      this.db
        .prepare('SELECT * FROM outbox WHERE kind = ? AND ref = ? ORDER BY due_at DESC, id DESC LIMIT ?')
        .all(kind, ref, limit) as RunRow[]
    ).map(toRun);
  }
}

interface DeliveryRow {
  id: number;
  outbox_id: number;
  target: string;
  state: Delivery['state'];
  attempts: number;
  next_attempt_at: number;
  last_error: string | null;
  sent_at: number | null;
  source_key: string;
  kind: OutboxKind;
  due_at: number;
  run_late: number;
  payload: string;
  result: string | null;
}

function toDelivery(row: DeliveryRow): Delivery {
  const payload = JSON.parse(row.payload) as OutboxPayload;
  return {
    id: row.id,
    outboxId: row.outbox_id,
    sourceKey: row.source_key,
    target: row.target,
    state: row.state,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    ...(row.last_error !== null ? { lastError: row.last_error } : {}),
    ...(row.sent_at !== null ? { sentAt: row.sent_at } : {}),
    kind: row.kind,
    title: payload.title,
    text: row.result ?? payload.text,
    late: row.run_late === 1,
    dueAt: row.due_at,
  };
}

interface FeedRow {
  id: number;
  outbox_id: number | null;
  kind: string;
  title: string;
  text: string;
  quiet: number;
  late: number;
  failed: number;
  created_at: number;
  read_at: number | null;
}

function toFeedItem(row: FeedRow): FeedItem {
  return {
    id: row.id,
    ...(row.outbox_id !== null ? { outboxId: row.outbox_id } : {}),
    kind: row.kind,
    title: row.title,
    text: row.text,
    quiet: row.quiet === 1,
    late: row.late === 1,
    failed: row.failed === 1,
    createdAt: row.created_at,
    ...(row.read_at !== null ? { readAt: row.read_at } : {}),
  };
}
