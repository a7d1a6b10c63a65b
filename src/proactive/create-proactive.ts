import type { MessageBus } from '../bus/message-bus.js';
import { acquireHomeLock, type HomeLock, HomeLockedError } from '../store/home-lock.js';
import type { Stores } from '../store/open-stores.js';
import type { Delivery, OutboxRun } from '../store/outbox-repository.js';
import type { OutboxStore, ReminderStore } from '../store/ports.js';
import type { ProactiveConfig } from './proactive-config.js';
import { reminderSource } from './reminder-source.js';
import {
  type AgentRunResult,
  createRunExecutor,
  type Deliverer,
  type RunExecutorOptions,
  TargetUnavailable,
} from './run-executor.js';
import { type DueSource, type RunExecutor, Scheduler, type Timers } from './scheduler.js';
import { createWebhookDeliverer } from './webhook-deliverer.js';

export interface ProactiveDeps {
  home: string;
  /** The home's stores: reminders, the outbox and feed, web push subscriptions (their clock stamps rows). */
  stores: Pick<Stores, 'reminders' | 'outbox' | 'pushSubscriptions'>;
  bus: MessageBus;
  /** The owner's own chat on a channel (the target `telegram:owner`), when the channel knows one. */
  ownerChat?: (channel: string) => string | undefined;
  config: () => ProactiveConfig;
  clock?: () => number;
  timers?: Timers;
  /** More sources after the reminders (cron jobs, the heartbeat, goal passes), in tick order. */
  sources?: (repositories: { outbox: OutboxStore }) => DueSource[];
  /** Deliverers for targets other than channels (`webhook:`, `push:`). */
  deliverers?: Partial<Record<'webhook' | 'push', Deliverer>>;
  /** Runners of task runs by kind (the memory tidy). */
  tasks?: RunExecutorOptions['tasks'];
  onError?: (error: unknown) => void;
  /** Told the next wake-up time after every tick (the gateway broadcasts it). */
  onNextDue?: (at: number | undefined) => void;
}

/** The proactive side of the app: the repositories everyone may use and the scheduler one process runs. */
export interface Proactive {
  reminders: ReminderStore;
  outbox: OutboxStore;
  /**
   * Runs the scheduler in this process when it can take `scheduler.lock`. `wait`: keep trying every 30 s
   * until it can (`wren start` while a `wren chat` still runs the scheduler); otherwise give up at once.
   * @returns whether this process runs the scheduler now.
   */
  start(options?: { wait?: boolean }): boolean;
  /** Ticks now (POST /api/tick, a reminder just added in this process). No-op when not running here. */
  wake(): void;
  /** Whether this process runs the scheduler. */
  running(): boolean;
  /** Stops ticking, lets runs in progress end (up to `graceMs`), releases the lock. Idempotent. */
  stop(graceMs?: number): Promise<void>;
}

const ZERO = { inputTokens: 0, outputTokens: 0 };
/** Every browser subscribed to web push (see web-push.ts). */
const PUSH_TARGET = 'push:all';
const RETRY_LOCK_MS = 30_000;

/** The prompt an agent-mode run sends through the runtime: the owner's words, framed as scheduled work. */
export function scheduledPrompt(run: OutboxRun): string {
  const { payload } = run;
  const when = new Date(run.dueAt).toISOString();
  const late = run.late ? ' It runs late: Wren was not running when it came due.' : '';
  if (payload.autonomous) {
    return `[Scheduled check (${payload.title}, due ${when}).${late} Nobody is waiting for this answer.]\n${payload.text}\n[If nothing needs the owner's attention, answer exactly [quiet] and nothing else.]`;
  }
  return `[Scheduled by the owner (${payload.title}, due ${when}).${late} Do it now with your tools and reply with the result for the owner; never answer [quiet].]\n${payload.text}`;
}

/** What a delivered run says on a chat: the reminder itself, or the result of the run. */
export function deliveryText(delivery: Delivery): string {
  const late = delivery.late
    ? ` (late: it was due ${new Date(delivery.dueAt).toISOString().slice(0, 16).replace('T', ' ')} UTC)`
    : '';
  return delivery.kind === 'reminder'
    ? `⏰ ${delivery.text}${late}`
    : `${delivery.title}${late}:\n${delivery.text}`;
}

/**
 * Builds the proactive engine over the home's database and the bus. Agent runs go to the runtime as
 * messages of the `scheduler` channel (in the session the item came from, or one of their own); their
 * replies come back through the request and are delivered from the outbox, so a delivered text never
 * re-enters as a message to act on. Channel targets are delivered only to channels that are connected (a
 * closed terminal's delivery waits and is retried); everything lands in the feed first.
 */
