import type { CronDefaults, JobRun } from '../proactive/cron-source.js';
import type { JobSummary } from '../proactive/job-summary.js';
import type { Stores } from '../store/open-stores.js';
import type { FeedItem } from '../store/outbox-repository.js';
import type { ServiceContext } from './service-context.js';
import { notFound, type ServiceFailure } from './service-failure.js';

export type { CronDefaults, FeedItem, JobRun, JobSummary, ServiceFailure };

/** Where a home's cron jobs are defined, and what a job without its own zone or targets takes. */
export interface JobsFile {
  /** Absolute path of jobs.yaml (the single source of truth; the scheduler reads it at each tick). */
  path: string;
  /** `agent.timezone` and `proactive.deliver_to` as configured (an empty list: the feed only). */
  defaults: CronDefaults;
}

/** The feed's page size when a request names none, and the most one page holds. */
export const FEED_PAGE = { default: 50, max: 200 };
/** How many runs a job's history shows. */
export const JOB_HISTORY_RUNS = 20;

export type JobRunRequested = { ok: true; job: JobSummary; requestedAt: number } | ServiceFailure;

/**
 * The owner's cron jobs and what the scheduled runs delivered: the one implementation `wren jobs`, the
 * `cron` tool and `/api/feed` share. Editing jobs.yaml is the `cron` tool's (see jobs-file.ts).
 */
export interface JobService {
  /** The jobs of jobs.yaml with their defaults applied, next and last run. @throws ConfigError when jobs.yaml is invalid. */
  list(file: JobsFile): Promise<JobSummary[]>;
  /**
   * The last runs of `name`, newest first — readable even while jobs.yaml is broken or after the job was
   * removed — and the zone to show them in (the job's own, else the default).
   */
  history(file: JobsFile, name: string): Promise<{ runs: JobRun[]; timezone: string }>;
  /**
   * Asks the scheduler (whichever process runs it, now or at its next start) for one manual run of `name`,
   * claimed as `cron:<name>:manual-<iso>`; the job's schedule is not touched. A disabled job may be run.
   * `not_found` when jobs.yaml has no such job. @throws ConfigError when jobs.yaml is invalid.
   */
  requestRun(file: JobsFile, name: string): Promise<JobRunRequested>;
  /** What Wren sent on its own (reminders, jobs, heartbeat …), newest first, a page of at most 200. */
  feed(limit?: number, beforeId?: number): FeedItem[];
}

/** The job service over the home's cron job and outbox stores, at the context's clock. */
export function createJobService(
  stores: Pick<Stores, 'cronJobs' | 'outbox'>,
  context: ServiceContext,
): JobService {
  const { cronJobs, outbox } = stores;
  const list = async (file: JobsFile): Promise<JobSummary[]> => {
    const [{ readJobsFile }, { jobSummaries }] = await Promise.all([
      import('../proactive/jobs-file.js'),
      import('../proactive/job-summary.js'),
    ]);
    return jobSummaries(readJobsFile(file.path), {
      defaults: file.defaults,
      now: context.now(),
      repository: cronJobs,
      outbox,
    });
  };
  return {
    list,
    async history(file, name) {
      const [{ jobHistory }, { readJobsFile }] = await Promise.all([
        import('../proactive/cron-source.js'),
        import('../proactive/jobs-file.js'),
      ]);
      let timezone = file.defaults.timezone;
      try {
        timezone = readJobsFile(file.path).find((job) => job.name === name)?.timezone ?? timezone;
      } catch {
        // The default zone, then.
      }
      return { runs: jobHistory(outbox, name, JOB_HISTORY_RUNS), timezone };
    },
    async requestRun(file, name) {
      const requestedAt = context.now();
      const job = (await list(file)).find((entry) => entry.name === name);
      if (!job) return notFound(`There is no job "${name}" in ${file.path}.`);
      cronJobs.requestRun(job, requestedAt);
      return { ok: true, job, requestedAt };
    },
    feed: (limit = FEED_PAGE.default, beforeId) => outbox.feed(Math.min(limit, FEED_PAGE.max), beforeId),
  };
}
