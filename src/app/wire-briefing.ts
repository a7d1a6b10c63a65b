import { agendaOf } from '../briefing/agenda-of.js';
import { BRIEFING_KIND, briefingSource } from '../briefing/briefing-source.js';
import { createBriefingTool } from '../briefing/briefing-tool.js';
import { briefingWeather } from '../briefing/briefing-weather.js';
import { briefingTask } from '../briefing/compose-briefing.js';
import { gatherBriefing } from '../briefing/gather-briefing.js';
import type { WrenConfig } from '../config/wren-config.js';
import type { ChatModel } from '../llm/types.js';
import type { TaskRunner } from '../proactive/run-executor.js';
import type { DueSource } from '../proactive/scheduler.js';
import type { Stores } from '../store/open-stores.js';
import type { OutboxStore } from '../store/ports.js';

/**
 * Part of the composition root: the morning briefing's source, its task runner and its tool, over the home's
 * stores (the outbox comes from the scheduler once it exists, hence the getter).
 */
export function wireBriefing(options: {
  home: string;
  stores: Stores;
  model: ChatModel;
  config: () => WrenConfig;
  timezone: () => string;
  outbox: () => OutboxStore;
}) {
  const { stores, config, timezone } = options;
  const sources = () => ({
    tasks: stores.tasks,
    reminders: stores.reminders,
    goals: stores.goals,
    outbox: options.outbox(),
    ...(config().calendars.length > 0
      ? { agenda: (from: number, to: number) => agendaOf(stores.calendars, from, to) }
      : {}),
    ...briefingWeather(config()),
  });
  return {
    source: (outbox: OutboxStore): DueSource =>
      briefingSource({
        config: () => config().briefing,
        timezone,
        deliverTo: () => config().proactive.deliverTo,
        outbox,
      }),
    tasks: {
      [BRIEFING_KIND]: briefingTask({
        model: options.model,
        gather: (now, signal) => gatherBriefing(sources(), now, timezone(), signal),
      }),
    } as Record<string, TaskRunner>,
    tool: (wake: () => void) =>
      createBriefingTool({ home: options.home, config: () => config().briefing, timezone, wake }),
  };
}
