import { z } from 'zod';
import { type Tool, type ToolContext, ToolError, type ToolResult } from '../../agent/tool.js';
import { TOOL_AREAS } from '../../agent/tool-catalog.js';
import { toolSchema } from '../../agent/tool-schema.js';
import type { JobService, JobsFile } from '../../services/job-service.js';
import { ConfigError } from '../../util/config-error.js';
import { isTimeZone } from '../../util/time-zone.js';
import type { CronDefaults } from '../cron-source.js';
import { jobRunLine, jobSummaries, jobSummaryLines } from '../job-summary.js';
import { checkCron, checkJobName, deleteJob, type JobPatch, readJobsFile, writeJob } from '../jobs-file.js';
import { TARGET } from '../proactive-config.js';

const parameters = z
  .object({
    action: z.enum(['list', 'add', 'update', 'remove', 'enable', 'disable', 'history']),
    name: z
      .string()
      .optional()
      .describe('every action but list: the job name, 1–40 of a-z, 0-9 and "-" (e.g. daily-briefing)'),
    cron: z
      .string()
      .optional()
      .describe('add (required) / update: "minute hour day month weekday", e.g. "0 8 * * *", "30 7 * * 1-5"'),
    prompt: z.string().optional().describe('add (required) / update: what to do at each run'),
    timezone: z
      .string()
      .optional()
      .describe('add / update: IANA zone such as Europe/Berlin; default the owner\'s; "" resets (update)'),
    deliver_to: z
      .array(z.string())
      .optional()
      .describe('add / update: targets like telegram:123 or webhook:ntfy; default this chat; [] = feed only'),
  })
  .strict();

type Args = z.output<typeof parameters>;

export interface CronToolDeps {
  /** Absolute path of jobs.yaml: the single source of truth; the tool only edits it. */
  file: string;
  /** The jobs' listing and run history (with the next run the scheduler computed, and the last run). */
  jobs: Pick<JobService, 'list' | 'history'>;
  defaults: () => CronDefaults;
  /** Tells the scheduler jobs.yaml changed (it ticks now rather than within 30 s). */
  wake?: () => void;
  clock?: () => number;
}

/** Checks what add/update would write, with messages for the model; returns the patch. */
function patchOf(args: Args, defaultZone: string): JobPatch {
  const zone = args.timezone?.trim();
  if (zone && !isTimeZone(zone))
    throw new ToolError(`"${zone}" is not a time zone; use an IANA name such as Europe/Berlin.`);
  if (args.cron !== undefined) {
    const problem = checkCron(args.cron, zone || defaultZone);
    if (problem) throw new ToolError(`Invalid cron: ${problem}.`);
  }
  const bad = args.deliver_to?.find((target) => !TARGET.test(target.trim()));
  if (bad !== undefined)
    throw new ToolError(`"${bad}" is not a target; use channel:chat (telegram:123) or webhook:name.`);
  if (args.prompt !== undefined && !args.prompt.trim()) throw new ToolError('"prompt" must not be empty.');
  return {
    ...(args.cron !== undefined ? { cron: args.cron } : {}),
    ...(args.prompt !== undefined ? { prompt: args.prompt } : {}),
    ...(zone !== undefined ? { timezone: zone === '' ? null : zone } : {}),
    ...(args.deliver_to !== undefined ? { deliverTo: args.deliver_to } : {}),
  };
}

/** The chat the job was asked for in, when it can take deliveries (not a scheduled run's own channel). */
function hereTarget(ctx: ToolContext): string[] | undefined {
  const target = `${ctx.channel}:${ctx.chatId}`;
  return ctx.channel !== 'scheduler' && TARGET.test(target) ? [target] : undefined;
}

function fileError<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof ConfigError) throw new ToolError(error.message);
    throw error;
  }
}

/** The job name the action is about, checked. */
/** The prompt a job stores, for the gate's question; undefined when the file or the job is missing. */
function storedPrompt(file: string, name: string): string | undefined {
  try {
    return readJobsFile(file).find((job) => job.name === name)?.prompt;
  } catch {
    return undefined;
  }
}

function needName(args: Args): string {
  if (!args.name) throw new ToolError(`cron ${args.action} needs "name" (see cron list).`);
  const bad = checkJobName(args.name);
  if (bad) throw new ToolError(`${bad}.`);
  return args.name;
}

/** `list`: every job with its schedule, next and last run, and prompt. */
async function listResult(deps: CronToolDeps, file: JobsFile): Promise<ToolResult> {
  let summaries: Awaited<ReturnType<JobService['list']>>;
  try {
    summaries = await deps.jobs.list(file);
  } catch (error) {
    if (error instanceof ConfigError) throw new ToolError(error.message);
    throw error;
  }
  return {
    content: summaries.length ? summaries.flatMap((job) => jobSummaryLines(job)).join('\n') : 'No cron jobs.',
    details: summaries,
    taint: 'private',
  };
}

