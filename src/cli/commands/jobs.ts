import { join } from 'node:path';
import type { Command } from 'commander';
import type { JobService, JobsFile } from '../../services/job-service.js';
import { EXIT } from '../report-failure.js';

/** What the jobs commands use: the job service of the home and its jobs.yaml with config.yaml's defaults. */
interface JobsView {
  jobs: JobService;
  file: JobsFile;
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
  const { withServices } = await import('../with-services.js');
  const { reportFailure } = await import('../report-failure.js');
  try {
    await withServices(home, (services, { config }) =>
      work({
        jobs: services.jobs,
        file: {
          path: join(home, 'jobs.yaml'),
          defaults: { timezone: config.agent.timezone, deliverTo: config.proactive.deliverTo },
        },
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
      await withView(home(), async ({ jobs: service, file }) => {
        const jobs = await service.list(file);
        if (options.json) out(JSON.stringify(jobs, null, 2));
        else if (jobs.length === 0) out(`No cron jobs. Define them in ${file.path} or ask Wren.`);
        else out(jobs.flatMap((job) => jobSummaryLines(job)).join('\n'));
      });
    });
  group
    .command('history <name>')
    .description('the last 20 runs of a job: when, outcome, duration')
    .option('--json', 'print JSON')
    .action(async (name: string, options: { json?: boolean }) => {
      const { jobRunLine } = await import('../../proactive/job-summary.js');
      await withView(home(), async ({ jobs, file }) => {
        const { runs } = await jobs.history(file, name);
        if (options.json) out(JSON.stringify(runs, null, 2));
        else if (runs.length === 0) out(`No runs of ${name} yet.`);
        else out(runs.map((run) => jobRunLine(run, file.defaults.timezone)).join('\n'));
      });
    });
  group
    .command('run <name>')
    .description('run a job once now (its schedule is unchanged)')
    .option('--json', 'print JSON')
    .action(async (name: string, options: { json?: boolean }) => {
      await withView(home(), async ({ jobs, file }) => {
        const requested = await jobs.requestRun(file, name);
        if (!requested.ok) return fail(`no job "${name}" in ${file.path}; see wren jobs list`, EXIT.failed);
        const nudged = await nudgeScheduler(home());
        const when = nudged
          ? 'the running Wren starts it now'
          : 'it starts within 30 s if Wren runs, otherwise when Wren next starts';
        if (options.json) out(JSON.stringify({ name, requestedAt: requested.requestedAt, nudged }, null, 2));
        else out(`Asked for a run of ${name}: ${when}. See wren jobs history ${name}.`);
      });
    });
}