export function createProactive(deps: ProactiveDeps): Proactive {
  const clock = deps.clock ?? Date.now;
  const { reminders, outbox } = deps.stores;
  const shutdown = new AbortController();
  let push: Deliverer | undefined;

  const runAgent = async (run: OutboxRun, signal: AbortSignal): Promise<AgentRunResult> => {
    const reply = await deps.bus.request(
      {
        id: `${run.sourceKey}#${run.attempts + 1}`,
        channel: 'scheduler',
        chatId: run.sourceKey,
        senderId: run.payload.untrusted ? `${run.kind}:${run.ref}` : 'scheduler',
        fromOwner: !run.payload.untrusted,
        // A trigger's summary goes only to the owner: the owner's context stays, its tools stay reduced.
        forOwner: true,
        interactive: false,
        sessionId: run.payload.sessionId ?? `proactive:${run.kind}:${run.ref}`,
        // A heartbeat is one compact check, a trigger one event: earlier runs are not part of the context.
        ...(run.kind === 'heartbeat' || run.kind === 'trigger' ? { withoutHistory: true } : {}),
        text: scheduledPrompt(run),
        metadata: { origin: 'scheduler', key: run.sourceKey },
      },
      undefined,
      signal,
    );
    return { text: reply.text, failed: reply.kind === 'error' };
  };

  const channel: Deliverer = async (delivery) => {
    const at = delivery.target.indexOf(':');
    const name = delivery.target.slice(0, at);
    const chatId = delivery.target.slice(at + 1);
    if (!deps.bus.deliveringChannels().includes(name))
      throw new TargetUnavailable(`${name} is not connected`);
    // `<channel>:owner`: the owner's own chat there, when the channel names one.
    const chat = chatId === 'owner' ? (deps.ownerChat?.(name) ?? chatId) : chatId;
    await deps.bus.deliver({
      channel: name,
      chatId: chat,
      replyTo: '',
      sessionId: '',
      text: deliveryText(delivery),
      kind: 'message',
      usage: ZERO,
    });
  };

  const executor = createRunExecutor({
    outbox,
    clock,
    runAgent,
    deliverers: {
      channel,
      webhook: createWebhookDeliverer({ webhooks: () => deps.config().webhooks, clock }),
      // web-push (and its crypto) loads, and the VAPID keys are made, the first time a push is sent.
      push: async (delivery, signal) => {
        if (!push) {
          const { createPushDeliverer, loadVapidKeys } = await import('./web-push.js');
          push = createPushDeliverer({
            subscriptions: deps.stores.pushSubscriptions,
            vapid: loadVapidKeys(deps.home),
          });
        }
        return push(delivery, signal);
      },
      ...deps.deliverers,
    },
    extraTargets: () => (deps.config().push ? [PUSH_TARGET] : []),
    ...(deps.tasks ? { tasks: deps.tasks } : {}),
    signal: shutdown.signal,
    ...(deps.onError ? { onError: deps.onError } : {}),
  });
  const announced: RunExecutor = {
    ...executor,
    async run(run) {
      await executor.run(run);
      const done = outbox.get(run.id);
      if (done?.state === 'done' && outbox.hasFeedEntry(done.id))
        deps.bus.publishSchedule({ type: 'feed', id: done.id, title: done.payload.title });
    },
  };
  const scheduler = new Scheduler({
    sources: [reminderSource({ reminders, outbox }), ...(deps.sources?.({ outbox }) ?? [])],
    executor: announced,
    clock,
    ...(deps.timers ? { timers: deps.timers } : {}),
    ...(deps.onError ? { onError: deps.onError } : {}),
    ...(deps.onNextDue ? { onNextDue: deps.onNextDue } : {}),
  });

  let lock: HomeLock | undefined;
  let retry: NodeJS.Timeout | undefined;
  let stopped = false;
  const tryLock = (): boolean => {
    try {
      lock = acquireHomeLock(deps.home, 'scheduler.lock');
      scheduler.start();
      return true;
    } catch (error) {
      if (!(error instanceof HomeLockedError)) deps.onError?.(error);
      return false;
    }
  };

  return {
    reminders,
    outbox,
    start(options = {}) {
      if (lock || stopped || !deps.config().enabled) return lock !== undefined;
      if (tryLock()) return true;
      if (options.wait) {
        const again = () => {
          retry = undefined;
          if (!stopped && !tryLock()) retry = setTimeout(again, RETRY_LOCK_MS).unref();
        };
        retry = setTimeout(again, RETRY_LOCK_MS).unref();
      }
      return false;
    },
    wake: () => scheduler.wake(),
    running: () => lock !== undefined,
    async stop(graceMs = 5_000) {
      stopped = true;
      clearTimeout(retry);
      scheduler.stop();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        scheduler.idle(),
        new Promise((resolve) => {
          timer = setTimeout(resolve, graceMs);
        }),
      ]);
      clearTimeout(timer);
      // Runs still going are left unfinished in the outbox: the next start runs them again.
      shutdown.abort(new Error('Wren is shutting down'));
      lock?.release();
      lock = undefined;
    },
  };
}
