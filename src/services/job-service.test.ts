import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDatabase } from '../../test/support/temp-database.js';
import { cronSource } from '../proactive/cron-source.js';
import { readJobsFile } from '../proactive/jobs-file.js';
import { CronJobRepository } from '../store/cron-job-repository.js';
import { MIGRATION_V7 } from '../store/migration-v7-cron.js';
import { MIGRATIONS } from '../store/migrations.js';
import type { openDatabase } from '../store/open-database.js';
import { openStores, type Stores } from '../store/open-stores.js';
import { OutboxRepository } from '../store/outbox-repository.js';
import { createJobService, type JobService, type JobsFile } from './job-service.js';

const NOW = Date.parse('2026-06-01T06:00:00Z');
/** The schema up to v7 (cron jobs). */
const SCHEMA_V7 = [...MIGRATIONS.filter((step) => step.version < 7), MIGRATION_V7];
const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

interface JobsView {
  file: string;
  db: ReturnType<typeof openDatabase>;
  jobs: JobService;
  jobsFile: JobsFile;
  defaults: JobsFile['defaults'];
}

function view(jobs: string): JobsView {
  const { db, dir } = tempDatabase('wren-jobs-cli-', cleanups, SCHEMA_V7);
  const file = join(dir, 'jobs.yaml');
  writeFileSync(file, jobs);
  const defaults = { timezone: 'UTC', deliverTo: ['cli:terminal'] };
  const context = { now: () => NOW, timezone: () => 'UTC', defaultTargets: () => ['cli:terminal'] };
  return {
    file,
    db,
    jobs: createJobService(openStores(db), context),
    jobsFile: { path: file, defaults },
    defaults,
  };
}

const listJobs = (jobsView: JobsView) => jobsView.jobs.list(jobsView.jobsFile);
const requestJobRun = async (jobsView: JobsView, name: string) => {
  const requested = await jobsView.jobs.requestRun(jobsView.jobsFile, name);
  return requested.ok ? requested.job : undefined;
};

describe('job service', () => {
  it('lists jobs with defaults applied and their next run', async () => {
    const jobs = await listJobs(view('jobs:\n  daily:\n    cron: "0 8 * * *"\n    prompt: Brief me\n'));
    expect(jobs).toEqual([
      {
        name: 'daily',
        cron: '0 8 * * *',
        timezone: 'UTC',
        defaultTimezone: true,
        prompt: 'Brief me',
        deliverTo: ['cli:terminal'],
        enabled: true,
        nextAt: Date.parse('2026-06-01T08:00:00Z'),
      },
    ]);
  });

  it('run asks the scheduler for one manual run, which the cron source claims at its next tick', async () => {
    const jobsView = view(
      'jobs:\n  daily:\n    cron: "0 8 * * *"\n    prompt: Brief me\n    enabled: false\n',
    );
    expect(await requestJobRun(jobsView, 'nope')).toBeUndefined();
    expect(await requestJobRun(jobsView, 'daily')).toMatchObject({ name: 'daily', enabled: false });
    const outbox = new OutboxRepository(jobsView.db, () => NOW + 5000);
    const source = cronSource({
      jobs: () => readJobsFile(jobsView.file),
      defaults: () => jobsView.defaults,
      repository: new CronJobRepository(jobsView.db, () => NOW + 5000),
      outbox,
    });
    expect(source.claimDue(NOW + 5000).map((run) => [run.sourceKey, run.late])).toEqual([
      ['cron:daily:manual-2026-06-01T06:00:00.000Z', false],
    ]);
    expect(source.claimDue(NOW + 10_000)).toEqual([]);
  });
});

describe('job service refusals and history', () => {
  it('a run of a job jobs.yaml lacks is not found, and requests nothing', async () => {
    const jobsView = view('jobs:\n  daily:\n    cron: "0 8 * * *"\n    prompt: Brief me\n');
    const refused = await jobsView.jobs.requestRun(jobsView.jobsFile, 'weekly');
    expect(refused).toEqual({
      ok: false,
      code: 'not_found',
      error: `There is no job "weekly" in ${jobsView.file}.`,
    });
    expect(new CronJobRepository(jobsView.db, () => NOW).get('weekly')).toBeUndefined();
  });

  it('an invalid jobs.yaml throws for list and run, while history still answers in the default zone', async () => {
    const jobsView = view('jobs:\n  daily:\n    cron: "not a cron"\n');
    await expect(jobsView.jobs.list(jobsView.jobsFile)).rejects.toThrow(/jobs\.yaml/);
    await expect(jobsView.jobs.requestRun(jobsView.jobsFile, 'daily')).rejects.toThrow(/jobs\.yaml/);
    expect(await jobsView.jobs.history(jobsView.jobsFile, 'daily')).toEqual({ runs: [], timezone: 'UTC' });
  });

  it("history is in the job's own zone when it has one", async () => {
    const jobsView = view(
      'jobs:\n  daily:\n    cron: "0 8 * * *"\n    prompt: Brief me\n    timezone: Asia/Tokyo\n',
    );
    expect(await jobsView.jobs.history(jobsView.jobsFile, 'daily')).toEqual({
      runs: [],
      timezone: 'Asia/Tokyo',
    });
  });

  it('a feed page is 50 entries unless asked, and at most 200', () => {
    const asked: Array<[number | undefined, number | undefined]> = [];
    const outbox = {
      feed: (limit?: number, beforeId?: number) => {
        asked.push([limit, beforeId]);
        return [];
      },
    } as unknown as Stores['outbox'];
    const context = { now: () => NOW, timezone: () => 'UTC', defaultTargets: () => [] };
    const jobs = createJobService({ outbox, cronJobs: {} as Stores['cronJobs'] }, context);
    jobs.feed();
    jobs.feed(10_000, 5);
    jobs.feed(20);
    expect(asked).toEqual([
      [50, undefined],
      [200, 5],
      [20, undefined],
    ]);
  });
});
