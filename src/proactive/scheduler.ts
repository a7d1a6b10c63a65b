import type { OutboxRun } from '../store/outbox-repository.js';
import { Semaphore } from '../util/semaphore.js';

/** One kind of due items (reminders, cron jobs, the heartbeat, goal passes). */
export interface DueSource {
  readonly name: string;
  /**
   * Claims everything of this source due at `now` in the outbox (each claim one transaction with the item's
   * advance) and returns the runs claimed. Must be cheap when nothing is due: one indexed query.
   */
  claimDue(now: number): OutboxRun[];
  /** When something of this source is next due, if known (the wake timer uses the earliest). */
  nextDue(now: number): number | undefined;
  /**
   * Runs nobody asked for by name (scheduled backups, retention): the wake timer counts them, but the next-due
   * time the owner is shown (onNextDue) does not, so "next" stays the next reminder, job or check.
   */
  readonly housekeeping?: boolean;
}

/** Executes claimed runs and sends their deliveries; the scheduler only decides when. */
export interface RunExecutor {
  /** Runs one claimed (or replayed) run to its end; never rejects. */
  run(run: OutboxRun): Promise<void>;
  /** Sends the deliveries due at `now`; never rejects. */
  deliver(now: number): Promise<void>;
  /** The next delivery retry, if any. */
  nextDelivery(): number | undefined;
  /** Runs a crash left unfinished, to run again at start. */
  unfinished(): OutboxRun[];
}

export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface SchedulerOptions {
  sources: readonly DueSource[];
  executor: RunExecutor;
  clock?: () => number;
  timers?: Timers;
  /** The longest the loop sleeps (default 30 s): edits made by other processes are seen within this. */
  maxSleepMs?: number;
  /** Runs going on at once (default 2); more wait for the next tick. */
  maxRunning?: number;
  onError?: (error: unknown) => void;
  /**
   * Told when the earliest scheduled item becomes due at another time (or nothing is scheduled any more), after
   * a tick — for `wren status` and the web app. The loop's own 30 s look-around is not such an item.
   */
  onNextDue?: (at: number | undefined) => void;
}

/** How soon the loop looks again when a source reports something due that it did not claim. */
const PAST_DUE_RETRY_MS = 1_000;

const realTimers: Timers = {
  setTimeout: (callback, ms) => {
    const handle = setTimeout(callback, ms);
    handle.unref();
    return handle;
  },
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/**
 * The one scheduler loop of a home. Each tick asks every source, in order, to claim what is due (reminders →
 * cron jobs → triggers → at most one goal pass), starts the claimed runs (bounded), sends due deliveries, and
 * sleeps until the earliest next due time or `maxSleepMs`, whichever is sooner. A tick with nothing due costs
 * a few indexed queries and no model call. `wake()` (POST /api/tick, a local edit) ticks at once. `start()`
 * first runs again what a crash left unfinished.
 */
export class Scheduler {
  private readonly clock: () => number;
  private readonly timers: Timers;
  private timer: unknown;
  /** The last time told to onNextDue (so it hears only of changes). */
  private reportedDue: number | undefined | null = null;
  private ticking: Promise<void> | undefined;
  private again = false;
  private stopped = true;
  private readonly running = new Map<number, Promise<void>>();
  private readonly slots: Semaphore;

  constructor(private readonly options: SchedulerOptions) {
    this.clock = options.clock ?? Date.now;
    this.timers = options.timers ?? realTimers;
    this.slots = new Semaphore(options.maxRunning ?? 2);
  }

  /** Replays unfinished runs, then ticks and keeps ticking. Idempotent. */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    for (const run of this.options.executor.unfinished()) this.launch(run);
    this.wake();
  }

  /** Ticks now (or right after the tick in progress). */
  wake(): void {
    if (this.stopped) return;
    if (this.ticking) {
      this.again = true;
      return;
    }
    this.timers.clearTimeout(this.timer);
    this.ticking = this.tick().finally(() => {
      this.ticking = undefined;
      if (this.again && !this.stopped) {
        this.again = false;
        this.wake();
      }
    });
  }

  /** One pass; resolves when the claimed runs have been started (not finished). Exposed for tests. */
  async tick(): Promise<void> {
    const now = this.clock();
    try {
      for (const source of this.options.sources) {
        for (const run of source.claimDue(now)) this.launch(run);
      }
      await this.options.executor.deliver(now);
    } catch (error) {
      this.options.onError?.(error);
    }
    this.arm(now);
  }

  /** Resolves when every run started so far has finished (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.running.size > 0 || this.ticking) {
      await Promise.allSettled([...this.running.values(), this.ticking]);
    }
  }

  /** Stops ticking; runs in progress finish (await `idle()` to wait for them). */
  stop(): void {
    this.stopped = true;
    this.timers.clearTimeout(this.timer);
  }

  /** The next time the loop wakes on its own. */
  nextWake(): number {
    const now = this.clock();
    return Math.min(now + (this.options.maxSleepMs ?? 30_000), this.nextDue(now) ?? Number.POSITIVE_INFINITY);
  }

  /** When the earliest scheduled item (or retried delivery) is due; undefined when nothing is scheduled. */
  nextDue(now = this.clock(), options: { housekeeping?: boolean } = {}): number | undefined {
    const sources = this.options.sources.filter(
      (source) => options.housekeeping !== false || !source.housekeeping,
    );
    const candidates = [
      ...sources.map((source) => source.nextDue(now)),
      this.options.executor.nextDelivery(),
    ].filter((at): at is number => at !== undefined);
    return candidates.length > 0 ? Math.min(...candidates) : undefined;
  }

  /** Sets the wake-up timer after the tick that looked at `tickedAt`. */
  private arm(tickedAt: number): void {
    if (this.stopped) return;
    const wakeAt = this.nextWake();
    const due = this.nextDue(this.clock(), { housekeeping: false });
    if (due !== this.reportedDue) {
      this.reportedDue = due;
      this.options.onNextDue?.(due);
    }
    this.timers.clearTimeout(this.timer);
    // What was due at `tickedAt` was just claimed: a wake time not after it is something a source cannot
    // take yet (a claim that keeps failing). Looking again after a moment keeps that from spinning the loop.
    const delay = wakeAt <= tickedAt ? PAST_DUE_RETRY_MS : Math.max(0, wakeAt - this.clock());
    this.timer = this.timers.setTimeout(() => this.wake(), delay);
  }

  private launch(run: OutboxRun): void {
    if (this.running.has(run.id)) return;
    const job: Promise<void> = this.slots
      .run(() => this.options.executor.run(run), undefined, undefined)
      .then(
        () => undefined,
        (error: unknown) => this.options.onError?.(error),
      )
      .finally(() => {
        this.running.delete(run.id);
        // A run's deliveries are due at once: send them without waiting for the next tick.
        this.wake();
      });
    this.running.set(run.id, job);
  }
}
