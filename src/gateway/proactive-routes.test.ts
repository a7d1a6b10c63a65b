import { describe, expect, it } from 'vitest';
import { jsonSender, routeHarness } from '../../test/support/route-harness.js';
import { createJobService } from '../services/job-service.js';
import { createReminderService } from '../services/reminder-service.js';
import { CronJobRepository } from '../store/cron-job-repository.js';
import { OutboxRepository } from '../store/outbox-repository.js';
import { ReminderRepository } from '../store/reminder-repository.js';
import { proactiveRoutes } from './proactive-routes.js';

const harness = routeHarness();

const NOW = Date.parse('2026-12-01T09:00:00Z');

type Body = Record<string, unknown> & { error?: { code: string; message: string } };

function setup(defaultTargets: string[] = []) {
  const { db } = harness.database('wren-remapi-');
  const clock = () => NOW;
  const reminders = new ReminderRepository(db, clock);
  const outbox = new OutboxRepository(db, clock);
  const wakes = { count: 0 };
  const context = { now: clock, timezone: () => 'Europe/Berlin', defaultTargets: () => ['cli:terminal'] };
  const app = proactiveRoutes({
    reminders: createReminderService({ reminders }, context),
    jobs: createJobService({ outbox, cronJobs: new CronJobRepository(db, clock) }, context),
    wake: () => wakes.count++,
    defaultTargets: () => defaultTargets,
  });
  const send = jsonSender<Body>(app);
  return { reminders, outbox, send, wakes };
}

describe('reminder routes', () => {
  it('add from words in the owner zone, list, cancel — each change wakes the scheduler', async () => {
    const { send, wakes, reminders } = setup(['webhook:ntfy']);
    const added = await send('POST', '/api/reminders', { text: 'call Ana', when: 'tomorrow at 9' });
    expect(added.status).toBe(201);
    expect(added.body['description']).toBe('Wed 2026-12-02 09:00 (Europe/Berlin)');
    expect(added.body['reminder']).toMatchObject({
      text: 'call Ana',
      mode: 'notify',
      nextAt: Date.parse('2026-12-02T08:00:00Z'),
      deliverTo: ['webhook:ntfy'],
    });
    const weekly = await send('POST', '/api/reminders', {
      text: 'review',
      when: 'every friday 16:00',
      mode: 'agent',
      session: 'abc',
    });
    expect(weekly.body['reminder']).toMatchObject({ cron: '0 16 * * 5', deliverTo: ['api:abc'] });
    expect(wakes.count).toBe(2);

    const listed = await send('GET', '/api/reminders');
    expect((listed.body['reminders'] as Array<{ text: string }>).map((r) => r.text)).toEqual([
      'call Ana',
      'review',
    ]);
    const id = (added.body['reminder'] as { id: number }).id;
    expect(await send('DELETE', `/api/reminders/${id}`)).toEqual({ status: 200, body: { cancelled: id } });
    expect(wakes.count).toBe(3);
    expect((await send('DELETE', `/api/reminders/${id}`)).status).toBe(404);
    expect((await send('GET', '/api/reminders')).body['reminders']).toHaveLength(1);
    expect((await send('GET', '/api/reminders?all=1')).body['reminders']).toHaveLength(2);
    expect(reminders.get(id)?.status).toBe('cancelled');
  });

  it.each([
    ['not JSON', '{', /body/],
    ['no text', { when: 'in 5m' }, /text/],
    ['an unknown key', { text: 'x', when: 'in 5m', deliver_to: ['a:b'] }, /deliver_to|Unrecognized/],
    ['a time in the past', { text: 'x', when: 'yesterday at 9' }, /not in the future/],
    ['words that are no time', { text: 'x', when: 'whenever' }, /Could not understand/],
    ['a bad target', { text: 'x', when: 'in 5m', deliverTo: ['not a target'] }, /not a delivery target/],
    ['a bad mode', { text: 'x', when: 'in 5m', mode: 'loud' }, /mode/],
    ['a huge text', { text: 'x'.repeat(5_000), when: 'in 5m' }, /text/],
    ['a session that is no id', { text: 'x', when: 'in 5m', session: 'a b' }, /session/],
  ])('refuses %s with 400 and says why', async (_name, body, message) => {
    const { send, wakes, reminders } = setup();
    const answer = await send('POST', '/api/reminders', body);
    expect(answer.status).toBe(400);
    expect(answer.body.error?.code).toBe('bad_request');
    expect(answer.body.error?.message).toMatch(message);
    expect(reminders.list('all')).toEqual([]);
    expect(wakes.count).toBe(0);
  });

  it('refuses to cancel what is not an id', async () => {
    const { send } = setup();
    expect((await send('DELETE', '/api/reminders/abc')).status).toBe(404);
    expect((await send('DELETE', '/api/reminders/1e3')).status).toBe(404);
  });
});

