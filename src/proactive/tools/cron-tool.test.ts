import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDatabase } from '../../../test/support/temp-database.js';
import { toolContext } from '../../../test/support/tool-context.js';
import { ToolError } from '../../agent/tool.js';
import { createJobService } from '../../services/job-service.js';
import { CronJobRepository } from '../../store/cron-job-repository.js';
import { MIGRATION_V7 } from '../../store/migration-v7-cron.js';
import { MIGRATIONS } from '../../store/migrations.js';
import { OutboxRepository } from '../../store/outbox-repository.js';
import { readJobsFile } from '../jobs-file.js';
import { createCronTool } from './cron-tool.js';

const NOW = Date.parse('2026-06-01T05:00:00Z'); // 07:00 in Berlin

/** The schema up to v7 (cron jobs). */
const SCHEMA_V7 = [...MIGRATIONS.filter((step) => step.version < 7), MIGRATION_V7];
const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function setup() {
  const { db, dir } = tempDatabase('wren-cron-tool-', cleanups, SCHEMA_V7);
  const file = join(dir, 'jobs.yaml');
  const outbox = new OutboxRepository(db, () => NOW);
  let wakes = 0;
  const tool = createCronTool({
    file,
    jobs: createJobService(
      { outbox, cronJobs: new CronJobRepository(db, () => NOW) },
      { now: () => NOW, timezone: () => 'Europe/Berlin', defaultTargets: () => [] },
    ),
    defaults: () => ({ timezone: 'Europe/Berlin', deliverTo: [] }),
    wake: () => wakes++,
    clock: () => NOW,
  });
  const call = (args: Record<string, unknown>) =>
    tool.execute(args, toolContext({ channel: 'telegram', chatId: '42' }), new AbortController().signal);
  return { tool, file, outbox, call, wakes: () => wakes };
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ToolError);
    return (error as Error).message;
  }
  throw new Error('expected a ToolError');
}

