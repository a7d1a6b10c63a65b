import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../util/config-error.js';
import { deleteJob, JOBS_STARTER, parseJobsText, readJobsFile, writeJob } from './jobs-file.js';
import { JobsWatcher } from './jobs-watcher.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function jobsPath(text?: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'wren-jobs-'));
  dirs.push(dir);
  const path = join(dir, 'jobs.yaml');
  if (text !== undefined) writeFileSync(path, text, { mode: 0o600 });
  return path;
}

function problem(text: string): string {
  try {
    parseJobsText(text, '/home/x/jobs.yaml');
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

const BRIEFING = `jobs:
  daily-briefing:
    cron: "0 8 * * *"          # every morning
    timezone: Europe/Berlin
    prompt: "Give me a short briefing: open tasks, today's reminders, anything due."
    deliver_to: [telegram:123]
    enabled: true
`;

describe('jobs.yaml parsing', () => {
  it('reads jobs with their own settings and leaves defaults to the caller', () => {
    const jobs = parseJobsText(`${BRIEFING}  weekly:\n    cron: "@weekly"\n    prompt: Review the week\n`);
    expect(jobs).toEqual([
      {
        name: 'daily-briefing',
        cron: '0 8 * * *',
        timezone: 'Europe/Berlin',
        prompt: "Give me a short briefing: open tasks, today's reminders, anything due.",
        deliverTo: ['telegram:123'],
        enabled: true,
      },
      { name: 'weekly', cron: '@weekly', prompt: 'Review the week', enabled: true },
    ]);
  });

  it('treats an empty file, the starter and an empty jobs: as no jobs; a single target as a list', () => {
    expect(parseJobsText('')).toEqual([]);
    expect(parseJobsText(JOBS_STARTER)).toEqual([]);
    expect(parseJobsText('jobs:\n')).toEqual([]);
    expect(
      parseJobsText('jobs:\n  a:\n    cron: "0 8 * * *"\n    prompt: p\n    deliver_to: webhook:ntfy\n'),
    ).toMatchObject([{ deliverTo: ['webhook:ntfy'] }]);
  });

  it('names the job and key of every problem, with a precise reason', () => {
    expect(problem('jobs:\n  daily:\n    cron: "0 25 * * *"\n    prompt: hi\n')).toMatch(
      /^jobs\.yaml: jobs\.daily\.cron: "0 25 \* \* \*" is not a valid cron expression \(.*hour.*\); use 5 fields .*"0 8 \* \* \*"/,
    );
    expect(problem('jobs:\n  daily:\n    cron: "0 0 8 * * *"\n    prompt: hi\n')).toMatch(
      /^jobs\.yaml: jobs\.daily\.cron: "0 0 8 \* \* \*" has 6 fields, not 5; use 5 fields/,
    );
    expect(problem('jobs:\n  daily:\n    cron: "0 8 * * *"\n    promt: hi\n')).toBe(
      'jobs.yaml: jobs.daily.promt: unknown key (did you mean prompt?)\njobs.yaml: jobs.daily.prompt: missing; this key is required',
    );
    expect(problem('jobs:\n  Daily_Briefing:\n    cron: "0 8 * * *"\n    prompt: hi\n')).toMatch(
      /^jobs\.yaml: jobs\.Daily_Briefing: "Daily_Briefing" is not a valid job name: use 1–40 lowercase/,
    );
    expect(
      problem(
        'jobs:\n  a:\n    cron: "0 8 * * *"\n    prompt: hi\n    timezone: Mars/Olympus\n    enabled: "yes"\n',
      ),
    ).toBe(
      'jobs.yaml: jobs.a.timezone: unknown time zone; use an IANA name such as Europe/Berlin or America/New_York\n' +
        'jobs.yaml: jobs.a.enabled: expected true or false, got a string',
    );
    expect(problem('jobs:\n  a:\n    cron: "0 8 * * *"\n    prompt: hi\n    deliver_to: [telegram]\n')).toBe(
      'jobs.yaml: jobs.a.deliver_to[0]: use channel:chat (telegram:123) or webhook:name',
    );
    expect(problem('jobs:\n  a:\n    cron: "0 8 * * *"\n    prompt: "  "\n')).toBe(
      'jobs.yaml: jobs.a.prompt: must not be empty',
    );
    expect(problem('job:\n  a: {}\n')).toBe('jobs.yaml: job: unknown key (the jobs go under "jobs:")');
    expect(problem('jobs:\n  a: [1]\n')).toBe('jobs.yaml: jobs.a: must be a mapping with cron and prompt');
    expect(problem('jobs:\n  a:\n    cron: "0 8 * * *\n')).toMatch(
      /^jobs\.yaml:\d+:\d+: YAML syntax error: /,
    );
  });

  it('reports every broken job, and the error carries the file path and the first key', () => {
    let caught: unknown;
    try {
      parseJobsText('jobs:\n  a:\n    cron: nope\n    prompt: x\n  b:\n    prompt: y\n', '/h/jobs.yaml');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).file).toBe('/h/jobs.yaml');
    expect((caught as ConfigError).keyPath).toBe('jobs.a.cron');
    expect((caught as Error).message.split('\n').map((line) => line.split(': ')[1])).toEqual([
      'jobs.a.cron',
      'jobs.b.cron',
    ]);
  });
});

describe('writing jobs.yaml', () => {
  it('starts from the commented starter, writes 0600, and keeps comments of hand-written jobs', () => {
    const fresh = jobsPath();
    writeJob(fresh, 'tea', { cron: '0 16 * * *', prompt: 'Tea time: anything new?' }, { create: true });
    const text = readFileSync(fresh, 'utf8');
    expect(text).toContain('# Cron jobs: prompts Wren runs on a schedule');
    expect(text).toContain('jobs:\n  tea:\n    cron: "0 16 * * *"\n    prompt: "Tea time: anything new?"\n');
    expect(statSync(fresh).mode & 0o777).toBe(0o600);

    const path = jobsPath(`# my jobs\n${BRIEFING}`);
    writeJob(path, 'daily-briefing', { cron: '30 7 * * 1-5', timezone: null }, { create: false });
    writeJob(path, 'weekly', { cron: '0 9 * * 1', prompt: 'Plan the week', deliverTo: [] }, { create: true });
    const edited = readFileSync(path, 'utf8');
    expect(edited).toContain('# my jobs');
    expect(edited).toContain('cron: "30 7 * * 1-5" # every morning');
    expect(edited).not.toContain('Europe/Berlin');
    expect(readJobsFile(path).map((job) => [job.name, job.cron, job.timezone, job.deliverTo])).toEqual([
      ['daily-briefing', '30 7 * * 1-5', undefined, ['telegram:123']],
      ['weekly', '0 9 * * 1', undefined, []],
    ]);
    deleteJob(path, 'weekly');
    expect(readJobsFile(path).map((job) => job.name)).toEqual(['daily-briefing']);
    expect(readFileSync(path, 'utf8')).toContain('# my jobs');
  });

  it('writes nothing when the change would make the file invalid, or the job exists / does not', () => {
    const path = jobsPath(BRIEFING);
    expect(() => writeJob(path, 'x', { cron: '0 8 * * *' }, { create: true })).toThrow(
      /change not saved, the file would be invalid:\njobs\.yaml: jobs\.x\.prompt: missing/,
    );
    expect(() =>
      writeJob(path, 'daily-briefing', { prompt: 'p', cron: '0 8 * * *' }, { create: true }),
    ).toThrow(/jobs\.daily-briefing: a job with this name exists/);
    expect(() => writeJob(path, 'nope', { enabled: false }, { create: false })).toThrow(
      /there is no job "nope"/,
    );
    expect(() => writeJob(path, 'Bad Name', { enabled: false }, { create: true })).toThrow(
      /not a valid job name/,
    );
    expect(() => deleteJob(path, 'nope')).toThrow(/there is no job "nope"/);
    expect(readFileSync(path, 'utf8')).toBe(BRIEFING);
  });
});

describe('JobsWatcher', () => {
  it('applies a valid edit at the next read, keeps the last good jobs on an invalid one and reports it once', () => {
    const path = jobsPath(BRIEFING);
    const changes: string[][] = [];
    const errors: string[] = [];
    let valid = 0;
    const watcher = new JobsWatcher({
      path,
      onChange: (jobs) => changes.push(jobs.map((job) => `${job.name} ${job.cron}`)),
      onError: (error) => errors.push(error.message),
      onValid: () => valid++,
    });
    const first = watcher.current();
    expect(first?.map((job) => job.cron)).toEqual(['0 8 * * *']);
    expect(watcher.current()).toBe(first); // unchanged file: same set, no re-read

    writeFileSync(path, BRIEFING.replace('0 8 * * *', '0 9 * * *'));
    expect(watcher.current()?.map((job) => job.cron)).toEqual(['0 9 * * *']);
    expect(changes).toEqual([['daily-briefing 0 9 * * *']]);

    writeFileSync(path, BRIEFING.replace('0 8 * * *', '0 99 * * *'));
    expect(watcher.current()?.map((job) => job.cron)).toEqual(['0 9 * * *']);
    watcher.reload();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^jobs\.yaml: jobs\.daily-briefing\.cron: "0 99 \* \* \*" is not a valid cron/);
    expect(watcher.error()?.message).toBe(errors[0]);

    rmSync(path);
    expect(watcher.current()).toEqual([]); // removing the file removes the jobs
    expect(valid).toBe(1);
    expect(watcher.error()).toBeUndefined();
  });

  it('has no jobs in force while the file was never valid, so nothing is taken as removed', () => {
    const path = jobsPath('jobs:\n  a:\n    cron: x\n');
    const errors: Error[] = [];
    const watcher = new JobsWatcher({ path, onError: (error) => errors.push(error) });
    expect(watcher.current()).toBeUndefined();
    expect(errors).toHaveLength(1);
    writeFileSync(path, 'jobs:\n  a:\n    cron: "0 8 * * *"\n    prompt: fixed\n');
    expect(watcher.current()?.map((job) => job.prompt)).toEqual(['fixed']);
  });

  it('watch() reloads on a file event by itself, so an edit applies without waiting for a tick', async () => {
    const path = jobsPath(BRIEFING);
    const changed = new Promise<string[]>((resolve) => {
      const watcher = new JobsWatcher({
        path,
        debounceMs: 0,
        onChange: (jobs) => {
          watcher.close();
          resolve(jobs.map((job) => job.cron));
        },
      });
      watcher.current();
      watcher.watch();
      writeJob(path, 'daily-briefing', { cron: '0 6 * * *' }, { create: false });
    });
    expect(await changed).toEqual(['0 6 * * *']);
  });
});
