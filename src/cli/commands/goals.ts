import type { Command } from 'commander';
import type { GoalService, GoalStatus } from '../../services/goal-service.js';
import { plural } from '../plural.js';
import { EXIT } from '../report-failure.js';

/** Where the goal commands write (the process streams, or buffers in tests). */
export interface GoalCommandIo {
  stdout: Pick<NodeJS.WritableStream, 'write'>;
  stderr: Pick<NodeJS.WritableStream, 'write'>;
}

export interface GoalCommandDeps {
  io?: GoalCommandIo;
  now?: () => number;
}

/** What a goal command works with: the goals, the targets check-ins go to by default, the time. */
interface GoalCommandContext {
  goals: GoalService;
  io: GoalCommandIo;
  now: number;
  /** `proactive.deliver_to`, else the terminal. */
  defaultTargets: string[];
}

/**
 * Runs `work` on the home's goal service (config.yaml's zone, the migrated wren.db, closed afterwards); a GoalError
 * becomes its exit code (not found or already decided 1, invalid 2).
 */
async function withGoals(
  home: string,
  deps: GoalCommandDeps,
  work: (context: GoalCommandContext) => number,
): Promise<number> {
  const io = deps.io ?? { stdout: process.stdout, stderr: process.stderr };
  const { withHome } = await import('../../app/open-home.js');
  const { GoalError } = await import('../../services/goal-service.js');
  try {
    return await withHome(home, (opened) => {
      const { proactive } = opened.config;
      return work({
        goals: opened.services().goals,
        io,
        now: (deps.now ?? Date.now)(),
        defaultTargets: proactive.deliverTo.length ? [...proactive.deliverTo] : ['cli:terminal'],
      });
    });
  } catch (error) {
    if (!(error instanceof GoalError)) throw error;
    io.stderr.write(`wren: ${error.message}\n`);
    return error.code === 'invalid' ? EXIT.usage : EXIT.failed;
  }
}

/** Tells a running gateway of this home to tick now, so a schedule change applies at once (else within 30 s). */
async function nudgeScheduler(home: string): Promise<void> {
  const { findGateway, callGateway } = await import('../gateway-client.js');
  const found = await findGateway(home).catch(() => undefined);
  if (found?.state === 'running')
    await callGateway(found.link, 'POST', '/api/tick', {}, 2000).catch(() => {});
}

/** A positive whole number, or undefined after saying why (the caller exits with EXIT.usage). */
function idOf(text: string, kind: 'goal' | 'proposal', io: GoalCommandIo | undefined): number | undefined {
  if (/^\d+$/.test(text) && Number(text) > 0) return Number(text);
  (io ?? { stderr: process.stderr }).stderr.write(
    `wren: "${text}" is not a ${kind} id (a positive number; see wren goal list)\n`,
  );
  return undefined;
}

const json = (io: GoalCommandIo, value: unknown) => io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);

/** `wren goal list`: open goals (or all), by status then due date. */
export async function runGoalList(
  options: { home: string; all?: boolean; json?: boolean },
  deps: GoalCommandDeps = {},
): Promise<number> {
  const { goalLine } = await import('../../proactive/describe-goal.js');
  return withGoals(options.home, deps, ({ goals, io, now }) => {
    const list = goals.list(options.all ? 'all' : 'open', 500);
    if (options.json) json(io, { goals: list });
    else if (list.length === 0)
      io.stdout.write('No goals. Add one with: wren goal add "title" [--due YYYY-MM-DD]\n');
    else io.stdout.write(`${list.map((goal) => goalLine(goal, now)).join('\n')}\n`);
    return EXIT.ok;
  });
}

/** `wren goal show ID`: the goal, its steps and the proposals waiting for the owner. */
export async function runGoalShow(
  options: { home: string; id: string; json?: boolean },
  deps: GoalCommandDeps = {},
): Promise<number> {
  const id = idOf(options.id, 'goal', deps.io);
  if (id === undefined) return EXIT.usage;
  const { describeGoal } = await import('../../proactive/describe-goal.js');
  return withGoals(options.home, deps, ({ goals, io, now }) => {
    const goal = goals.get(id);
    if (!goal) {
      io.stderr.write(`wren: there is no goal #${id}; wren goal list shows them\n`);
      return EXIT.failed;
    }
    if (options.json) json(io, goal);
    else {
      io.stdout.write(`${describeGoal(goal, now)}\n`);
      if (goal.proposals.length > 0)
        io.stdout.write('Accept or dismiss a proposal with: wren goal accept|dismiss PROPOSAL\n');
    }
    return EXIT.ok;
  });
}

export interface GoalAddOptions {
  home: string;
  title: string;
  due?: string;
  checkin?: string;
  why?: string;
  /** Where check-ins go (default: `proactive.deliver_to`, else the terminal). */
  to?: string[];
}

