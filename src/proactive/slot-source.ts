import type { OutboxKind, OutboxPayload, OutboxRun } from '../store/outbox-repository.js';
import type { OutboxStore } from '../store/ports.js';
import type { DueSource } from './scheduler.js';

export interface SlotSourceOptions {
  /** The source's name (the scheduler's logs) and the prefix of its outbox keys: `<name>:<ISO slot start>`. */
  name: string;
  kind: OutboxKind;
  /** What the run is about, as the outbox shows it (`home`, `database`). */
  ref: string;
  payload: OutboxPayload;
  /** The slot length in force (read per tick); undefined = off: nothing claimed, nothing queried. */
  everyMs: () => number | undefined;
  outbox: OutboxStore;
}

/** The outbox key of the slot starting at `slot` (Unix ms) of the source `name`. */
export const slotKey = (name: string, slot: number): string => `${name}:${new Date(slot).toISOString()}`;

/**
 * A `DueSource` of housekeeping (not shown as the next thing due) that runs once per slot of time (slot = floor(now / every) × every): each slot
 * is claimed once, under its {@link slotKey}, so two ticks or two processes run a slot once. After downtime
 * the current slot runs; missed ones are not caught up one by one (one fresh run covers them).
 */
export function slotSource(options: SlotSourceOptions): DueSource {
  /** The slot last claimed (or found claimed) by this process: each tick after it costs no write. */
  let handled: number | undefined;
  const slotOf = (now: number, every: number) => now - (now % every);
  return {
    name: options.name,
    housekeeping: true,
    claimDue(now): OutboxRun[] {
      const every = options.everyMs();
      if (!every) return [];
      const slot = slotOf(now, every);
      if (slot === handled) return [];
      handled = slot;
      const run = options.outbox.claim(
        {
          sourceKey: slotKey(options.name, slot),
          kind: options.kind,
          ref: options.ref,
          dueAt: slot,
          late: false,
          payload: options.payload,
        },
        () => {},
      );
      return run ? [run] : [];
    },
    nextDue(now) {
      const every = options.everyMs();
      if (!every) return undefined;
      const slot = slotOf(now, every);
      return slot === handled ? slot + every : slot;
    },
  };
}
