import type { CronJobStore, OutboxStore } from '../store/ports.js';
import { type CronDefaults, firstRun, type JobRun, jobHistory, resolveJob } from './cron-source.js';
import type { CronJobDefinition } from './jobs-file.js';

/** One job for a listing (the `cron` tool, `wren jobs list`, the API): definition, next run, last run. */
export interface JobSummary {
  name: string;
  cron: string;
  timezone: string;
  /** Whether the time zone is the default (`agent.timezone`) rather than the job's own. */
  defaultTimezone: boolean;
  prompt: string;
  deliverTo: string[];
  enabled: boolean;
  /** The next scheduled run (UTC ms); undefined when disabled or the cron has no future occurrence. */
  nextAt?: number;
  lastRun?: JobRun;
}

/** `2026-06-01 08:00` in `timezone`. */
export function formatLocal(at: number, timezone: string): string {
  return new Intl.DateTimeFormat('sv-SE', {
    timeZone: timezone,
    dateStyle: 'short',
    timeStyle: 'short',
  }).format(at);
}

/**
 * The jobs of jobs.yaml with their defaults applied, their next run (the scheduler's, when it has synced
 * this very schedule; otherwise the first occurrence after `now`, which is what it will compute) and their
 * last run. Reads only.
 */
export function jobSummaries(
  jobs: readonly CronJobDefinition[],
  deps: { defaults: CronDefaults; now: number; repository?: CronJobStore; outbox?: OutboxStore },
): JobSummary[] {
  return jobs.map((job) => {
    const resolved = resolveJob(job, deps.defaults);
    const state = deps.repository?.get(job.name);
    const synced =
      state?.cron === resolved.cron && state.timezone === resolved.timezone ? state.nextAt : undefined;
    const nextAt = resolved.enabled ? (synced ?? firstRun(resolved, deps.now)) : undefined;
    const lastRun = deps.outbox ? jobHistory(deps.outbox, job.name, 1)[0] : undefined;
    return {
      name: resolved.name,
      cron: resolved.cron,
      timezone: resolved.timezone,
      defaultTimezone: job.timezone === undefined,
      prompt: resolved.prompt,
      deliverTo: resolved.deliverTo,
      enabled: resolved.enabled,
      ...(nextAt !== undefined ? { nextAt } : {}),
      ...(lastRun ? { lastRun } : {}),
    };
  });
}

/** A job as two lines: schedule, state and targets; then the prompt (cut at `promptChars`). */
export function jobSummaryLines(job: JobSummary, promptChars = 160): string[] {
  const state = !job.enabled
    ? 'disabled'
    : job.nextAt !== undefined
      ? `next ${formatLocal(job.nextAt, job.timezone)}`
      : 'no future run';
  const targets = job.deliverTo.length ? job.deliverTo.join(', ') : 'the feed only';
  const last = job.lastRun ? `; last ${jobRunLine(job.lastRun, job.timezone)}` : '';
  const prompt = job.prompt.length > promptChars ? `${job.prompt.slice(0, promptChars - 1)}…` : job.prompt;
  return [`${job.name}: "${job.cron}" ${job.timezone}, ${state} → ${targets}${last}`, `  ${prompt}`];
}

/** One run as a line: `2026-06-01 08:00 delivered 12.3 s (late)`, in `timezone`. */
export function jobRunLine(run: JobRun, timezone: string): string {
  const status = run.outcome ?? run.state;
  const duration = run.durationMs !== undefined ? ` ${(run.durationMs / 1000).toFixed(1)} s` : '';
  const flags = [run.manual ? 'manual' : undefined, run.late ? 'late' : undefined].filter(Boolean);
  const error = run.error ? `: ${run.error}` : '';
  return `${formatLocal(run.dueAt, timezone)} ${status}${duration}${flags.length ? ` (${flags.join(', ')})` : ''}${error}`;
}
