import { z } from 'zod';
import { type Tool, type ToolContext, ToolError, type ToolResult } from '../../agent/tool.js';
import { TOOL_AREAS } from '../../agent/tool-catalog.js';
import { toolSchema } from '../../agent/tool-schema.js';
import type { GoalService } from '../../services/goal-service.js';
import { describeGoal, goalLine, stepLine } from '../describe-goal.js';
import { GOAL_STATUSES, GoalError, type GoalStatus, STEP_STATUSES } from '../goals/goal-records.js';
import { TARGET } from '../proactive-config.js';

const step = z
  .object({
    title: z.string(),
    status: z.enum(STEP_STATUSES).optional(),
    notes: z.string().optional(),
  })
  .strict();

const parameters = z
  .object({
    action: z.enum(['create', 'list', 'show', 'update', 'add_step', 'update_step', 'propose']),
    id: z.number().int().min(1).optional().describe('the goal id (every action but create and list)'),
    title: z.string().optional().describe('create (required), add_step (required), update'),
    why: z.string().optional().describe('create/update: why the goal matters'),
    status: z
      .string()
      .optional()
      .describe(
        'update: active|paused|done|cancelled; update_step: pending|in_progress|done|blocked|skipped; list: open (default)|all|<goal status>',
      ),
    due: z.string().optional().describe('create/update: due date YYYY-MM-DD; "" clears it (update)'),
    checkin: z
      .string()
      .optional()
      .describe('create/update: check-in schedule as a cron expression, e.g. "0 18 * * 5"; "" stops them'),
    step: z.number().int().min(1).optional().describe('update_step: the step id (see show)'),
    notes: z.string().optional().describe('add_step/update_step: the step notes (replace the old ones)'),
    reason: z.string().optional().describe('propose: why the plan should change'),
    steps: z
      .array(step)
      .optional()
      .describe('create: the first steps; propose (required): the complete new step list, in order'),
  })
  .strict();

type Args = z.infer<typeof parameters>;

/** The channel scheduled runs arrive on (see createProactive): no person is present there. */
const SCHEDULED_CHANNEL = 'scheduler';

/** What a run nobody typed (a goal pass, a check-in) may do: read, mark steps, propose. */
const SCHEDULED_ACTIONS: ReadonlySet<Args['action']> = new Set(['list', 'show', 'update_step', 'propose']);

/** Actions that store text (titles, reasons, notes, steps) later prompts read. */
const STORING_ACTIONS: ReadonlySet<string> = new Set([
  'create',
  'update',
  'add_step',
  'update_step',
  'propose',
]);

/** The text a call stores for later prompts (goal pass and check-in prompts read it), if any. */
function storedText(raw: Record<string, unknown>): string {
  const parts: unknown[] = [raw['title'], raw['why'], raw['notes'], raw['reason']];
  if (Array.isArray(raw['steps'])) {
    for (const item of raw['steps'] as unknown[])
      if (item && typeof item === 'object') parts.push((item as Record<string, unknown>)['title']);
  }
  return parts.filter((part): part is string => typeof part === 'string' && part.trim() !== '').join(' — ');
}

function pick<T extends string>(
  value: string | undefined,
  allowed: readonly T[],
  what: string,
): T | undefined {
  if (value === undefined) return undefined;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new ToolError(`"${value}" is not a ${what}: use one of ${allowed.join(', ')}.`);
}

export interface GoalToolDeps {
  /** The owner's goal actions (the same service `wren goal` and `/api/goals` use). */
  goals: GoalService;
  clock?: () => number;
  /** Tells the scheduler a goal's schedule or status changed (it ticks now rather than within 30 s). */
  wake?: () => void;
}

/**
 * `goal`: the owner's goals with steps. The model may create goals, change them and their steps when the
 * owner asks, mark steps and propose plan changes; it can never accept or dismiss a proposal (the owner does,
 * in the CLI or the web app). In a scheduled run (a goal pass, a check-in: nobody typed it) it may only read,
 * mark steps and propose. Moderate risk; what it stores is read by later prompts (`persists`).
 */
