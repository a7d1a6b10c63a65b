import type { MessageBus } from '../bus/message-bus.js';
import type { WrenConfig } from '../config/wren-config.js';
import type { ChatModel } from '../llm/types.js';
import type { MemoryTidy, TidyResult } from '../memory/tidy/memory-tidy.js';
import type { TaskOutcome, TaskRunner } from '../proactive/run-executor.js';
import type { DueSource } from '../proactive/scheduler.js';
import { tidySource } from '../proactive/tidy-source.js';
import type { Stores } from '../store/open-stores.js';
import type { OutboxStore } from '../store/ports.js';
import type { Logger } from '../util/logger.js';

/** The memory tidy as the scheduler uses it: its source and the runner of its task runs. */
export interface MemoryTidyWiring {
  source(outbox: OutboxStore): DueSource;
  run: TaskRunner;
}

/**
 * How a tidy ends in the outbox: a change or a proposal is one quiet feed entry (the feed only, no channel); a refusal or
 * a failure is a feed entry marked failed (still no channel); nothing to do leaves no feed entry at all.
 */
export function tidyOutcome(result: TidyResult): TaskOutcome {
  switch (result.status) {
    case 'tidied':
    case 'proposed':
      return { outcome: 'quiet', text: result.text };
    case 'refused':
    case 'failed':
      return { outcome: 'failed', text: result.text, error: result.text };
    default:
      return { outcome: 'quiet', text: result.text, feed: false };
  }
}

/**
 * Part of the composition root: Dream (`memory.dream`, on by default when a model is configured) over the
 * home's database, with the app's model; token usage is recorded like consolidation's.
 */
export function wireMemoryTidy(options: {
  stores: Pick<Stores, 'settings' | 'taint' | 'usage' | 'fileVersions' | 'memoryProposals'>;
  model: ChatModel;
  /** Whether a chat model is configured (or injected): without one Dream stays off. */
  hasModel: () => boolean;
  /** The owner's turns (any channel but the scheduler's) push a due pass back until they have been idle. */
  bus: Pick<MessageBus, 'subscribeEvents'>;
  config: () => WrenConfig;
  logger: Logger;
  clock?: () => number;
}): MemoryTidyWiring {
  const { stores, config } = options;
  const clock = options.clock ?? Date.now;
  let lastTurnAt: number | undefined;
  options.bus.subscribeEvents((event) => {
    if ((event.type === 'turn-start' || event.type === 'turn-end') && event.channel !== 'scheduler')
      lastTurnAt = clock();
  });
  // Loaded at the first tidy: most processes never run one, and start-up should not pay for it.
  let tidy: MemoryTidy | undefined;
  const load = async () => {
    const { MemoryTidy } = await import('../memory/tidy/memory-tidy.js');
    tidy ??= new MemoryTidy({
      stores,
      model: options.model,
      workspace: () => config().workspace,
      config: () => config().memory,
      timezone: () => config().agent.timezone,
      onUsage: (usage, endpoint) => stores.usage.record({ endpoint: endpoint ?? 'unnamed endpoint', usage }),
    });
    return tidy;
  };
  return {
    source: (outbox) =>
      tidySource({
        schedule: () => {
          const every = config().memory.dream.every;
          return every && options.hasModel() ? { every, timezone: config().agent.timezone } : undefined;
        },
        idleAt: () => (lastTurnAt === undefined ? undefined : lastTurnAt + config().memory.dream.idleMs),
        settings: stores.settings,
        outbox,
        onError: (error) => options.logger.error({ err: error }, 'memory tidy schedule'),
      }),
    run: async (run, signal) => {
      const result = await (await load()).run(run.sourceKey, signal);
      // The reason quotes MEMORY.md: it goes to the feed, not to the log.
      if (result.status === 'refused' || result.status === 'failed')
        options.logger.warn(
          { key: run.sourceKey, status: result.status },
          'memory tidy left MEMORY.md as it was',
        );
      return tidyOutcome(result);
    },
  };
}
