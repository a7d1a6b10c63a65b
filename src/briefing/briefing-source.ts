import { type BriefingConfig, briefingCron } from '../config/briefing-config.js';
import type { DueSource } from '../proactive/scheduler.js';
import type { OutboxKind, OutboxPayload, OutboxRun } from '../store/outbox-repository.js';
import type { OutboxStore } from '../store/ports.js';
import { LATE_AFTER_MS, nextOccurrence } from '../util/schedule.js';

/** The outbox kind of the morning briefing. */
export const BRIEFING_KIND: OutboxKind = 'briefing';

/**
 * A briefing missed by downtime still runs when Wren comes back within this long (a 07:30 briefing at 09:00
 * is still worth reading); later, that day's is skipped.
 */
export const BRIEFING_CATCH_UP_MS = 3 * 60 * 60_000;

/** The owner's local date of `at`, `YYYY-MM-DD`. */
export function localDate(at: number, timezone: string): string {
  return new Intl.DateTimeFormat('en-CA', {
    timeZone: timezone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  })
    .format(at)
    .slice(0, 10);
}

/** The outbox key of one day's briefing, `briefing:<local date>`: one per day, whatever the time says. */
export const briefingKey = (at: number, timezone: string): string => `briefing:${localDate(at, timezone)}`;

export interface BriefingSourceDeps {
  config: () => BriefingConfig;
  timezone: () => string;
  /** `proactive.deliver_to`, for a briefing without its own targets. */
  deliverTo: () => readonly string[];
  outbox: OutboxStore;
}

const payloadOf = (targets: readonly string[]): OutboxPayload => ({
  title: 'Morning briefing',
  text: "Gather today's agenda, tasks, reminders, mail, weather and goals, and compose the briefing.",
  mode: 'task',
  // Asked for by the owner at a time they chose: not autonomous (no [quiet], no quiet-hours wait).
  autonomous: false,
  deliverTo: [...targets],
});

/**
 * The morning briefing as a `DueSource` named `briefing`: at `briefing.at` on its days (the owner's zone),
 * one run per local day under {@link briefingKey} — two ticks, two processes or a restart run a day's once.
 * Off (nothing claimed, nothing queried) while `at` is unset.
 */
export function briefingSource(deps: BriefingSourceDeps): DueSource {
  /** The key last claimed (or found claimed) by this process: later ticks of that day cost no write. */
  let handled: string | undefined;
  const schedule = () => {
    const cron = briefingCron(deps.config());
    return cron ? { cron, timezone: deps.timezone() } : undefined;
  };
  /** The latest occurrence in (now − catch-up, now], if any. */
  const current = (now: number) => {
    const plan = schedule();
    if (!plan) return undefined;
    let slot = nextOccurrence(plan, now - BRIEFING_CATCH_UP_MS);
    if (slot === undefined || slot > now) return { plan, slot: undefined };
    for (
      let next = nextOccurrence(plan, slot);
      next !== undefined && next <= now;
      next = nextOccurrence(plan, slot)
    )
      slot = next;
    return { plan, slot };
  };
  return {
    name: 'briefing',
    claimDue(now): OutboxRun[] {
      const found = current(now);
      if (found?.slot === undefined) return [];
      const key = briefingKey(found.slot, found.plan.timezone);
      if (key === handled) return [];
      handled = key;
      const config = deps.config();
      const run = deps.outbox.claim(
        {
          sourceKey: key,
          kind: BRIEFING_KIND,
          ref: 'briefing',
          dueAt: found.slot,
          late: now - found.slot > LATE_AFTER_MS,
          payload: payloadOf(config.deliverTo ?? deps.deliverTo()),
        },
        () => {},
      );
      return run ? [run] : [];
    },
    nextDue(now) {
      const found = current(now);
      if (!found) return undefined;
      if (found.slot !== undefined && briefingKey(found.slot, found.plan.timezone) !== handled)
        return found.slot;
      return nextOccurrence(found.plan, now);
    },
  };
}
