import type { OutboxPayload, OutboxRun } from '../store/outbox-repository.js';
import type { OutboxStore, SettingsStore } from '../store/ports.js';
import { claimOccurrence, nextOccurrence } from '../util/schedule.js';
import type { DueSource } from './scheduler.js';

/** The outbox key of one tidy slot: `tidy:<ISO time of the slot>`. */
export function tidyKey(slot: number): string {
  return `tidy:${new Date(slot).toISOString()}`;
}

/** Where the next slot is kept (the settings table): `{every, timezone, nextAt}`. */
const STATE = 'memory.tidy.schedule';

interface TidySchedule {
  every: string;
  timezone: string;
  /** The next slot (UTC ms); absent when the cron has no further occurrence. */
  nextAt?: number;
}

export interface TidySourceDeps {
  /** `memory.tidy.every` with the owner's zone, read at every tick; undefined: the tidy is off. */
  schedule: () => { every: string; timezone: string } | undefined;
  settings: SettingsStore;
  outbox: OutboxStore;
  onError?: (error: unknown) => void;
}

const PAYLOAD: OutboxPayload = {
  title: 'Memory tidy',
  text: 'Merge duplicate facts of MEMORY.md and drop contradicted ones.',
  mode: 'task',
  autonomous: true,
  // The feed only: a tidy speaks to no channel.
  deliverTo: [],
};

/**
 * The memory tidy as a `DueSource` named `tidy`: once per slot of `memory.tidy.every` (a cron read in the
 * owner's zone), claimed under `tidy:<slot>` together with the move to the next slot, so two ticks or two
 * processes run a slot once. After downtime the first missed slot runs once, late; the others are skipped.
 * The first slot is the first occurrence after the schedule is seen (turning the tidy on does not run one
 * at once); a changed schedule or zone starts over from then. While the tidy is off it claims nothing and,
 * after forgetting its next slot once, queries nothing. The run is a `task` (MemoryTidy), not a turn.
 */
export function tidySource(deps: TidySourceDeps): DueSource {
  let forgotten = false;

  const read = (): TidySchedule | undefined => {
    const raw = deps.settings.get(STATE);
    return raw === undefined ? undefined : (JSON.parse(raw) as TidySchedule);
  };
  const save = (state: TidySchedule) => deps.settings.set(STATE, JSON.stringify(state));

  const claim = (now: number): OutboxRun[] => {
    const schedule = deps.schedule();
    if (!schedule) {
      if (!forgotten) deps.settings.delete(STATE);
      forgotten = true;
      return [];
    }
    forgotten = false;
    const cron = { cron: schedule.every, timezone: schedule.timezone };
    const state = read();
    if (!state || state.every !== schedule.every || state.timezone !== schedule.timezone) {
      const nextAt = nextOccurrence(cron, now);
      save({ ...schedule, ...(nextAt !== undefined ? { nextAt } : {}) });
      return [];
    }
    if (state.nextAt === undefined || state.nextAt > now) return [];
    const dueAt = state.nextAt;
    const occurrence = claimOccurrence(cron, dueAt, now);
    const advance = () =>
      save({ ...schedule, ...(occurrence.next !== undefined ? { nextAt: occurrence.next } : {}) });
    const run = deps.outbox.claim(
      {
        sourceKey: tidyKey(dueAt),
        kind: 'tidy',
        ref: 'memory',
        dueAt,
        late: occurrence.late,
        payload: PAYLOAD,
      },
      advance,
    );
    // The key was taken: that slot happened (another process); move on from it all the same.
    if (!run) advance();
    return run ? [run] : [];
  };

  return {
    name: 'tidy',
    claimDue(now) {
      // A broken schedule must not keep the sources after this one from claiming.
      try {
        return claim(now);
      } catch (error) {
        deps.onError?.(error);
        return [];
      }
    },
    nextDue(now) {
      if (!deps.schedule()) return undefined;
      const at = read()?.nextAt;
      return at !== undefined && at > now ? at : undefined;
    },
  };
}