describe('feed and tick routes', () => {
  it('pages the feed newest first; tick wakes the scheduler', async () => {
    const { send, wakes, outbox } = setup();
    for (const title of ['one', 'two', 'three']) {
      const run = outbox.claim(
        {
          sourceKey: `reminder:${title}`,
          kind: 'reminder',
          ref: title,
          dueAt: NOW,
          late: false,
          payload: { title, text: title, mode: 'notify', autonomous: false, deliverTo: [] },
        },
        () => undefined,
      )!;
      outbox.finish(run.id, { outcome: 'delivered', text: title, targets: [] });
    }
    const feed = async (query: string) =>
      ((await send('GET', `/api/feed${query}`)).body['feed'] as Array<{ id: number; title: string }>).map(
        (item) => item.title,
      );
    expect(await feed('')).toEqual(['three', 'two', 'one']);
    expect(await feed('?limit=2')).toEqual(['three', 'two']);
    const [, second] = (await send('GET', '/api/feed')).body['feed'] as Array<{ id: number }>;
    expect(await feed(`?before=${second!.id}`)).toEqual(['one']);
    expect(await feed('?limit=-1&before=x')).toEqual(['three', 'two', 'one']);
    expect(await send('POST', '/api/tick')).toEqual({ status: 200, body: { ok: true } });
    expect(wakes.count).toBe(1);
  });
});

describe('reminder edits', () => {
  it('reschedules by the words POST understands, changes text and mode, keeps targets — and wakes', async () => {
    const { send, wakes, reminders } = setup(['webhook:ntfy']);
    const added = await send('POST', '/api/reminders', { text: 'call Ana', when: 'tomorrow at 9' });
    const id = (added.body['reminder'] as { id: number }).id;
    const moved = await send('PATCH', `/api/reminders/${id}`, { when: 'friday 17:00' });
    expect(moved.status).toBe(200);
    expect(moved.body['description']).toBe('Fri 2026-12-04 17:00 (Europe/Berlin)');
    expect(moved.body['reminder']).toMatchObject({
      id,
      text: 'call Ana',
      at: Date.parse('2026-12-04T16:00:00Z'),
      nextAt: Date.parse('2026-12-04T16:00:00Z'),
      deliverTo: ['webhook:ntfy'],
      status: 'active',
    });
    expect(wakes.count).toBe(2);

    const recurring = await send('PATCH', `/api/reminders/${id}`, {
      text: ' call Ana and Bo ',
      when: 'every weekday at 7:30',
      mode: 'agent',
    });
    expect(recurring.body['description']).toMatch(/; first Wed 2026-12-02 07:30 \(Europe\/Berlin\)$/);
    expect(recurring.body['reminder']).toMatchObject({
      text: 'call Ana and Bo',
      mode: 'agent',
      cron: '30 7 * * 1-5',
      nextAt: Date.parse('2026-12-02T06:30:00Z'),
    });
    expect(recurring.body['reminder']).not.toHaveProperty('at');

    // Back to a one-off, and a text-only change keeps the schedule.
    await send('PATCH', `/api/reminders/${id}`, { when: 'in 20m' });
    const renamed = await send('PATCH', `/api/reminders/${id}`, { text: 'ring Ana' });
    expect(renamed.body['description']).toBe('Tue 2026-12-01 10:20 (Europe/Berlin)');
    expect(renamed.body['reminder']).toMatchObject({ text: 'ring Ana', at: NOW + 20 * 60_000 });
    expect(renamed.body['reminder']).not.toHaveProperty('cron');
    expect(reminders.nextDue()).toBe(NOW + 20 * 60_000);
    expect(wakes.count).toBe(5);
  });

  it('answers 404 for unknown, cancelled and non-id reminders', async () => {
    const { send, wakes } = setup();
    const added = await send('POST', '/api/reminders', { text: 'x', when: 'in 5m' });
    const id = (added.body['reminder'] as { id: number }).id;
    await send('DELETE', `/api/reminders/${id}`);
    for (const path of [
      `/api/reminders/${id}`,
      '/api/reminders/999',
      '/api/reminders/abc',
      '/api/reminders/0',
    ]) {
      const answer = await send('PATCH', path, { text: 'y' });
      expect(answer.status, path).toBe(404);
      expect(answer.body.error?.code).toBe('not_found');
    }
    expect(wakes.count).toBe(2);
  });

  it.each([
    ['not JSON', '{', /body must be a JSON object/],
    ['nothing to change', {}, /give text, when or mode/],
    ['an empty text', { text: '' }, /text/],
    ['a blank text', { text: '   ' }, /needs some text/],
    ['a time in the past', { when: 'yesterday at 9' }, /not in the future/],
    ['words that are no time', { when: 'whenever' }, /Could not understand/],
    ['a bad mode', { mode: 'loud' }, /mode/],
    ['a when of the wrong type', { when: 9 }, /when/],
    ['a target change', { deliverTo: ['telegram:1'] }, /deliverTo|Unrecognized/],
  ])('refuses %s with 400, saying why, and changes nothing', async (_name, body, message) => {
    const { send, wakes, reminders } = setup();
    const added = await send('POST', '/api/reminders', { text: 'keep', when: 'in 5m' });
    const before = added.body['reminder'];
    const answer = await send('PATCH', `/api/reminders/${(before as { id: number }).id}`, body);
    expect(answer.status).toBe(400);
    expect(answer.body.error?.code).toBe('bad_request');
    expect(answer.body.error?.message).toMatch(message);
    expect(reminders.get((before as { id: number }).id)).toEqual(before);
    expect(wakes.count).toBe(1);
  });
});