/** `wren goal add "title" [--due YYYY-MM-DD] [--checkin CRON] [--why TEXT] [--to TARGET…]`. */
export async function runGoalAdd(options: GoalAddOptions, deps: GoalCommandDeps = {}): Promise<number> {
  const { TARGET } = await import('../../proactive/proactive-config.js');
  const bad = options.to?.find((target) => !TARGET.test(target));
  if (bad !== undefined) {
    (deps.io ?? { stderr: process.stderr }).stderr.write(
      `wren: --to "${bad}" is not a target: use channel:chat (telegram:123) or webhook:name\n`,
    );
    return EXIT.usage;
  }
  const code = await withGoals(options.home, deps, ({ goals, io, defaultTargets }) => {
    const goal = goals.create({
      title: options.title,
      ...(options.due !== undefined ? { dueDate: options.due } : {}),
      ...(options.checkin !== undefined ? { checkinCron: options.checkin } : {}),
      ...(options.why !== undefined ? { why: options.why } : {}),
      deliverTo: options.to?.length ? options.to : defaultTargets,
    });
    io.stdout.write(`Added goal #${goal.id}: ${goal.title}\n`);
    return EXIT.ok;
  });
  if (code === EXIT.ok && options.checkin) await nudgeScheduler(options.home);
  return code;
}

const STATUS_OF = { done: 'done', pause: 'paused', resume: 'active', cancel: 'cancelled' } as const;

/** `wren goal done|pause|resume|cancel ID`. */
export async function runGoalStatus(
  options: { home: string; id: string; command: keyof typeof STATUS_OF },
  deps: GoalCommandDeps = {},
): Promise<number> {
  const id = idOf(options.id, 'goal', deps.io);
  if (id === undefined) return EXIT.usage;
  const status: GoalStatus = STATUS_OF[options.command];
  const code = await withGoals(options.home, deps, ({ goals, io }) => {
    const goal = goals.update(id, { status });
    io.stdout.write(`Goal #${goal.id} is now ${goal.status}: ${goal.title}\n`);
    return EXIT.ok;
  });
  if (code === EXIT.ok) await nudgeScheduler(options.home);
  return code;
}

/** `wren goal step ID "title"`: appends a step to the plan. */
export async function runGoalStep(
  options: { home: string; id: string; title: string },
  deps: GoalCommandDeps = {},
): Promise<number> {
  const id = idOf(options.id, 'goal', deps.io);
  if (id === undefined) return EXIT.usage;
  return withGoals(options.home, deps, ({ goals, io }) => {
    const step = goals.addStep(id, { title: options.title });
    io.stdout.write(`Added step ${step.id} to goal #${id}: ${step.title}\n`);
    return EXIT.ok;
  });
}

/** `wren goal accept|dismiss PROPOSAL`: the owner's decision on a proposed plan. */
export async function runGoalDecide(
  options: { home: string; id: string; decision: 'accept' | 'dismiss' },
  deps: GoalCommandDeps = {},
): Promise<number> {
  const id = idOf(options.id, 'proposal', deps.io);
  if (id === undefined) return EXIT.usage;
  return withGoals(options.home, deps, ({ goals, io }) => {
    if (options.decision === 'accept') {
      const goal = goals.accept(id);
      io.stdout.write(
        `Accepted proposal ${id}: goal #${goal.id} now has ${plural(goal.steps.length, 'step')}.\n`,
      );
    } else {
      const proposal = goals.dismiss(id);
      io.stdout.write(`Dismissed proposal ${id}; the plan of goal #${proposal.goalId} is unchanged.\n`);
    }
    return EXIT.ok;
  });
}

/** `wren goal …`. Exit codes: 0 ok, 1 not found (or already decided), 2 bad input. */
export function registerGoalCommands(program: Command, home: () => string): void {
  const goal = program.command('goal').description('goals with steps, check-ins and proposed plans');
  goal
    .command('list', { isDefault: true })
    .description('open goals (active and paused), soonest due first')
    .option('--all', 'include done and cancelled goals')
    .option('--json', 'print JSON')
    .action(async (options: { all?: boolean; json?: boolean }) => {
      process.exitCode = await runGoalList({ home: home(), ...options });
    });
  goal
    .command('show <id>')
    .description('a goal with its steps and the proposals waiting for you')
    .option('--json', 'print JSON')
    .action(async (id: string, options: { json?: boolean }) => {
      process.exitCode = await runGoalShow({ home: home(), id, ...options });
    });
  goal
    .command('add <title...>')
    .description('add a goal')
    .option('--due <date>', 'due date, YYYY-MM-DD')
    .option('--checkin <cron>', 'check-in schedule, e.g. "0 18 * * 5" (Fridays 18:00)')
    .option('--why <text>', 'why it matters')
    .option(
      '--to <target...>',
      'where check-ins go: telegram:123, webhook:ntfy … (default: proactive.deliver_to, else the terminal)',
    )
    .action(async (words: string[], options: Omit<GoalAddOptions, 'home' | 'title'>) => {
      process.exitCode = await runGoalAdd({ home: home(), title: words.join(' '), ...options });
    });
  for (const [command, description] of [
    ['done', 'mark a goal done'],
    ['pause', 'pause a goal (no passes, no check-ins)'],
    ['resume', 'make a paused goal active again'],
    ['cancel', 'cancel a goal'],
  ] as const) {
    goal
      .command(`${command} <id>`)
      .description(description)
      .action(async (id: string) => {
        process.exitCode = await runGoalStatus({ home: home(), id, command });
      });
  }
  goal
    .command('step <id> <title...>')
    .description('add a step to a goal')
    .action(async (id: string, words: string[]) => {
      process.exitCode = await runGoalStep({ home: home(), id, title: words.join(' ') });
    });
  for (const decision of ['accept', 'dismiss'] as const) {
    goal
      .command(`${decision} <proposal>`)
      .description(decision === 'accept' ? 'replace the plan with a proposed one' : 'dismiss a proposed plan')
      .action(async (id: string) => {
        process.exitCode = await runGoalDecide({ home: home(), id, decision });
      });
  }
}
