import type { OutboxRun } from '../store/outbox-repository.js';
import type { OutboxStore } from '../store/ports.js';
import { activeHeartbeatItems } from './heartbeat-file.js';
import { type ProactiveConfig, type Proactivity, quietUntil } from './proactive-config.js';
import type { DueSource } from './scheduler.js';

/** The session heartbeat runs continue: their turns never mix into a conversation. */
export const HEARTBEAT_SESSION = 'heartbeat';

/** At most this many items, each cut to this many characters, go into one heartbeat prompt. */
const MAX_ITEMS = 20;
const MAX_ITEM_CHARS = 300;

/** The outbox key of one heartbeat slot: `heartbeat:<ISO start of the slot>`. */
export function heartbeatKey(slot: number): string {
  return `heartbeat:${new Date(slot).toISOString()}`;
}

/** How readily a heartbeat speaks up, by proactivity (`off` runs no heartbeat). */
const SURFACING: Record<Exclude<Proactivity, 'off'>, string> = {
  low: 'Speak up only for something urgent the owner would regret missing.',
  default: "Speak up when something needs the owner's attention or action soon.",
  high: 'Speak up also for useful news about these checks, not only for problems.',
};

/**
 * The compact prompt of one heartbeat: the active items and the rule, nothing else (no chat history, no
 * file contents beyond the items). Pure.
 */
export function heartbeatPrompt(items: readonly string[], proactivity: Exclude<Proactivity, 'off'>): string {
  const shown = items
    .slice(0, MAX_ITEMS)
    .map((item) => `- ${item.length > MAX_ITEM_CHARS ? `${item.slice(0, MAX_ITEM_CHARS - 1)}…` : item}`);
  const more = items.length > MAX_ITEMS ? `\n(${items.length - MAX_ITEMS} more items not shown)` : '';
  return (
    `Heartbeat: the owner's standing checks from HEARTBEAT.md.\n${shown.join('\n')}${more}\n` +
    'Check each one now with your tools where a tool can tell. ' +
    `${SURFACING[proactivity]} If nothing needs the owner, answer exactly [quiet]. ` +
    'Otherwise reply with only what needs them, briefly.'
  );
}

export interface HeartbeatSourceDeps {
  /** Read at every tick: an interval, proactivity or quiet-hours change applies at the next one. */
  config: () => ProactiveConfig;
  /** The owner's IANA time zone (quiet hours are read in it). */
  timezone: () => string;
  /** HEARTBEAT.md's text, '' when missing (e.g. a WorkspaceFileCache read: one stat while unchanged). */
  heartbeat: () => string;
  outbox: OutboxStore;
}

/**
 * The heartbeat as a `DueSource` named `heartbeat`. Time is cut into slots of `heartbeatMs` (slot =
 * floor(now / heartbeatMs) × heartbeatMs); a slot runs once, under `heartbeat:<slot>`, if and only if
 * heartbeats are on (`heartbeatMs` > 0, proactivity not `off`), it is not quiet hours (the slot waits until
 * they end) and HEARTBEAT.md has active items — otherwise the tick claims nothing and no model is called.
 * Missed slots are not caught up: a heartbeat is about now. The run is autonomous (it may answer `[quiet]`,
 * which goes to the feed only), delivered to `proactive.deliver_to`, in its own session.
 */
export function heartbeatSource(deps: HeartbeatSourceDeps): DueSource {
  /** The slot last claimed (or found claimed) by this process: each tick after it costs no write. */
  let handled: number | undefined;

  const interval = (config: ProactiveConfig): number | undefined =>
    config.heartbeatMs > 0 && config.proactivity !== 'off' ? config.heartbeatMs : undefined;

  return {
    name: 'heartbeat',
    claimDue(now): OutboxRun[] {
      const config = deps.config();
      const every = interval(config);
      if (every === undefined || config.proactivity === 'off') return [];
      const slot = now - (now % every);
      if (slot === handled) return [];
      if (quietUntil(config.quietHours, now, deps.timezone()) !== undefined) return [];
      const items = activeHeartbeatItems(deps.heartbeat());
      if (items.length === 0) return [];
      handled = slot;
      const run = deps.outbox.claim(
        {
          sourceKey: heartbeatKey(slot),
          kind: 'heartbeat',
          ref: 'heartbeat',
          dueAt: slot,
          late: false,
          payload: {
            title: 'Heartbeat',
            text: heartbeatPrompt(items, config.proactivity),
            mode: 'agent',
            autonomous: true,
            deliverTo: [...config.deliverTo],
            sessionId: HEARTBEAT_SESSION,
          },
        },
        () => {},
      );
      return run ? [run] : [];
    },
    nextDue(now) {
      const config = deps.config();
      const every = interval(config);
      if (every === undefined) return undefined;
      const quietEnd = quietUntil(config.quietHours, now, deps.timezone());
      if (quietEnd !== undefined) return quietEnd;
      const slot = now - (now % every);
      // A slot not handled yet has no active items: the regular tick looks again (the file may change).
      return slot === handled ? slot + every : undefined;
    },
  };
}
