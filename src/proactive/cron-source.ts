import { createHash } from 'node:crypto';
import type { CronJobState } from '../store/cron-job-repository.js';
import type { OutboxOutcome, OutboxPayload, OutboxRun, OutboxState } from '../store/outbox-repository.js';
import type { CronJobStore, OutboxStore } from '../store/ports.js';
import { claimOccurrence, LATE_AFTER_MS, nextOccurrence } from '../util/schedule.js';
import type { CronJobDefinition } from './jobs-file.js';
import type { DueSource } from './scheduler.js';

/** What a job takes from config.yaml when jobs.yaml leaves it out. */
export interface CronDefaults {
  /** `agent.timezone`. */
  timezone: string;
  /** `proactive.deliver_to`. */
  deliverTo: readonly string[];
}

/** A job with its defaults applied, as it runs. */
export interface ResolvedCronJob {
  name: string;
  cron: string;
  timezone: string;
  prompt: string;
  deliverTo: string[];
  enabled: boolean;
  /** SHA-256 of the fields above: a changed definition has a different hash. */
  hash: string;
}

/** Applies the config defaults to a job of jobs.yaml. Pure. */
export function resolveJob(job: CronJobDefinition, defaults: CronDefaults): ResolvedCronJob {
  const resolved = {
    name: job.name,
    cron: job.cron,
    timezone: job.timezone ?? defaults.timezone,
    prompt: job.prompt,
    deliverTo: [...(job.deliverTo ?? defaults.deliverTo)],
    enabled: job.enabled,
  };
  return { ...resolved, hash: createHash('sha256').update(JSON.stringify(resolved)).digest('hex') };
}

/** The outbox key of a scheduled occurrence: `cron:<name>:<ISO time of the slot>`. */
export function cronKey(name: string, dueAt: number): string {
  return `cron:${name}:${new Date(dueAt).toISOString()}`;
}

/** The outbox key of a manual run (`wren jobs run`): `cron:<name>:manual-<ISO time it was asked for>`. */
export function manualCronKey(name: string, requestedAt: number): string {
  return `cron:${name}:manual-${new Date(requestedAt).toISOString()}`;
}

/** The first occurrence of a job after `now`. */
export function firstRun(job: Pick<ResolvedCronJob, 'cron' | 'timezone'>, now: number): number | undefined {
  return nextOccurrence({ cron: job.cron, timezone: job.timezone }, now);
}

function payloadOf(job: ResolvedCronJob): OutboxPayload {
  // The owner set the job up: it always surfaces and ignores quiet hours (never autonomous).
  return { title: job.name, text: job.prompt, mode: 'agent', autonomous: false, deliverTo: job.deliverTo };
}

export interface CronSourceDeps {
  /** The jobs in force (a JobsWatcher's `current`); undefined while jobs.yaml was never valid. */
  jobs: () => readonly CronJobDefinition[] | undefined;
  /** Read at every tick, so a config change applies at the next one. */
  defaults: () => CronDefaults;
  repository: CronJobStore;
  outbox: OutboxStore;
}

/**
 * Due cron jobs as outbox runs (`DueSource` named `cron`). Each tick first brings the job rows in line with
 * the jobs in force (new job → first occurrence from now; changed cron or zone → recomputed; removed →
 * row deleted; unchanged → untouched, one small query), then claims each due occurrence under
 * `cron:<name>:<slot>` together with the job's advance, so it runs once even when two processes tick at
 * once. After downtime the first missed occurrence runs once, late, and the rest are skipped. A manual run
 * (`wren jobs run`) is claimed under `cron:<name>:manual-<iso>` and leaves the schedule alone. While
 * jobs.yaml has never been valid nothing is synced or claimed: the rows wait for a valid file.
 */
