import type { OutboxRun } from '../store/outbox-repository.js';
import type { OutboxStore } from '../store/ports.js';
import { claimOccurrence } from '../util/schedule.js';
import { describeGoal } from './describe-goal.js';
import type { GoalDetail } from './goals/goal-records.js';
import type { Goals } from './goals/goal-rules.js';
import { type ProactiveConfig, type Proactivity, quietUntil } from './proactive-config.js';
import type { DueSource } from './scheduler.js';

/** What the goals source asks of the goal domain. */
export type PassGoals = Pick<
  Goals,
  'get' | 'dueCheckins' | 'nextForPass' | 'nextPassAt' | 'recordPass' | 'nextCheckinAt' | 'advanceCheckin'
>;

export interface GoalSourceDeps {
  /** The goals (the domain: which goal a pass takes is its rule). */
  goals: PassGoals;
  outbox: OutboxStore;
  /** Read at every tick: a change of proactivity, quiet hours or targets applies at the next one. */
  config: () => ProactiveConfig;
  /** The owner's IANA zone, in which quiet hours are read. */
  timezone: () => string;
}

/** The outbox key of a goal's pass number `pass` (1-based): `goal:<id>:<pass>`. */
export function goalPassKey(id: number, pass: number): string {
  return `goal:${id}:${pass}`;
}

/** The outbox key of one check-in occurrence: `checkin:<id>:<ISO time of the occurrence>`. */
export function checkinKey(id: number, dueAt: number): string {
  return `checkin:${id}:${new Date(dueAt).toISOString()}`;
}

/** How readily a goal pass speaks up, by proactivity (off never runs). */
const SURFACING: Record<Exclude<Proactivity, 'off'>, string> = {
  low: 'Speak to the owner only about something they must act on soon: a deadline, a blocker, a decision.',
  default:
    'Speak to the owner when there is something they can act on: a deadline, a blocker, a decision, a clear next step.',
  high: 'Speak to the owner when it helps: a deadline, a blocker, a decision, a next step, or progress worth sharing.',
};

/** The prompt of an autonomous goal pass: the goal, what the model may do, and when to stay quiet. */
export function goalPassPrompt(goal: GoalDetail, now: number, proactivity: Proactivity): string {
  const surfacing = SURFACING[proactivity === 'off' ? 'low' : proactivity];
  return [
    `Goal pass: review goal #${goal.id} and move it forward where you can.`,
    '<goal>',
    describeGoal(goal, now),
    '</goal>',
    'With the `goal` tool you may mark steps (update_step: status, and notes on what happened, what is next or what blocks it).',
    'You may not change the plan yourself: to add, drop, reorder or rename steps, use `goal` propose with the reason and the complete new step list; the owner accepts or dismisses it. Do not repeat a proposal that is already waiting.',
    surfacing,
    'If nothing needs the owner now, answer exactly [quiet].',
  ].join('\n');
}

/** The prompt of a check-in the owner scheduled: ask about progress; never quiet. */
export function checkinPrompt(goal: GoalDetail, now: number): string {
  return [
    `Check-in on goal #${goal.id}, scheduled by the owner: ask them briefly how it is going.`,
    '<goal>',
    describeGoal(goal, now),
    '</goal>',
    'Name what is next (the first step not done) or what is due soon, and ask one short question about progress. When they answer, record it on the steps with the `goal` tool.',
    'The owner asked for this check-in: always reply with a message for them, never [quiet].',
  ].join('\n');
}

/**
 * Goal passes and check-ins as outbox runs (the `goals` source, last in the tick).
 *
 * - A **check-in** is due on its goal's `checkin_cron` (active goals only). It is claimed under
 *   `checkin:<id>:<occurrence>` with its advance to the next occurrence, like a reminder: once, caught up once
 *   after downtime (late). The owner asked for it, so it is not autonomous: never quiet, not held by quiet hours.
 * - A **goal pass** advances one goal: at most one per `goalPassMs` across all goals, none while proactivity
 *   is off, none during quiet hours (it runs once they end). It picks an overdue goal first, then the least
 *   recently touched (a goal nothing changed since its last pass rests a day: no tokens to say the same
 *   again), and is claimed under `goal:<id>:<pass number>` together with the goal's pass count, so two
 *   ticks (or processes) at the same moment run it once. It is autonomous: it may answer `[quiet]`, and a
 *   result that speaks goes to `proactive.deliver_to` (the feed only by default), not to the goal's chat.
 */
