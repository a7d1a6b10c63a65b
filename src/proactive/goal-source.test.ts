import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../test/support/fake-clock.js';
import { GoalRepository } from '../store/goal-repository.js';
import { openDatabase } from '../store/open-database.js';
import { type Delivery, OutboxRepository, type OutboxRun } from '../store/outbox-repository.js';
import { goalSource } from './goal-source.js';
import { createGoals } from './goals/goal-rules.js';
import { type ProactiveSection, proactiveSectionSchema, toProactiveConfig } from './proactive-config.js';
import { createRunExecutor } from './run-executor.js';
import { Scheduler } from './scheduler.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/**
 * The real scheduler and run executor over a real database, on a fake clock, with only the goals source.
 * `runAgent` records each run and answers `reply(run)`; `settings` may be changed between ticks.
 */
function harness(start: string, section: Partial<ProactiveSection> = {}) {
  const clock = new FakeClock(Date.parse(start));
  const dir = mkdtempSync(join(tmpdir(), 'wren-goalsrc-'));
  const db = openDatabase(join(dir, 'wren.db'));
  const goals = createGoals(new GoalRepository(db, { now: clock.now, timezone: () => 'UTC' }), {
    now: clock.now,
    timezone: () => 'UTC',
  });
  const outbox = new OutboxRepository(db, clock.now);
  const settings = { config: toProactiveConfig(proactiveSectionSchema.parse(section)) };
  const runs: OutboxRun[] = [];
  const delivered: Delivery[] = [];
  let reply = (_run: OutboxRun) => '[quiet] nothing needs you';
  const executor = createRunExecutor({
    outbox,
    clock: clock.now,
    runAgent: async (run) => {
      runs.push(run);
      return { text: reply(run), failed: false };
    },
    deliverers: {
      channel: async (delivery) => {
        delivered.push(delivery);
      },
    },
  });
  const source = goalSource({ goals, outbox, config: () => settings.config, timezone: () => 'UTC' });
  const loop = new Scheduler({ sources: [source], executor, clock: clock.now, timers: clock });
  cleanups.push(() => {
    loop.stop();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const configure = (changes: Partial<ProactiveSection>) => {
    settings.config = toProactiveConfig(proactiveSectionSchema.parse({ ...section, ...changes }));
  };
  const advance = async (ms: number) => {
    await clock.advance(ms);
    await loop.idle();
  };
  const answer = (next: (run: OutboxRun) => string) => {
    reply = next;
  };
  /** Each pass changes its goal (the model notes a step), so the goal does not rest between passes. */
  const progress = () =>
    answer((run) => {
      if (run.kind === 'goal') goals.addStep(Number(run.ref), { title: `noted at pass ${run.sourceKey}` });
      return '[quiet] noted a step';
    });
  return { clock, db, goals, outbox, source, loop, runs, delivered, configure, advance, answer, progress };
}

const at = (iso: string) => Date.parse(iso);
const passes = (runs: OutboxRun[]) => runs.filter((run) => run.kind === 'goal');

describe('goal passes', () => {
  it('run at most one pass per interval, taking the least recently touched goal, keyed by pass number', async () => {
    const { goals, loop, runs, advance, outbox, delivered, progress } = harness('2026-04-01T09:00:00Z');
    progress();
    const a = goals.create({ title: 'Learn Spanish', steps: [{ title: 'Pick a course', notes: 'ask Ana' }] });
    const b = goals.create({ title: 'Run a half marathon', dueDate: '2026-09-01' });
    goals.propose(b.id, {
      reason: 'Build up slowly',
      steps: [{ title: 'Run 5 km' }, { title: 'Run 10 km' }],
    });
    loop.start();
    await advance(3 * HOUR + 10 * MINUTE);
    const done = passes(runs);
    expect(done.map((run) => run.sourceKey)).toEqual([`goal:${a.id}:1`, `goal:${b.id}:1`, `goal:${a.id}:2`]);
    expect(done.map((run) => run.dueAt)).toEqual([
      at('2026-04-01T10:00:00Z'),
      at('2026-04-01T11:00:00Z'),
      at('2026-04-01T12:00:00Z'),
    ]);
    expect(done[0]!.payload).toMatchObject({ mode: 'agent', autonomous: true, deliverTo: [] });
    const prompt = done[1]!.payload.text;
    for (const part of [
      'Goal #2: Run a half marathon — active · due 2026-09-01 (in 153 days)',
      'Steps: none yet.',
      'proposal 1: Build up slowly → 2 steps: Run 5 km; Run 10 km',
      'update_step',
      'propose',
      'You may not change the plan yourself',
      '[quiet]',
    ])
      expect(prompt).toContain(part);
    expect(done[0]!.payload.text).toContain('[pending] Pick a course — ask Ana');
    // Autonomous "[quiet]" answers go to the feed only.
    expect(outbox.feed().every((item) => item.quiet)).toBe(true);
    expect(delivered).toEqual([]);
    expect(goals.get(a.id)).toMatchObject({ passes: 2, lastPassAt: at('2026-04-01T12:00:00Z') });
  });

  it('takes an overdue goal first, then the others in turn', async () => {
    const { goals, loop, runs, advance, progress } = harness('2026-04-01T09:00:00Z');
    progress();
    const untouched = goals.create({ title: 'No due date' });
    const overdue = goals.create({ title: 'Taxes', dueDate: '2026-03-31' });
    loop.start();
    await advance(3 * HOUR);
    expect(passes(runs).map((run) => run.ref)).toEqual([overdue.id, untouched.id, overdue.id].map(String));
    expect(passes(runs)[0]!.payload.text).toContain('due 2026-03-31 (overdue by 1 day)');
  });

  it('lets a goal nothing changed since its last pass rest a day, and passes it again soon after a change', async () => {
    const { goals, loop, runs, advance, source, clock } = harness('2026-04-01T09:00:00Z');
    const goal = goals.create({ title: 'Learn Spanish' });
    loop.start();
    await advance(5 * HOUR); // one pass at 10:00 that answered [quiet] and changed nothing
    expect(passes(runs).map((run) => run.dueAt)).toEqual([at('2026-04-01T10:00:00Z')]);
    expect(source.nextDue(clock.now())).toBe(at('2026-04-02T10:00:00Z'));
    await advance(21 * HOUR); // to 11:00 the next day: the rested pass at 10:00
    expect(passes(runs).map((run) => run.dueAt)).toEqual([
      at('2026-04-01T10:00:00Z'),
      at('2026-04-02T10:00:00Z'),
    ]);
    goals.update(goal.id, { why: 'a trip to Madrid in June' }); // at 11:00
    loop.wake(); // as the tool, the CLI and the API do after a change
    await advance(HOUR);
    expect(
      passes(runs)
        .map((run) => run.dueAt)
        .at(-1),
    ).toBe(at('2026-04-02T11:00:00Z'));
  });

  it('runs none while proactivity is off', async () => {
    const { goals, loop, runs, advance, source, clock } = harness('2026-04-01T09:00:00Z', {
      proactivity: 'off',
    });
    goals.create({ title: 'Learn Spanish' });
    loop.start();
    await advance(6 * HOUR);
    expect(runs).toEqual([]);
    expect(source.nextDue(clock.now())).toBeUndefined();
  });

  it('holds passes during quiet hours and runs one when they end', async () => {
    const { goals, loop, runs, advance, source, clock } = harness('2026-04-01T21:30:00Z', {
      quiet_hours: '22:00-07:00',
    });
    goals.create({ title: 'Learn Spanish' });
    goals.create({ title: 'Read more' });
    loop.start();
    await advance(2 * HOUR);
    expect(runs).toEqual([]);
    expect(source.nextDue(clock.now())).toBe(at('2026-04-02T07:00:00Z'));
    await advance(8 * HOUR + 30 * MINUTE); // to 08:00 (inclusive)
    expect(passes(runs).map((run) => run.dueAt)).toEqual([
      at('2026-04-02T07:00:00Z'),
      at('2026-04-02T08:00:00Z'),
    ]);
  });

  it('applies a proactivity change at the next tick', async () => {
    const { goals, loop, runs, advance, configure, progress } = harness('2026-04-01T09:00:00Z');
    progress();
    goals.create({ title: 'Learn Spanish' });
    loop.start();
    await advance(70 * MINUTE); // pass at 10:00
    configure({ proactivity: 'high' }); // every 30 min from now on
    await advance(25 * MINUTE); // pass at 10:30, not 11:00
    configure({ proactivity: 'low' }); // every 120 min
    await advance(3 * HOUR); // pass at 12:30
    configure({ proactivity: 'off' });
    await advance(5 * HOUR);
    expect(passes(runs).map((run) => new Date(run.dueAt).toISOString().slice(11, 16))).toEqual([
      '10:00',
      '10:30',
      '12:30',
    ]);
  });
});

describe('goal passes between two schedulers', () => {
  it('one pass per interval even when another process claims between our look and our claim', () => {
    const { db, goals, outbox } = harness('2026-04-01T09:00:00Z');
    const first = goals.create({ title: 'Learn Spanish' });
    goals.create({ title: 'Read more' });
    const now = at('2026-04-01T10:00:00Z');
    const config = () => toProactiveConfig(proactiveSectionSchema.parse({}));
    const other = goalSource({ goals, outbox, config, timezone: () => 'UTC' });
    /** Our view: the other process claims right after we decided a pass is due, before we pick the goal. */
    const ourView = createGoals(new GoalRepository(db, { now: () => now, timezone: () => 'UTC' }), {
      now: () => now,
      timezone: () => 'UTC',
    });
    const racing = {
      ...ourView,
      nextForPass(when: number) {
        other.claimDue(when);
        return ourView.nextForPass(when);
      },
    };
    const ours = goalSource({ goals: racing, outbox, config, timezone: () => 'UTC' });
    expect(ours.claimDue(now)).toEqual([]);
    expect(outbox.runsOf('goal', String(first.id)).map((run) => run.sourceKey)).toEqual([
      `goal:${first.id}:1`,
    ]);
    expect(outbox.unfinished()).toHaveLength(1);
  });
});

describe('goal check-ins', () => {
  it('fire on their cron once each, are never quiet and ignore quiet hours', async () => {
    const { goals, loop, runs, advance, delivered, answer } = harness('2026-04-01T12:00:00Z', {
      proactivity: 'off',
      quiet_hours: '17:00-19:00',
    });
    const goal = goals.create({
      title: 'Run a half marathon',
      checkinCron: '0 18 * * *',
      timezone: 'UTC',
      sessionId: 'origin-session',
      deliverTo: ['telegram:42'],
      steps: [{ title: 'Run 5 km', status: 'done' }, { title: 'Run 10 km' }],
    });
    answer(() => '[quiet] How did the 10 km go?');
    loop.start();
    await advance(2 * 24 * HOUR);
    expect(runs.map((run) => run.sourceKey)).toEqual([
      `checkin:${goal.id}:2026-04-01T18:00:00.000Z`,
      `checkin:${goal.id}:2026-04-02T18:00:00.000Z`,
    ]);
    expect(runs[0]!.payload).toMatchObject({
      title: 'Check-in: Run a half marathon',
      mode: 'agent',
      autonomous: false,
      sessionId: 'origin-session',
      deliverTo: ['telegram:42'],
    });
    expect(runs[0]!.payload.text).toContain('never [quiet]');
    expect(runs[0]!.payload.text).toContain('[pending] Run 10 km');
    expect(delivered.map((delivery) => [delivery.target, delivery.text])).toEqual([
      ['telegram:42', '[quiet] How did the 10 km go?'],
      ['telegram:42', '[quiet] How did the 10 km go?'],
    ]);
    expect(goals.get(goal.id)?.nextCheckinAt).toBe(at('2026-04-03T18:00:00Z'));
  });

  it('stop while the goal is paused and are caught up once (late) after downtime', async () => {
    const { goals, loop, runs, advance, clock } = harness('2026-04-01T12:00:00Z', { proactivity: 'off' });
    const goal = goals.create({ title: 'Read more', checkinCron: '0 18 * * *', timezone: 'UTC' });
    goals.update(goal.id, { status: 'paused' });
    loop.start();
    await advance(24 * HOUR);
    expect(runs).toEqual([]);
    goals.update(goal.id, { status: 'active' });
    loop.stop();
    clock.jump(3 * 24 * HOUR); // down for three days
    loop.start();
    await loop.idle();
    expect(runs.map((run) => [run.sourceKey.slice(-24), run.late])).toEqual([
      ['2026-04-02T18:00:00.000Z', true],
    ]);
    expect(goals.get(goal.id)?.nextCheckinAt).toBe(at('2026-04-05T18:00:00Z'));
  });
});
