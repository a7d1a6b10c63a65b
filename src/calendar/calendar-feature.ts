import type { Tool } from '../agent/tool.js';
import type { CalendarConfig } from '../config/calendar-config.js';
import type { DueSource } from '../proactive/scheduler.js';
import type { CalendarStore } from '../store/ports.js';
import type { TriggerEvent } from '../store/trigger-repository.js';
import type { Fetch } from './caldav-client.js';
import { type CalendarService, createCalendarService } from './calendar-service.js';
import { calendarBeforeSource, calendarSyncSource } from './calendar-sources.js';
import { createCalendarTools } from './calendar-tools.js';

export interface CalendarFeatureDeps {
  /** `calendars:` of config.yaml in force (read per use: live edits apply). */
  calendars: () => readonly CalendarConfig[];
  store: CalendarStore;
  /** The owner's zone. */
  timezone: () => string;
  /** `proactive.deliver_to`. */
  deliverTo: () => readonly string[];
  /** Stores a due "before" trigger to run once (ProactiveWiring.recordTrigger). */
  record: (event: Omit<TriggerEvent, 'id'>) => boolean;
  /** Wakes the scheduler (after a sync, so "before" triggers are planned from the new rows). */
  wake: () => void;
  onSyncError?: (calendar: string, error: Error) => void;
  now?: () => number;
  fetch?: Fetch;
}

export interface CalendarFeature {
  service: CalendarService;
  /** `calendar` (read) and `calendar_edit` (writes, asking the owner). */
  tools: Tool[];
  /** The sync source and the "before" source, for the scheduler. */
  sources(): DueSource[];
}

/** Calendars as the app uses them: the service, its tools, and its two scheduler sources. */
export function createCalendarFeature(deps: CalendarFeatureDeps): CalendarFeature {
  const now = deps.now ?? Date.now;
  const service = createCalendarService({
    calendars: deps.calendars,
    store: deps.store,
    now,
    timezone: deps.timezone,
    ...(deps.fetch ? { fetch: deps.fetch } : {}),
  });
  const hostOf = (name: string) => {
    const calendar = deps.calendars().find((c) => c.name === name);
    return calendar ? new URL(calendar.source.url).host : undefined;
  };
  return {
    service,
    tools: createCalendarTools({ service, now, timezone: deps.timezone, hostOf }),
    sources: () => [
      calendarSyncSource({
        calendars: deps.calendars,
        sync: (calendar) => {
          // Calendars removed from config.yaml leave the store (and the "before" plan) with the next sync.
          deps.store.retain(deps.calendars().map((c) => c.name));
          return service.sync(calendar);
        },
        onSynced: deps.wake,
        onError: (calendar, error) => deps.onSyncError?.(calendar, error as Error),
      }),
      calendarBeforeSource({
        calendars: deps.calendars,
        store: deps.store,
        record: deps.record,
        deliverTo: deps.deliverTo,
        timezone: deps.timezone,
      }),
    ],
  };
}