/** Rolls a pass claim back: the goal changed, or another pass ran, between the look and the claim. */
class PassTaken extends Error {}

export function goalSource(deps: GoalSourceDeps): DueSource {
  const { goals, outbox } = deps;

  const claimCheckins = (now: number): OutboxRun[] => {
    const runs: OutboxRun[] = [];
    for (const goal of goals.dueCheckins(now)) {
      const detail = goals.get(goal.id);
      if (!detail || goal.checkinCron === undefined || goal.nextCheckinAt === undefined) continue;
      const dueAt = goal.nextCheckinAt;
      const claim = claimOccurrence({ cron: goal.checkinCron, timezone: goal.timezone }, dueAt, now);
      const run = outbox.claim(
        {
          sourceKey: checkinKey(goal.id, dueAt),
          kind: 'checkin',
          ref: String(goal.id),
          dueAt,
          late: claim.late,
          payload: {
            title: `Check-in: ${goal.title}`,
            text: checkinPrompt(detail, now),
            mode: 'agent',
            autonomous: false,
            deliverTo: goal.deliverTo,
            ...(goal.sessionId ? { sessionId: goal.sessionId } : {}),
          },
        },
        () => goals.advanceCheckin(goal.id, dueAt, claim.next),
      );
      if (run) runs.push(run);
    }
    return runs;
  };

  /** When the next pass may run (held past quiet hours), or undefined when none will. */
  const passAt = (now: number): number | undefined => {
    const config = deps.config();
    if (config.goalPassMs === undefined) return undefined;
    const due = goals.nextPassAt(config.goalPassMs);
    if (due === undefined) return undefined;
    const at = Math.max(due, now);
    return quietUntil(config.quietHours, at, deps.timezone()) ?? at;
  };

  const claimPass = (now: number): OutboxRun | undefined => {
    const at = passAt(now);
    const config = deps.config();
    if (at === undefined || at > now || config.goalPassMs === undefined) return undefined;
    const goal = goals.nextForPass(now);
    const detail = goal && goals.get(goal.id);
    if (!goal || !detail) return undefined;
    const pass = { id: goal.id, expectedPasses: goal.passes, at: now, intervalMs: config.goalPassMs };
    try {
      return outbox.claim(
        {
          sourceKey: goalPassKey(goal.id, goal.passes + 1),
          kind: 'goal',
          ref: String(goal.id),
          dueAt: now,
          late: false,
          payload: {
            title: `Goal: ${goal.title}`,
            text: goalPassPrompt(detail, now, config.proactivity),
            mode: 'agent',
            autonomous: true,
            deliverTo: [...config.deliverTo],
          },
        },
        // Checked again inside the claim's transaction: a goal paused or a pass run since we looked voids it.
        () => {
          if (!goals.recordPass(pass)) throw new PassTaken();
        },
      );
    } catch (error) {
      if (error instanceof PassTaken) return undefined;
      throw error;
    }
  };

  return {
    name: 'goals',
    claimDue(now) {
      const runs = claimCheckins(now);
      const pass = claimPass(now);
      return pass ? [...runs, pass] : runs;
    },
    nextDue(now) {
      const pass = passAt(now);
      // A pass due now but not claimed (nothing to claim, or another process has it) is looked at again
      // within the loop's longest sleep, not in a busy loop.
      const candidates = [goals.nextCheckinAt(), pass !== undefined && pass > now ? pass : undefined];
      const due = candidates.filter((at): at is number => at !== undefined);
      return due.length > 0 ? Math.min(...due) : undefined;
    },
  };
}
