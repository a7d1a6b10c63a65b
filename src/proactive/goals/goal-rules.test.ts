import { afterEach, describe, expect, it } from 'vitest';
import { tempDatabase } from '../../../test/support/temp-database.js';
import { GoalRepository, UNCHANGED_REST_MS } from '../../store/goal-repository.js';
import { GoalError } from './goal-records.js';
import { createGoals } from './goal-rules.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** A real SQLite file with the released schema plus v6. */
function setup(start = Date.parse('2026-03-10T12:00:00Z')) {
  const { db } = tempDatabase('wren-goals-', cleanups);
  const clock = { time: start };
  const now = () => clock.time;
  const goals = createGoals(new GoalRepository(db, { now, timezone: () => 'UTC' }), {
    now,
    timezone: () => 'UTC',
  });
  return { db, goals, clock };
}

const HOUR = 3_600_000;
const titles = (steps: Array<{ title: string }>) => steps.map((step) => step.title);

describe('goal rules', () => {
  it('creates a goal with its first plan and lists open goals active first, soonest due first', () => {
    const { goals } = setup();
    const trip = goals.create({
      title: 'Plan the trip',
      dueDate: '2026-06-01',
      steps: [{ title: 'Pick dates' }],
    });
    const marathon = goals.create({ title: 'Half marathon', why: 'health', dueDate: '2026-04-01' });
    const paused = goals.create({ title: 'Learn Go' });
    goals.update(paused.id, { status: 'paused' });
    const done = goals.create({ title: 'Taxes' });
    goals.update(done.id, { status: 'done' });
    expect(trip).toMatchObject({ status: 'active', timezone: 'UTC', passes: 0, deliverTo: [] });
    expect(trip.steps).toMatchObject([{ position: 1, title: 'Pick dates', status: 'pending', notes: '' }]);
    expect(goals.list().map((goal) => goal.title)).toEqual(['Half marathon', 'Plan the trip', 'Learn Go']);
    expect(goals.list('all')).toHaveLength(4);
    expect(goals.list('done').map((goal) => goal.id)).toEqual([done.id]);
    expect(goals.get(marathon.id)?.why).toBe('health');
  });

  it('refuses bad input with messages that say what to use', () => {
    const { goals } = setup();
    const invalid = (work: () => unknown, text: RegExp) => {
      try {
        work();
        expect.unreachable();
      } catch (error) {
        expect(error).toBeInstanceOf(GoalError);
        expect((error as GoalError).code).toBe('invalid');
        expect((error as GoalError).message).toMatch(text);
      }
    };
    invalid(() => goals.create({ title: '  ' }), /cannot be empty/);
    invalid(() => goals.create({ title: 'x', dueDate: '2026-02-30' }), /use YYYY-MM-DD/);
    invalid(() => goals.create({ title: 'x', checkinCron: 'every friday' }), /cron expression/);
    invalid(() => goals.create({ title: 'x', timezone: 'Mars/Olympus' }), /IANA/);
    const goal = goals.create({ title: 'x' });
    invalid(() => goals.propose(goal.id, { reason: 'r', steps: [] }), /1 to 50 steps/);
    expect(() => goals.update(999, { status: 'done' })).toThrow(/no goal #999/);
    expect(() => goals.updateStep(goal.id, 999, { status: 'done' })).toThrow(/no step 999/);
  });

  it('a proposal never changes the steps; accept replaces the plan, dismiss leaves it', () => {
    const { goals } = setup();
    const goal = goals.create({ title: 'Trip', steps: [{ title: 'Pick dates' }, { title: 'Book hotel' }] });
    const first = goals.propose(goal.id, {
      reason: 'Flights first: prices rise',
      steps: [{ title: 'Pick dates', status: 'done' }, { title: 'Book flights' }, { title: 'Book hotel' }],
    });
    const second = goals.propose(goal.id, { reason: 'Skip the hotel', steps: [{ title: 'Pick dates' }] });
    const shown = goals.get(goal.id)!;
    expect(titles(shown.steps)).toEqual(['Pick dates', 'Book hotel']);
    expect(shown.proposals.map((proposal) => proposal.id)).toEqual([first.id, second.id]);

    const dismissed = goals.dismiss(second.id);
    expect(dismissed).toMatchObject({ status: 'dismissed', decidedAt: expect.any(Number) });
    expect(titles(goals.get(goal.id)!.steps)).toEqual(['Pick dates', 'Book hotel']);

    const accepted = goals.accept(first.id);
    expect(accepted.steps.map((step) => [step.position, step.title, step.status])).toEqual([
      [1, 'Pick dates', 'done'],
      [2, 'Book flights', 'pending'],
      [3, 'Book hotel', 'pending'],
    ]);
    expect(accepted.proposals).toEqual([]);
    expect(goals.proposal(first.id)?.status).toBe('accepted');
    for (const decide of [() => goals.accept(first.id), () => goals.dismiss(second.id)])
      expect(decide).toThrow(/already (accepted|dismissed)/);
    expect(() => goals.accept(999)).toThrow(/no proposal 999/);
  });

  it('accept is all or nothing: a plan that fails half-way leaves the old plan and the proposal pending', () => {
    const { goals, db } = setup();
    const goal = goals.create({ title: 'Trip', steps: [{ title: 'Pick dates' }] });
    const proposal = goals.propose(goal.id, { reason: 'more', steps: [{ title: 'A' }, { title: 'B' }] });
    // A proposal damaged in storage: its second step breaks the steps' CHECK after the first was written.
    db.prepare('UPDATE goal_proposals SET steps = ? WHERE id = ?').run(
      JSON.stringify([{ title: 'A' }, { title: 'B', status: 'someday' }]),
      proposal.id,
    );
    expect(() => goals.accept(proposal.id)).toThrow();
    const after = goals.get(goal.id)!;
    expect(titles(after.steps)).toEqual(['Pick dates']);
    expect(after.proposals.map((item) => item.status)).toEqual(['pending']);
  });

  it('keeps at most 3 proposals waiting per goal', () => {
    const { goals } = setup();
    const goal = goals.create({ title: 'Trip' });
    for (let n = 0; n < 3; n++) goals.propose(goal.id, { reason: `r${n}`, steps: [{ title: 'x' }] });
    expect(() => goals.propose(goal.id, { reason: 'again', steps: [{ title: 'x' }] })).toThrow(
      expect.objectContaining({ code: 'conflict' }),
    );
  });

  it('steps: appended in order, marked with status and notes, each change touching the goal', () => {
    const { goals, clock } = setup();
    const goal = goals.create({ title: 'Trip' });
    clock.time += 60_000;
    const a = goals.addStep(goal.id, { title: 'Pick dates' });
    const b = goals.addStep(goal.id, { title: 'Book', notes: 'ask Ana' });
    expect([a.position, b.position]).toEqual([1, 2]);
    expect(goals.get(goal.id)!.lastTouchedAt).toBe(clock.time);
    clock.time += 60_000;
    const marked = goals.updateStep(goal.id, a.id, { status: 'done', notes: 'June 3-10' });
    expect(marked).toMatchObject({ status: 'done', notes: 'June 3-10', title: 'Pick dates' });
    expect(goals.get(goal.id)!.lastTouchedAt).toBe(clock.time);
    const other = goals.create({ title: 'Other' });
    expect(() => goals.updateStep(other.id, a.id, { status: 'done' })).toThrow(/no step/);
  });

  it('check-ins: scheduled from now, none while paused, resumed from now without catching up', () => {
    const { goals, clock } = setup(Date.parse('2026-03-10T12:00:00Z'));
    const goal = goals.create({ title: 'Run', checkinCron: '0 18 * * *', timezone: 'Europe/Berlin' });
    expect(goal.nextCheckinAt).toBe(Date.parse('2026-03-10T17:00:00Z'));
    expect(goals.update(goal.id, { status: 'paused' }).nextCheckinAt).toBeUndefined();
    expect(goals.dueCheckins(Date.parse('2026-03-20T00:00:00Z'))).toEqual([]);
    clock.time = Date.parse('2026-03-20T19:00:00Z');
    const resumed = goals.update(goal.id, { status: 'active' });
    expect(resumed.nextCheckinAt).toBe(Date.parse('2026-03-21T17:00:00Z'));
    goals.advanceCheckin(goal.id, resumed.nextCheckinAt!, Date.parse('2026-03-22T17:00:00Z'));
    expect(goals.nextCheckinAt()).toBe(Date.parse('2026-03-22T17:00:00Z'));
    expect(goals.update(goal.id, { checkinCron: null }).checkinCron).toBeUndefined();
    expect(goals.nextCheckinAt()).toBeUndefined();
  });

  it('the next pass takes an overdue goal (in its own zone) first, then the least recently touched', () => {
    const now = Date.parse('2026-03-10T20:00:00Z'); // 09:00 on the 11th in Auckland, 16:00 on the 10th in New York
    const { goals, clock } = setup(now - 3_600_000);
    const old = goals.create({ title: 'untouched longest' });
    clock.time += 60_000;
    const newYork = goals.create({
      title: 'due today in New York',
      dueDate: '2026-03-10',
      timezone: 'America/New_York',
    });
    clock.time += 60_000;
    const auckland = goals.create({
      title: 'overdue in Auckland',
      dueDate: '2026-03-10',
      timezone: 'Pacific/Auckland',
    });
    expect(goals.nextForPass(now)?.id).toBe(auckland.id);
    expect(goals.recordPass({ id: auckland.id, expectedPasses: 0, at: now, intervalMs: HOUR })).toBe(true);
    expect(goals.get(auckland.id)).toMatchObject({ passes: 1, lastPassAt: now, lastTouchedAt: now });
    // An overdue goal jumps the queue once a day; in between the others come in turn.
    expect(goals.nextForPass(now)?.id).toBe(old.id);
    const dayLater = now + 86_400_000; // New York's due date has passed too, and it was touched before Auckland
    expect(goals.nextForPass(dayLater)?.id).toBe(newYork.id);
    goals.update(newYork.id, { status: 'done' });
    expect(goals.nextForPass(dayLater)?.id).toBe(auckland.id);
    goals.update(auckland.id, { status: 'paused' });
    expect(goals.nextForPass(dayLater)?.id).toBe(old.id);
    // Stale expectations do nothing: the pass count moves once per claim, one pass per interval.
    expect(goals.recordPass({ id: old.id, expectedPasses: 5, at: dayLater, intervalMs: HOUR })).toBe(false);
    expect(goals.recordPass({ id: old.id, expectedPasses: 0, at: now + HOUR - 1, intervalMs: HOUR })).toBe(
      false,
    );
    expect(goals.get(old.id)?.passes).toBe(0);
    expect(goals.recordPass({ id: old.id, expectedPasses: 0, at: now + HOUR, intervalMs: HOUR })).toBe(true);
  });

  it('next pass time: an interval after the latest pass, or after the oldest touch before any pass', () => {
    const { goals, clock } = setup(1_000_000);
    expect(goals.nextPassAt(60_000)).toBeUndefined();
    const goal = goals.create({ title: 'x' });
    expect(goals.nextPassAt(60_000)).toBe(1_060_000);
    clock.time = 5_000_000;
    goals.recordPass({ id: goal.id, expectedPasses: 0, at: clock.time, intervalMs: 60_000 });
    // Nothing changed since that pass: the goal rests a day rather than being passed over again.
    expect(goals.nextPassAt(60_000)).toBe(5_000_000 + UNCHANGED_REST_MS);
    expect(goals.nextForPass(5_060_000)).toBeUndefined();
    // A change, even within the pass's own millisecond (the model marking a step), ends the rest.
    goals.addStep(goal.id, { title: 'first step' });
    expect(goals.nextPassAt(60_000)).toBe(5_060_000);
    expect(goals.nextForPass(5_060_000)?.id).toBe(goal.id);
    goals.update(goal.id, { status: 'paused' });
    expect(goals.nextPassAt(60_000)).toBeUndefined();
  });
});
