import { join } from 'node:path';
import type { Command } from 'commander';
import type { CronDefaults } from '../../proactive/cron-source.js';
import type { JobSummary } from '../../proactive/job-summary.js';
import type { Stores } from '../../store/open-stores.js';
import { EXIT } from '../report-failure.js';

/** What the jobs commands read: jobs.yaml, the home's stores and the defaults from config.yaml. */
export interface JobsView {
  /** Absolute path of jobs.yaml. */
  file: string;
  stores: Pick<Stores, 'cronJobs' | 'outbox'>;
  defaults: CronDefaults;
  now: number;
}

/** The jobs of jobs.yaml with next and last run. @throws ConfigError when jobs.yaml is invalid. */
export async function listJobs(view: JobsView): Promise<JobSummary[]> {
  const { readJobsFile } = await import('../../proactive/jobs-file.js');
  const { jobSummaries } = await import('../../proactive/job-summary.js');
  return jobSummaries(readJobsFile(view.file), {
    defaults: view.defaults,
    now: view.now,
    repository: view.stores.cronJobs,
    outbox: view.stores.outbox,
  });
}

/**
 * Asks the scheduler (whichever process runs it, now or at its next start) for one manual run of `name`,
 * claimed as `cron:<name>:manual-<iso>`; the job's schedule is not touched. A disabled job may be run.
 * @returns the job's summary, or undefined when jobs.yaml has no such job.
 * @throws ConfigError when jobs.yaml is invalid.
 */
export async function requestJobRun(view: JobsView, name: string): Promise<JobSummary | undefined> {
  const job = (await listJobs(view)).find((entry) => entry.name === name);
  if (!job) return undefined;
  view.stores.cronJobs.requestRun(job, view.now);
  return job;
}

const out = (text: string) => process.stdout.write(`${text}\n`);
const fail = (text: string, code: number) => {
  process.stderr.write(`wren: ${text}\n`);
  process.exitCode = code;
};

/** Tells a running gateway of this home to tick now. @returns whether one was told. */
async function nudgeScheduler(home: string): Promise<boolean> {
  const { findGateway, callGateway } = await import('../gateway-client.js');
  const found = await findGateway(home);
  if (found.state !== 'running') return false;
  return callGateway(found.link, 'POST', '/api/tick', {}, 2000).then(
    () => true,
    () => false,
  );
}

/** Runs `work` with a JobsView of `home`; a ConfigError or StoreError becomes exit code 2. */
async function withView(home: string, work: (view: JobsView) => Promise<void>): Promise<void> {
  const { withHome } = await import('../../app/open-home.js');
  const { reportFailure } = await import('../report-failure.js');
  try {
    await withHome(home, (opened) =>
      work({
        file: join(home, 'jobs.yaml'),
        stores: opened.stores(),
        defaults: {
          timezone: opened.config.agent.timezone,
          deliverTo: opened.config.proactive.deliverTo,
        },
        now: Date.now(),
      }),
    );
  } catch (error) {
    process.exitCode = reportFailure(error);
  }
}

/**
 * Registers `wren jobs list|history NAME|run NAME` (each with `--json`). Jobs are defined in
 * `<home>/jobs.yaml` (edit it, or ask Wren: the `cron` tool); these commands read it and the database, and
 * work whether or not `wren start` runs. Exit codes: 0 ok, 1 no such job, 2 invalid jobs.yaml or config.
 */
export function registerJobCommands(program: Command, home: () => string): void {
  const group = program.command('jobs').description('cron jobs of jobs.yaml: list, history, run');
  group
    .command('list', { isDefault: true })
    .description('the jobs with their schedule, next run and last run')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const { jobSummaryLines } = await import('../../proactive/job-summary.js');
      await withView(home(), async (view) => {
        const jobs = await listJobs(view);
        if (options.json) out(JSON.stringify(jobs, null, 2));
        else if (jobs.length === 0) out(`No cron jobs. Define them in ${view.file} or ask Wren.`);
        else out(jobs.flatMap((job) => jobSummaryLines(job)).join('\n'));
      });
    });
  group
    .command('history <name>')
    .description('the last 20 runs of a job: when, outcome, duration')
    .option('--json', 'print JSON')
    .action(async (name: string, options: { json?: boolean }) => {
      const { jobHistory } = await import('../../proactive/cron-source.js');
      const { jobRunLine } = await import('../../proactive/job-summary.js');
      await withView(home(), async (view) => {
        const runs = jobHistory(view.stores.outbox, name);
        if (options.json) out(JSON.stringify(runs, null, 2));
        else if (runs.length === 0) out(`No runs of ${name} yet.`);
        else out(runs.map((run) => jobRunLine(run, view.defaults.timezone)).join('\n'));
      });
    });
  group
    .command('run <name>')
    .description('run a job once now (its schedule is unchanged)')
    .option('--json', 'print JSON')
    .action(async (name: string, options: { json?: boolean }) => {
      await withView(home(), async (view) => {
        const job = await requestJobRun(view, name);
        if (!job) return fail(`no job "${name}" in ${view.file}; see wren jobs list`, EXIT.failed);
        const nudged = await nudgeScheduler(home());
        const when = nudged
          ? 'the running Wren starts it now'
          : 'it starts within 30 s if Wren runs, otherwise when Wren next starts';
        if (options.json) out(JSON.stringify({ name, requestedAt: view.now, nudged }, null, 2));
        else out(`Asked for a run of ${name}: ${when}. See wren jobs history ${name}.`);
      });
    });
}