export function cronSource(deps: CronSourceDeps): DueSource {
  let resolvedFrom: { jobs: readonly CronJobDefinition[]; defaults: string } | undefined;
  let resolved = new Map<string, ResolvedCronJob>();

  /** The jobs in force with their defaults, after syncing the rows; undefined when none are in force. */
  const sync = (now: number): Map<string, ResolvedCronJob> | undefined => {
    const jobs = deps.jobs();
    if (!jobs) return undefined;
    const defaults = deps.defaults();
    const stamp = JSON.stringify(defaults);
    if (resolvedFrom?.jobs !== jobs || resolvedFrom.defaults !== stamp) {
      resolved = new Map(jobs.map((job) => [job.name, resolveJob(job, defaults)]));
      resolvedFrom = { jobs, defaults: stamp };
    }
    deps.repository.sync([...resolved.values()], (job) => firstRun(job, now));
    return resolved;
  };

  const claimScheduled = (job: ResolvedCronJob, state: CronJobState, now: number) => {
    const dueAt = state.nextAt!;
    const claim = claimOccurrence({ cron: state.cron, timezone: state.timezone }, dueAt, now);
    const advance = () => deps.repository.advance(job.name, dueAt, claim.next);
    const run = deps.outbox.claim(
      {
        sourceKey: cronKey(job.name, dueAt),
        kind: 'cron',
        ref: job.name,
        dueAt,
        late: claim.late,
        payload: payloadOf(job),
      },
      advance,
    );
    // The key was taken: that occurrence happened (another process); move on from it all the same.
    if (!run) advance();
    return run;
  };

  const claimManual = (job: ResolvedCronJob, requestedAt: number, now: number) => {
    const clear = () => deps.repository.clearRequest(job.name, requestedAt);
    const run = deps.outbox.claim(
      {
        sourceKey: manualCronKey(job.name, requestedAt),
        kind: 'cron',
        ref: job.name,
        dueAt: requestedAt,
        late: now - requestedAt > LATE_AFTER_MS,
        payload: payloadOf(job),
      },
      clear,
    );
    if (!run) clear();
    return run;
  };

  return {
    name: 'cron',
    claimDue(now) {
      const jobs = sync(now);
      if (!jobs) return [];
      const runs: OutboxRun[] = [];
      for (const state of deps.repository.due(now)) {
        const job = jobs.get(state.name);
        if (!job) continue;
        if (state.nextAt !== undefined && state.nextAt <= now) {
          const run = claimScheduled(job, state, now);
          if (run) runs.push(run);
        }
        if (state.runRequestedAt !== undefined) {
          const run = claimManual(job, state.runRequestedAt, now);
          if (run) runs.push(run);
        }
      }
      return runs;
    },
    nextDue(now) {
      if (!deps.jobs()) return undefined;
      const at = deps.repository.nextDue();
      // Something still due after claiming cannot be claimed now: leave it to the next regular tick.
      return at !== undefined && at > now ? at : undefined;
    },
  };
}

/** One run of a job, as the history shows it. */
export interface JobRun {
  key: string;
  /** The occurrence (or, for a manual run, when it was asked for). */
  dueAt: number;
  manual: boolean;
  late: boolean;
  state: OutboxState;
  outcome?: OutboxOutcome;
  startedAt?: number;
  finishedAt?: number;
  /** finished_at − started_at of the last attempt. */
  durationMs?: number;
  /** The reply (or what went wrong). */
  result?: string;
  error?: string;
}

/** The last `limit` (default 20) runs of the job `name`, newest first: the outbox rows of kind `cron`. */
export function jobHistory(outbox: OutboxStore, name: string, limit = 20): JobRun[] {
  return outbox.runsOf('cron', name, limit).map((run) => ({
    key: run.sourceKey,
    dueAt: run.dueAt,
    manual: run.sourceKey.startsWith(`cron:${name}:manual-`),
    late: run.late,
    state: run.state,
    ...(run.outcome ? { outcome: run.outcome } : {}),
    ...(run.startedAt !== undefined ? { startedAt: run.startedAt } : {}),
    ...(run.finishedAt !== undefined ? { finishedAt: run.finishedAt } : {}),
    ...(run.startedAt !== undefined && run.finishedAt !== undefined
      ? { durationMs: run.finishedAt - run.startedAt }
      : {}),
    ...(run.result !== undefined ? { result: run.result } : {}),
    ...(run.error !== undefined ? { error: run.error } : {}),
  }));
}
