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
  /** The owner's local date (`YYYY-MM-DD`) of the last slot claimed: one pass per day at most. */
  lastDay?: string;
}

export interface TidySourceDeps {
  /** `memory.tidy.every` with the owner's zone, read at every tick; undefined: the tidy is off. */
  schedule: () => { every: string; timezone: string } | undefined;
  settings: SettingsStore;
  outbox: OutboxStore;
  /**
   * When a due slot may start (UTC ms): after the owner's last turn plus the idle wait. A slot due earlier
   * waits for it; undefined or past: at once.
   */
  idleAt?: () => number | undefined;
  onError?: (error: unknown) => void;
}

/** `YYYY-MM-DD` of `at` in `timezone`. */
function localDay(at: number, timezone: string): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: timezone }).format(at);
}

const PAYLOAD: OutboxPayload = {
  title: 'Dream',
  text: 'Tidy MEMORY.md: merge duplicates, resolve contradictions, propose moves, drop past one-off facts.',
  mode: 'task',
  autonomous: true,
  // The feed only: a tidy speaks to no channel.
  deliverTo: [],
};

/**
 * Dream (the memory tidy) as a `DueSource` named `tidy`: once per slot of `memory.dream.every` (a cron read in
 * the owner's zone), at most once per day of the owner's, and only once the owner has been idle (`idleAt`), claimed under `tidy:<slot>` together with the move to the next slot, so two ticks or two
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
    if ((deps.idleAt?.() ?? 0) > now) return [];
    const dueAt = state.nextAt;
    const occurrence = claimOccurrence(cron, dueAt, now);
    const day = localDay(dueAt, schedule.timezone);
    const advance = (claimed: boolean) =>
      save({
        ...schedule,
        ...(occurrence.next !== undefined ? { nextAt: occurrence.next } : {}),
        ...(claimed ? { lastDay: day } : state.lastDay ? { lastDay: state.lastDay } : {}),
      });
    // A schedule that fires more often than daily still gets one pass per day of the owner's.
    if (state.lastDay === day) {
      advance(false);
      return [];
    }
    const run = deps.outbox.claim(
      {
        sourceKey: tidyKey(dueAt),
        kind: 'tidy',
        ref: 'memory',
        dueAt,
        late: occurrence.late,
        payload: PAYLOAD,
      },
      () => advance(true),
    );
    // The key was taken: that slot happened (another process); move on from it all the same.
    if (!run) advance(true);
    return run ? [run] : [];
  };

  return {
    name: 'tidy',
    // Wren's own upkeep: it wakes the loop but is not what the owner sees as "next due".
    housekeeping: true,
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
      if (at === undefined) return undefined;
      const idle = deps.idleAt?.() ?? 0;
      const start = Math.max(at, idle);
      return start > now ? start : undefined;
    },
  };
}