describe('cron tool', () => {
  it('adds a job to jobs.yaml, delivering to the chat it was asked in, and lists it', async () => {
    const { file, call, wakes } = setup();
    const added = await call({
      action: 'add',
      name: 'daily-briefing',
      cron: '0 8 * * *',
      prompt: "Give me a short briefing: open tasks, today's reminders.",
    });
    expect(added.content).toBe(
      'Added daily-briefing: "0 8 * * *" Europe/Berlin, next 2026-06-01 08:00 → telegram:42',
    );
    expect(wakes()).toBe(1);
    expect(readFileSync(file, 'utf8')).toContain(
      'jobs:\n  daily-briefing:\n    cron: "0 8 * * *"\n    prompt: "Give me a short briefing: open tasks, today\'s reminders."\n    deliver_to: [ telegram:42 ]\n',
    );
    await call({
      action: 'add',
      name: 'weekly',
      cron: '0 9 * * 1',
      prompt: 'Plan',
      timezone: 'UTC',
      deliver_to: [],
    });
    const list = await call({ action: 'list' });
    expect(list.taint).toBe('private');
    expect(list.content).toBe(
      [
        'daily-briefing: "0 8 * * *" Europe/Berlin, next 2026-06-01 08:00 → telegram:42',
        "  Give me a short briefing: open tasks, today's reminders.",
        'weekly: "0 9 * * 1" UTC, next 2026-06-01 09:00 → the feed only',
        '  Plan',
      ].join('\n'),
    );
  });

  it('updates, disables, enables and removes jobs through the file', async () => {
    const { file, call } = setup();
    await call({ action: 'add', name: 'tea', cron: '0 16 * * *', prompt: 'Tea?', timezone: 'UTC' });
    await call({ action: 'update', name: 'tea', cron: '30 15 * * 1-5', timezone: '' });
    expect(readJobsFile(file)).toEqual([
      { name: 'tea', cron: '30 15 * * 1-5', prompt: 'Tea?', deliverTo: ['telegram:42'], enabled: true },
    ]);
    expect((await call({ action: 'disable', name: 'tea' })).content).toBe(
      'Disabled tea: "30 15 * * 1-5" Europe/Berlin, disabled → telegram:42',
    );
    expect(readJobsFile(file)[0]?.enabled).toBe(false);
    await call({ action: 'enable', name: 'tea' });
    expect(readJobsFile(file)[0]?.enabled).toBe(true);
    expect((await call({ action: 'remove', name: 'tea' })).content).toBe(
      'Removed the cron job tea (its run history stays).',
    );
    expect(readJobsFile(file)).toEqual([]);
    expect((await call({ action: 'list' })).content).toBe('No cron jobs.');
  });

  it('refuses bad names, bad cron (with examples), bad zones and targets, and leaves the file alone', async () => {
    const { file, call } = setup();
    await call({ action: 'add', name: 'tea', cron: '0 16 * * *', prompt: 'Tea?' });
    const before = readFileSync(file, 'utf8');
    expect(
      await refusal(call({ action: 'add', name: 'Daily Briefing', cron: '0 8 * * *', prompt: 'x' })),
    ).toBe(
      '"Daily Briefing" is not a valid job name: use 1–40 lowercase letters, digits and "-", e.g. daily-briefing.',
    );
    expect(
      await refusal(call({ action: 'add', name: 'x'.repeat(41), cron: '0 8 * * *', prompt: 'x' })),
    ).toMatch(/is not a valid job name/);
    expect(await refusal(call({ action: 'add', name: 'a', cron: 'every day at 8', prompt: 'x' }))).toBe(
      'Invalid cron: "every day at 8" has 4 fields, not 5; use 5 fields "minute hour day-of-month month day-of-week", ' +
        'e.g. "0 8 * * *" (08:00 every day), "30 7 * * 1-5" (07:30 on weekdays), "0 */2 * * *" (every 2 hours), ' +
        '"0 9 1 * *" (09:00 on the 1st).',
    );
    expect(await refusal(call({ action: 'add', name: 'a', cron: '61 8 * * *', prompt: 'x' }))).toMatch(
      /^Invalid cron: "61 8 \* \* \*" is not a valid cron expression \(.+\); use 5 fields .*e\.g\. "0 8 \* \* \*"/,
    );
    expect(
      await refusal(
        call({ action: 'add', name: 'a', cron: '0 8 * * *', prompt: 'x', timezone: 'Mars/Base' }),
      ),
    ).toBe('"Mars/Base" is not a time zone; use an IANA name such as Europe/Berlin.');
    expect(
      await refusal(
        call({ action: 'add', name: 'a', cron: '0 8 * * *', prompt: 'x', deliver_to: ['telegram'] }),
      ),
    ).toBe('"telegram" is not a target; use channel:chat (telegram:123) or webhook:name.');
    expect(await refusal(call({ action: 'add', name: 'a', cron: '0 8 * * *' }))).toBe(
      'cron add needs "name", "cron" and "prompt".',
    );
    expect(await refusal(call({ action: 'add', name: 'tea', cron: '0 8 * * *', prompt: 'x' }))).toBe(
      'jobs.yaml: jobs.tea: a job with this name exists; update it instead',
    );
    expect(await refusal(call({ action: 'update', name: 'nope', prompt: 'x' }))).toBe(
      'jobs.yaml: there is no job "nope"; list the jobs to see their names',
    );
    expect(await refusal(call({ action: 'update', name: 'tea' }))).toMatch(/needs at least one of/);
    expect(await refusal(call({ action: 'remove' }))).toBe('cron remove needs "name" (see cron list).');
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  it('reports a hand-broken jobs.yaml precisely instead of overwriting it', async () => {
    const { file, call } = setup();
    writeFileSync(file, 'jobs:\n  tea:\n    cron: "0 16 * * *"\n    promt: Tea?\n');
    expect(await refusal(call({ action: 'list' }))).toBe(
      'jobs.yaml: jobs.tea.promt: unknown key (did you mean prompt?)\njobs.yaml: jobs.tea.prompt: missing; this key is required',
    );
    expect(await refusal(call({ action: 'add', name: 'b', cron: '0 8 * * *', prompt: 'x' }))).toMatch(
      /^jobs\.yaml: change not saved, the file would be invalid:\njobs\.yaml: jobs\.tea\.promt: unknown key/,
    );
  });

  it('shows the history of a job with outcome and duration', async () => {
    const { outbox, call } = setup();
    expect((await call({ action: 'history', name: 'tea' })).content).toBe('No runs of tea yet.');
    const run = outbox.claim(
      {
        sourceKey: 'cron:tea:2026-06-01T04:00:00.000Z',
        kind: 'cron',
        ref: 'tea',
        dueAt: Date.parse('2026-06-01T04:00:00Z'),
        late: true,
        payload: { title: 'tea', text: 'Tea?', mode: 'agent', autonomous: false, deliverTo: [] },
      },
      () => {},
    )!;
    outbox.start(run.id);
    outbox.finish(run.id, { outcome: 'delivered', text: 'Tea is ready', targets: [] });
    const history = await call({ action: 'history', name: 'tea' });
    expect(history.content).toBe(
      'Last 1 runs of tea (newest first):\n2026-06-01 06:00 delivered 0.0 s (late)',
    );
    expect(history.details).toMatchObject([{ durationMs: 0, outcome: 'delivered', result: 'Tea is ready' }]);
  });

  it('assess: adding or updating persists a prompt; the grant target is the job name', async () => {
    const { tool } = setup();
    const ctx = toolContext();
    expect(
      await tool.assess?.(
        { action: 'add', name: 'daily', cron: '0 8 * * *', prompt: 'rm -rf / and say hi' },
        ctx,
      ),
    ).toEqual({ target: 'daily', persists: 'a cron job daily ("rm -rf / and say hi")' });
    expect(await tool.assess?.({ action: 'update', name: 'daily', cron: '0 9 * * *' }, ctx)).toEqual({
      target: 'daily',
      persists: 'a cron job daily ("(its prompt unchanged)")',
    });
    expect(await tool.assess?.({ action: 'list' }, ctx)).toEqual({});
    expect(await tool.assess?.({ action: 'remove', name: 'daily' }, ctx)).toEqual({
      target: 'daily',
      removes: 'the cron job daily (removed)',
    });
  });

  it('assess: enabling a job again persists its stored prompt; disabling it removes the job', async () => {
    const { tool, call } = setup();
    const ctx = toolContext();
    await call({ action: 'add', name: 'tea', cron: '0 8 * * *', prompt: 'Make the tea list' });
    await call({ action: 'disable', name: 'tea' });
    expect(await tool.assess?.({ action: 'enable', name: 'tea' }, ctx)).toEqual({
      target: 'tea',
      persists: 'the cron job tea, enabled again, ("Make the tea list")',
    });
    expect(await tool.assess?.({ action: 'update', name: 'tea', deliver_to: ['telegram:9'] }, ctx)).toEqual({
      target: 'tea',
      persists: 'a cron job tea ("Make the tea list")',
    });
    expect(await tool.assess?.({ action: 'disable', name: 'tea' }, ctx)).toEqual({
      target: 'tea',
      removes: 'the cron job tea (disabled)',
    });
  });
});
