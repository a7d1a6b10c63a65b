import type { Delivery, OutboxKind, OutboxOutcome, OutboxRun } from '../store/outbox-repository.js';
import type { OutboxStore } from '../store/ports.js';
import type { RunExecutor } from './scheduler.js';

/** What an agent-mode run produced: the reply, or why there is none. */
export interface AgentRunResult {
  text: string;
  failed: boolean;
}

/**
 * How a task run (payload mode `task`) ended. `feed: false` when nothing happened worth showing (no feed
 * entry, no delivery); otherwise the result goes to the feed and, unless quiet, to the payload's targets.
 */
export interface TaskOutcome {
  outcome: OutboxOutcome;
  text: string;
  error?: string;
  feed?: boolean;
}

/** Runs one task run (housekeeping such as the memory tidy); rejecting counts as a failed run. */
export type TaskRunner = (run: OutboxRun, signal: AbortSignal) => Promise<TaskOutcome>;

/**
 * Sends one delivery to one kind of target; resolves when the target took it, rejects with why not (retried
 * with backoff; an error with `permanent: true` gives up at once, one with `retryAfterMs` waits at least that).
 */
export type Deliverer = (delivery: Delivery, signal: AbortSignal) => Promise<void>;

/** A target that cannot take deliveries right now (a channel that is not connected): retried later. */
export class TargetUnavailable extends Error {
  override name = 'TargetUnavailable';
}

export interface RunExecutorOptions {
  outbox: OutboxStore;
  /** Runs an agent-mode or autonomous prompt as a turn (through the runtime) and returns the reply. */
  runAgent(run: OutboxRun, signal: AbortSignal): Promise<AgentRunResult>;
  /** By target scheme: `webhook:<name>`, `push:all`; `channel` for every other `<channel>:<chat>`. */
  deliverers: { channel: Deliverer; webhook?: Deliverer; push?: Deliverer };
  clock?: () => number;
  /** Retry schedule of a failed delivery, by attempt (1-based); undefined gives up. Default: see below. */
  retryAfterMs?: (attempt: number, delivery: Delivery) => number | undefined;
  onError?: (error: unknown) => void;
  signal?: AbortSignal;
  /** Targets every delivered run also goes to, besides its own (`push:all` while web push is on). */
  extraTargets?: () => readonly string[];
  /** Runners of task runs, by kind; a task run of a kind without one fails. */
  tasks?: Partial<Record<OutboxKind, TaskRunner>>;
}

/**
 * A deliverer's error may carry `permanent: true` (the target refused for good: the delivery is given up at
 * once) or a numeric `retryAfterMs` (the target asked to wait: the next attempt is no sooner than that).
 */
function isPermanent(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { permanent?: unknown }).permanent === true;
}

function retryHintOf(error: unknown): number {
  const hint =
    typeof error === 'object' && error !== null ? (error as { retryAfterMs?: unknown }).retryAfterMs : 0;
  return typeof hint === 'number' && Number.isFinite(hint) ? hint : 0;
}

/** Autonomous runs answer this (first thing in the reply) when nothing needs the owner. */
export const QUIET = '[quiet]';

/** A delivery is given up a day after its run's occurrence. */
const GIVE_UP_AFTER_MS = 24 * 60 * 60_000;

/** 30 s, 1 min, 2 min … up to 1 h between attempts; given up a day after the occurrence. */
export function defaultRetryAfter(attempt: number, delivery: Delivery, now: number): number | undefined {
  if (now - delivery.dueAt > GIVE_UP_AFTER_MS) return undefined;
  return Math.min(60 * 60_000, 30_000 * 2 ** Math.max(0, attempt - 1));
}

/**
 * Runs claimed outbox runs and sends their deliveries. A notify run delivers its text as it is (no model
 * call); an agent run goes through the runtime, and an autonomous one whose reply starts with `[quiet]` goes
 * to the feed only; a task run is done by the runner registered for its kind (`tasks`), outside the runtime.
 * A run that fails still ends (the owner is told it failed): only a run the process never
 * finished is run again. Each delivery is sent until its target confirms it; a crash between sending and
 * confirming re-sends with the same idempotency key (the outbox key), which the target can drop.
 */
export function createRunExecutor(options: RunExecutorOptions): RunExecutor {
  const clock = options.clock ?? Date.now;
  const signal = options.signal ?? new AbortController().signal;
  const { outbox } = options;

  const outcomeOf = async (run: OutboxRun): Promise<TaskOutcome> => {
    const { payload } = run;
    if (payload.mode === 'notify') return { outcome: 'delivered' as const, text: payload.text };
    if (payload.mode === 'task') {
      const runner = options.tasks?.[run.kind];
      if (!runner) throw new Error(`nothing runs ${run.kind} tasks in this process`);
      return runner(run, signal);
    }
    const result = await options.runAgent(run, signal);
    if (result.failed) {
      return {
        outcome: 'failed' as const,
        text: `${payload.title} could not run: ${result.text}`,
        error: result.text,
      };
    }
    const reply = result.text.trim();
    if (payload.autonomous && reply.toLowerCase().startsWith(QUIET))
      return { outcome: 'quiet' as const, text: reply.slice(QUIET.length).trim() || 'Nothing needed you.' };
    return { outcome: 'delivered' as const, text: reply || '(no reply)' };
  };

  // A task run goes to its own targets only: housekeeping is not pushed to every browser.
  const targetsOf = (run: OutboxRun) =>
    run.payload.mode === 'task'
      ? run.payload.deliverTo
      : [...run.payload.deliverTo, ...(options.extraTargets?.() ?? [])];

  return {
    async run(run) {
      try {
        outbox.start(run.id);
        const ended = await outcomeOf(run);
        if (signal.aborted) return; // shutting down: left unfinished, run again at the next start
        outbox.finish(run.id, { ...ended, targets: targetsOf(run) });
      } catch (error) {
        options.onError?.(error);
        if (signal.aborted) return;
        const message = error instanceof Error ? error.message : String(error);
        outbox.finish(run.id, {
          outcome: 'failed',
          text: `${run.payload.title} could not run: ${message}`,
          error: message,
          targets: targetsOf(run),
        });
      }
    },
    async deliver(now) {
      for (const delivery of outbox.dueDeliveries(now)) {
        const scheme = delivery.target.slice(0, delivery.target.indexOf(':'));
        const deliverer =
          scheme === 'webhook'
            ? options.deliverers.webhook
            : scheme === 'push'
              ? options.deliverers.push
              : options.deliverers.channel;
        try {
          if (!deliverer) throw new Error(`nothing delivers to ${delivery.target}`);
          await deliverer(delivery, signal);
          outbox.markSent(delivery.id);
        } catch (error) {
          const attempt = delivery.attempts + 1;
          const backoff = isPermanent(error)
            ? undefined
            : options.retryAfterMs
              ? options.retryAfterMs(attempt, delivery)
              : defaultRetryAfter(attempt, delivery, clock());
          const wait = backoff === undefined ? undefined : Math.max(backoff, retryHintOf(error));
          outbox.markAttempt(
            delivery.id,
            error instanceof Error ? error.message : String(error),
            wait === undefined ? undefined : clock() + wait,
          );
          if (!(error instanceof TargetUnavailable)) options.onError?.(error);
        }
      }
    },
    nextDelivery: () => outbox.nextDeliveryAt(),
    unfinished: () => outbox.unfinished(),
  };
}
