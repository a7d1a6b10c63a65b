import { afterEach, describe, expect, it } from 'vitest';
import { tempDatabase } from '../../test/support/temp-database.js';
import { DUE_QUERIES, GoalRepository } from './goal-repository.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** A real SQLite file with the released schema plus v6. */
function setup(start = Date.parse('2026-03-10T12:00:00Z')) {
  const { db } = tempDatabase('wren-goals-', cleanups);
  const clock = { time: start };
  const goals = new GoalRepository(db, { now: () => clock.time, timezone: () => 'UTC' });
  return { db, goals, clock };
}

describe('GoalRepository', () => {
  it('writes what it is given, and a unit of work that throws leaves nothing behind', () => {
    const { goals } = setup();
    const goal = goals.create({ title: 'Trip', steps: [{ title: 'Pick dates' }] });
    expect(goal).toMatchObject({ status: 'active', timezone: 'UTC', deliverTo: [], passes: 0 });
    expect(() =>
      goals.transaction(() => {
        goals.replacePlan(goal.id, [{ title: 'A', status: 'pending', notes: '' }]);
        goals.addProposal(goal.id, { reason: 'r', steps: [{ title: 'A' }] });
        throw new Error('changed my mind');
      }),
    ).toThrow('changed my mind');
    expect(goals.get(goal.id)).toMatchObject({ steps: [{ title: 'Pick dates' }], proposals: [] });
    expect(goals.pendingProposals(goal.id)).toBe(0);
    expect(goals.planSize(goal.id)).toEqual({ count: 1, lastPosition: 1 });
  });

  it('answers "what is due" from indexes', () => {
    const { db } = setup();
    const plan = (sql: string, ...params: unknown[]) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as Array<{ detail: string }>)
        .map((row) => row.detail)
        .join('; ');
    expect(plan(DUE_QUERIES.overdue, '2026-01-01')).toMatch(
      /SEARCH goals USING INDEX goals_overdue \(due_date<\?\)/,
    );
    expect(plan(DUE_QUERIES.untouched, 0)).toMatch(/USING INDEX goals_untouched/);
    // Reads active goals only (the partial index); goals are few, so no index on the rest time.
    expect(plan(DUE_QUERIES.firstEligible)).toMatch(/USING INDEX goals_/);
    expect(plan(DUE_QUERIES.lastPass)).toMatch(/goals_last_pass/);
    expect(plan(DUE_QUERIES.checkins, 1, 1)).toMatch(
      /SEARCH goals USING INDEX goals_checkins_due \(next_checkin_at<\?\)/,
    );
    expect(plan(DUE_QUERIES.nextCheckin)).toMatch(/goals_checkins_due/);
  });
});
