import type { OutboxRun } from '../store/outbox-repository.js';
import type { OutboxStore, TriggerStore } from '../store/ports.js';
import type { DueSource } from './scheduler.js';

/** At most this many events are claimed per tick (the rest next tick, at once). */
const BATCH = 20;

/**
 * Event triggers (a watched mail …) as a scheduler source: every stored event not yet in the outbox is
 * claimed there under its own key, so it runs once. Events are due as soon as they are stored; the source
 * remembers how far it has claimed, so an idle tick reads no old rows.
 */
export function triggerSource(deps: {
  triggers: TriggerStore;
  outbox: OutboxStore;
}): DueSource & { notify(): void } {
  let claimedUpTo = 0;
  let pending = true;
  return {
    name: 'triggers',
    claimDue(): OutboxRun[] {
      const events = deps.triggers.unclaimed(claimedUpTo, BATCH);
      const runs: OutboxRun[] = [];
      for (const event of events) {
        const run = deps.outbox.claim(
          {
            sourceKey: event.key,
            kind: 'trigger',
            ref: event.triggerId,
            dueAt: event.seenAt,
            late: false,
            payload: event.payload,
          },
          () => {},
        );
        if (run) runs.push(run);
        claimedUpTo = event.id;
      }
      pending = events.length === BATCH;
      return runs;
    },
    nextDue(now) {
      return pending ? now : undefined;
    },
    /** Called when an event was stored: it is due now. */
    notify() {
      pending = true;
    },
  };
}
