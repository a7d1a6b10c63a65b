import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterEach, describe, expect, it } from 'vitest';
import { cronSource } from '../../proactive/cron-source.js';
import { readJobsFile } from '../../proactive/jobs-file.js';
import { CronJobRepository } from '../../store/cron-job-repository.js';
import { MIGRATION_V7 } from '../../store/migration-v7-cron.js';
import { MIGRATIONS, migrate } from '../../store/migrations.js';
import { openDatabase } from '../../store/open-database.js';
import { openStores } from '../../store/open-stores.js';
import { OutboxRepository } from '../../store/outbox-repository.js';
import { type JobsView, listJobs, registerJobCommands, requestJobRun } from './jobs.js';

const NOW = Date.parse('2026-06-01T06:00:00Z');
const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function view(jobs: string): JobsView & { db: ReturnType<typeof openDatabase> } {
  const dir = mkdtempSync(join(tmpdir(), 'wren-jobs-cli-'));
  const db = openDatabase(join(dir, 'wren.db'), { migrate: false });
  migrate(db, [...MIGRATIONS.filter((step) => step.version < 7), MIGRATION_V7]);
  cleanups.push(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const file = join(dir, 'jobs.yaml');
  writeFileSync(file, jobs);
  return {
    file,
    db,
    stores: openStores(db),
    defaults: { timezone: 'UTC', deliverTo: ['cli:terminal'] },
    now: NOW,
  };
}

describe('wren jobs', () => {
  it('registers list, history and run under jobs', () => {
    const program = new Command();
    registerJobCommands(program, () => '/nowhere');
    const jobs = program.commands.find((command) => command.name() === 'jobs');
    expect(jobs?.commands.map((command) => command.name())).toEqual(['list', 'history', 'run']);
  });

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