/** `history`: the last 20 runs, readable even while jobs.yaml is broken or after the job was removed. */
async function historyResult(deps: CronToolDeps, file: JobsFile, name: string): Promise<ToolResult> {
  const { runs, timezone } = await deps.jobs.history(file, name);
  return {
    content: runs.length
      ? [
          `Last ${runs.length} runs of ${name} (newest first):`,
          ...runs.map((run) => jobRunLine(run, timezone)),
        ].join('\n')
      : `No runs of ${name} yet.`,
    details: runs,
    taint: 'private',
  };
}

/**
 * `cron`: the owner's scheduled agent prompts in jobs.yaml (list, add, update, remove, enable, disable,
 * history). Every change is an edit of jobs.yaml, validated before it is written (the running scheduler
 * applies it at its next tick). A job the model adds delivers to the chat it was asked in unless targets are
 * given. Adding or updating stores a prompt a later run will act on, so after untrusted content it asks.
 */
export function createCronTool(deps: CronToolDeps): Tool {
  const clock = deps.clock ?? Date.now;
  const summary = (name: string): string => {
    const jobs = fileError(() => readJobsFile(deps.file)).filter((job) => job.name === name);
    const [job] = jobSummaries(jobs, { defaults: deps.defaults(), now: clock() });
    return job ? jobSummaryLines(job)[0]! : name;
  };
  const changed = (verb: string, name: string) => {
    deps.wake?.();
    return { content: `${verb} ${summary(name)}` };
  };

  return {
    name: 'cron',
    description:
      'Scheduled agent prompts (cron jobs in jobs.yaml), e.g. a daily briefing: list, add, update, remove, enable, disable, or show the run history of one.',
    parameters: toolSchema(parameters),
    risk: 'moderate',
    area: TOOL_AREAS.scheduling,
    // A job's prompt runs later with tools: after untrusted content, storing one asks first. The grant
    // target is the job name (lowercase letters, digits, "-"), never the prompt.
    // Enabling a job the owner switched off is planting as much as adding one: its stored prompt runs again.
    // Disabling or removing one is told to the owner after untrusted content (asked in strict mode).
    assess: (raw) => {
      const name = typeof raw['name'] === 'string' ? { target: raw['name'] } : {};
      const job = String(raw['name'] ?? '');
      const action = raw['action'];
      if (action === 'disable' || action === 'remove')
        return { ...name, removes: `the cron job ${job} (${action === 'remove' ? 'removed' : 'disabled'})` };
      if (action !== 'add' && action !== 'update' && action !== 'enable') return name;
      const stored = action === 'add' ? undefined : storedPrompt(deps.file, job);
      const prompt = typeof raw['prompt'] === 'string' ? raw['prompt'] : (stored ?? '(its prompt unchanged)');
      const shown = prompt.length > 80 ? `${prompt.slice(0, 77)}…` : prompt;
      const what = action === 'enable' ? `the cron job ${job}, enabled again,` : `a cron job ${job}`;
      return { ...name, persists: `${what} ("${shown}")` };
    },
    async execute(raw, ctx) {
      const args = parameters.parse(raw);
      const defaults = deps.defaults();
      switch (args.action) {
        case 'list':
          return listResult(deps, { path: deps.file, defaults });
        case 'add': {
          const name = needName(args);
          if (!args.cron || !args.prompt) throw new ToolError('cron add needs "name", "cron" and "prompt".');
          const patch = patchOf(args, defaults.timezone);
          const here = args.deliver_to === undefined ? hereTarget(ctx) : undefined;
          fileError(() =>
            writeJob(deps.file, name, here ? { ...patch, deliverTo: here } : patch, { create: true }),
          );
          return changed('Added', name);
        }
        case 'update': {
          const name = needName(args);
          const patch = patchOf(args, defaults.timezone);
          if (Object.keys(patch).length === 0)
            throw new ToolError(
              'cron update needs at least one of "cron", "prompt", "timezone", "deliver_to".',
            );
          fileError(() => writeJob(deps.file, name, patch, { create: false }));
          return changed('Updated', name);
        }
        case 'enable':
        case 'disable': {
          const name = needName(args);
          fileError(() =>
            writeJob(deps.file, name, { enabled: args.action === 'enable' }, { create: false }),
          );
          return changed(args.action === 'enable' ? 'Enabled' : 'Disabled', name);
        }
        case 'remove': {
          const name = needName(args);
          fileError(() => deleteJob(deps.file, name));
          deps.wake?.();
          return { content: `Removed the cron job ${name} (its run history stays).` };
        }
        case 'history':
          return historyResult(deps, { path: deps.file, defaults }, needName(args));
      }
    },
  };
}