export function createGoalTool(deps: GoalToolDeps): Tool {
  const clock = deps.clock ?? Date.now;
  return {
    name: 'goal',
    description:
      "Track the owner's goals and their plans: create, list, show, update (status, due date, check-in schedule), add_step, update_step (status, notes), propose (a changed plan for the owner to accept or dismiss).",
    parameters: toolSchema(parameters),
    risk: 'moderate',
    area: TOOL_AREAS.scheduling,
    // Goals are read by later prompts (passes, check-ins, show): what a tainted turn writes there asks first.
    assess: (raw) => {
      const action = raw['action'];
      if (typeof action !== 'string' || !STORING_ACTIONS.has(action)) return {};
      const text = storedText(raw);
      return text
        ? { persists: `a goal ${action} ("${text.length > 80 ? `${text.slice(0, 77)}…` : text}")` }
        : {};
    },
    async execute(raw, ctx) {
      if (raw['action'] === 'accept' || raw['action'] === 'dismiss')
        throw new ToolError(
          'Only the owner accepts or dismisses proposals (`wren goal accept|dismiss ID` or the web app); tell them it is waiting.',
        );
      const args = parameters.parse(raw);
      if (ctx.channel === SCHEDULED_CHANNEL && !SCHEDULED_ACTIONS.has(args.action))
        throw new ToolError(
          `goal ${args.action} is not allowed in a scheduled run: the goal and its plan are the owner's. Mark steps with update_step, or use propose with the complete new step list.`,
        );
      try {
        const result = run(deps.goals, args, ctx, clock());
        if (args.action === 'create' || args.action === 'update') deps.wake?.();
        return result;
      } catch (error) {
        if (error instanceof GoalError) throw new ToolError(error.message);
        throw error;
      }
    },
  };
}

function run(goals: GoalService, args: Args, ctx: ToolContext, now: number): ToolResult {
  const needId = () => {
    if (args.id === undefined) throw new ToolError(`goal ${args.action} needs "id" (see goal list).`);
    return args.id;
  };
  switch (args.action) {
    case 'create': {
      if (!args.title?.trim()) throw new ToolError('goal create needs "title".');
      const goal = goals.create({
        title: args.title,
        ...(args.why !== undefined ? { why: args.why } : {}),
        ...(args.due ? { dueDate: args.due } : {}),
        ...(args.checkin ? { checkinCron: args.checkin } : {}),
        ...(args.steps ? { steps: args.steps } : {}),
        sessionId: ctx.sessionId,
        // Check-ins go back to the chat the goal came from.
        deliverTo: TARGET.test(`${ctx.channel}:${ctx.chatId}`) ? [`${ctx.channel}:${ctx.chatId}`] : [],
      });
      return { content: `Created ${describeGoal(goal, now)}`, details: goal };
    }
    case 'list': {
      const which = pick(args.status, ['open', 'all', ...GOAL_STATUSES] as const, 'goal list filter');
      const list = goals.list(which ?? 'open', 50);
      return {
        content: list.length ? list.map((goal) => goalLine(goal, now)).join('\n') : 'No goals.',
        details: list,
        taint: 'private',
      };
    }
    case 'show': {
      const id = needId();
      const goal = goals.get(id);
      if (!goal) throw new ToolError(`There is no goal #${id}; list goals to see the ids.`);
      return { content: describeGoal(goal, now), details: goal, taint: 'private' };
    }
    case 'update': {
      const status: GoalStatus | undefined = pick(args.status, GOAL_STATUSES, 'goal status');
      const goal = goals.update(needId(), {
        ...(args.title !== undefined ? { title: args.title } : {}),
        ...(args.why !== undefined ? { why: args.why } : {}),
        ...(status ? { status } : {}),
        ...(args.due !== undefined ? { dueDate: args.due.trim() === '' ? null : args.due } : {}),
        ...(args.checkin !== undefined ? { checkinCron: args.checkin } : {}),
      });
      return { content: `Updated ${describeGoal(goal, now)}`, details: goal };
    }
    case 'add_step': {
      if (!args.title?.trim()) throw new ToolError('goal add_step needs "title".');
      const status = pick(args.status, STEP_STATUSES, 'step status');
      const added = goals.addStep(needId(), {
        title: args.title,
        ...(status ? { status } : {}),
        ...(args.notes !== undefined ? { notes: args.notes } : {}),
      });
      return { content: `Added ${stepLine(added)} to goal #${added.goalId}.`, details: added };
    }
    case 'update_step': {
      const id = needId();
      if (args.step === undefined)
        throw new ToolError('goal update_step needs "step" (the step id; see goal show).');
      const status = pick(args.status, STEP_STATUSES, 'step status');
      if (!status && args.notes === undefined)
        throw new ToolError('goal update_step needs "status" or "notes" (or both).');
      const changed = goals.updateStep(id, args.step, {
        ...(status ? { status } : {}),
        ...(args.notes !== undefined ? { notes: args.notes } : {}),
      });
      return { content: `Goal #${id}: ${stepLine(changed)}`, details: changed };
    }
    case 'propose': {
      const id = needId();
      if (!args.reason?.trim())
        throw new ToolError('goal propose needs "reason": why the plan should change.');
      if (!args.steps?.length)
        throw new ToolError('goal propose needs "steps": the complete new step list, in order.');
      const proposal = goals.propose(id, { reason: args.reason, steps: args.steps });
      return {
        content: `Proposed a new plan for goal #${id} (proposal ${proposal.id}, ${proposal.steps.length} steps). The plan is unchanged until the owner accepts it.`,
        details: proposal,
      };
    }
  }
}
