import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createGoals, type Goals } from '../../proactive/goals/goal-rules.js';
import { GoalRepository } from '../../store/goal-repository.js';
import { openDatabase } from '../../store/open-database.js';
import { runGoalAdd, runGoalDecide, runGoalList, runGoalShow, runGoalStatus, runGoalStep } from './goals.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function home(config = 'agent:\n  timezone: UTC\n') {
  const root = mkdtempSync(join(tmpdir(), 'wren-goalcli-'));
  const dir = join(root, 'home');
  mkdirSync(dir, { mode: 0o700 });
  writeFileSync(join(dir, 'config.yaml'), config, { mode: 0o600 });
  const db = openDatabase(join(dir, 'wren.db'));
  db.close();
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  return dir;
}

/** Buffers for what a command writes, and the deps to pass it. */
function io() {
  const out = { stdout: '', stderr: '' };
  const sink = (key: 'stdout' | 'stderr') => ({
    write: (text: string) => {
      out[key] += text;
      return true;
    },
  });
  return { out, deps: { io: { stdout: sink('stdout'), stderr: sink('stderr') }, now: () => NOW } };
}

const NOW = Date.parse('2026-04-01T09:00:00Z');

/** Works on the home's goals directly (as the model or another process would). */
function withRepository<T>(dir: string, use: (goals: Goals) => T): T {
  const db = openDatabase(join(dir, 'wren.db'), { migrate: false });
  try {
    const store = new GoalRepository(db, { now: () => NOW, timezone: () => 'UTC' });
    return use(createGoals(store, { now: () => NOW, timezone: () => 'UTC' }));
  } finally {
    db.close();
  }
}

describe('wren goal', () => {
  it('adds, lists, shows, steps and changes the status of goals', async () => {
    const dir = home();
    const add = io();
    expect(
      await runGoalAdd(
        { home: dir, title: 'Run a half marathon', due: '2026-09-01', checkin: '0 18 * * 5', why: 'health' },
        add.deps,
      ),
    ).toBe(0);
    expect(add.out.stdout).toBe('Added goal #1: Run a half marathon\n');
    expect(await runGoalStep({ home: dir, id: '1', title: 'Buy shoes' }, io().deps)).toBe(0);

    const list = io();
    expect(await runGoalList({ home: dir }, list.deps)).toBe(0);
    expect(list.out.stdout).toBe('#1 [active] Run a half marathon — due 2026-09-01 (in 153 days)\n');
    const shown = io();
    expect(await runGoalShow({ home: dir, id: '1' }, shown.deps)).toBe(0);
    expect(shown.out.stdout).toContain('check-ins "0 18 * * 5" (UTC)');
    expect(shown.out.stdout).toContain('step 1 [pending] Buy shoes');

    for (const [command, status] of [
      ['pause', 'paused'],
      ['resume', 'active'],
      ['done', 'done'],
    ] as const) {
      const changed = io();
      expect(await runGoalStatus({ home: dir, id: '1', command }, changed.deps)).toBe(0);
      expect(changed.out.stdout).toBe(`Goal #1 is now ${status}: Run a half marathon\n`);
    }
    const open = io();
    await runGoalList({ home: dir, json: true }, open.deps);
    expect(JSON.parse(open.out.stdout)).toEqual({ goals: [] });
    const all = io();
    await runGoalList({ home: dir, all: true, json: true }, all.deps);
    expect(JSON.parse(all.out.stdout).goals).toMatchObject([
      { id: 1, status: 'done', dueDate: '2026-09-01', deliverTo: ['cli:terminal'], timezone: 'UTC' },
    ]);
  });

  it('accepts a proposal (the plan is replaced) and dismisses another (the plan stays)', async () => {
    const dir = home();
    await runGoalAdd({ home: dir, title: 'Trip', to: ['telegram:42'] }, io().deps);
    await runGoalStep({ home: dir, id: '1', title: 'Pick dates' }, io().deps);
    const [keep, drop] = withRepository(dir, (goals) => [
      goals.propose(1, {
        reason: 'Flights first',
        steps: [{ title: 'Book flights' }, { title: 'Pick dates' }],
      }),
      goals.propose(1, { reason: 'Skip it', steps: [{ title: 'Stay home' }] }),
    ]);
    const shown = io();
    await runGoalShow({ home: dir, id: '1' }, shown.deps);
    expect(shown.out.stdout).toContain('wren goal accept|dismiss PROPOSAL');

    const dismiss = io();
    expect(await runGoalDecide({ home: dir, id: String(drop!.id), decision: 'dismiss' }, dismiss.deps)).toBe(
      0,
    );
    expect(dismiss.out.stdout).toBe(`Dismissed proposal ${drop!.id}; the plan of goal #1 is unchanged.\n`);
    const accept = io();
    expect(await runGoalDecide({ home: dir, id: String(keep!.id), decision: 'accept' }, accept.deps)).toBe(0);
    expect(accept.out.stdout).toBe(`Accepted proposal ${keep!.id}: goal #1 now has 2 steps.\n`);

    const json = io();
    await runGoalShow({ home: dir, id: '1', json: true }, json.deps);
    const goal = JSON.parse(json.out.stdout) as {
      steps: Array<{ title: string }>;
      proposals: unknown[];
      deliverTo: string[];
    };
    expect(goal.steps.map((step) => step.title)).toEqual(['Book flights', 'Pick dates']);
    expect(goal.proposals).toEqual([]);
    expect(goal.deliverTo).toEqual(['telegram:42']);

    const again = io();
    expect(await runGoalDecide({ home: dir, id: String(keep!.id), decision: 'dismiss' }, again.deps)).toBe(1);
    expect(again.out.stderr).toBe(`wren: Proposal ${keep!.id} was already accepted.\n`);
  });

  it('exits 1 for what does not exist and 2 for bad input, saying what to do', async () => {
    const dir = home();
    const cases: Array<[(deps: ReturnType<typeof io>['deps']) => Promise<number>, number, RegExp]> = [
      [(deps) => runGoalShow({ home: dir, id: '7' }, deps), 1, /no goal #7; wren goal list shows them/],
      [(deps) => runGoalStatus({ home: dir, id: '7', command: 'done' }, deps), 1, /no goal #7/],
      [(deps) => runGoalStep({ home: dir, id: '7', title: 'x' }, deps), 1, /no goal #7/],
      [(deps) => runGoalDecide({ home: dir, id: '7', decision: 'accept' }, deps), 1, /no proposal 7/],
      [(deps) => runGoalShow({ home: dir, id: 'seven' }, deps), 2, /"seven" is not a goal id/],
      [(deps) => runGoalDecide({ home: dir, id: '0', decision: 'dismiss' }, deps), 2, /not a proposal id/],
      [(deps) => runGoalAdd({ home: dir, title: 'x', due: '2026-13-01' }, deps), 2, /use YYYY-MM-DD/],
      [(deps) => runGoalAdd({ home: dir, title: 'x', checkin: 'fridays' }, deps), 2, /cron expression/],
      [(deps) => runGoalAdd({ home: dir, title: 'x', to: ['nowhere'] }, deps), 2, /not a target/],
      [(deps) => runGoalAdd({ home: dir, title: ' ' }, deps), 2, /cannot be empty/],
    ];
    for (const [command, code, message] of cases) {
      const run = io();
      expect(await command(run.deps)).toBe(code);
      expect(run.out.stderr).toMatch(message);
    }
    const list = io();
    await runGoalList({ home: dir }, list.deps);
    expect(list.out.stdout).toMatch(/^No goals\. Add one with: wren goal add/);
  });
});
