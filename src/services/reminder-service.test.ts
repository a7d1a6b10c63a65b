import { describe, expect, it } from 'vitest';
import { routeHarness } from '../../test/support/route-harness.js';
import { ReminderRepository } from '../store/reminder-repository.js';
import { createReminderService, MAX_REMINDER_CHARS } from './reminder-service.js';

const harness = routeHarness();
const NOW = Date.parse('2026-12-01T09:00:00Z');

function setup() {
  const { db } = harness.database('wren-reminderservice-');
  const store = new ReminderRepository(db, () => NOW);
  const context = { now: () => NOW, timezone: () => 'Europe/Berlin', defaultTargets: () => ['cli:terminal'] };
  return { store, reminders: createReminderService({ reminders: store }, context) };
}

describe('reminder service', () => {
  it('adds in the owner zone, to the fallback targets when the request names none', async () => {
    const { reminders } = setup();
    const added = await reminders.add({ text: ' call Ana ', when: 'tomorrow at 9' }, ['telegram:42']);
    expect(added).toMatchObject({
      ok: true,
      description: 'Wed 2026-12-02 09:00 (Europe/Berlin)',
      reminder: { text: 'call Ana', mode: 'notify', deliverTo: ['telegram:42'], timezone: 'Europe/Berlin' },
    });
    const weekly = await reminders.add(
      { text: 'review', when: 'every friday 16:00', deliverTo: ['webhook:ntfy'], sessionId: 's1' },
      ['telegram:42'],
    );
    expect(weekly).toMatchObject({ ok: true, reminder: { cron: '0 16 * * 5', deliverTo: ['webhook:ntfy'] } });
    expect(reminders.list().map((reminder) => reminder.text)).toEqual(['call Ana', 'review']);
  });

  it('refuses empty or long text, bad targets, unreadable and past times, storing nothing', async () => {
    const { reminders } = setup();
    const add = (text: string, when: string, deliverTo?: string[]) =>
      reminders.add({ text, when, ...(deliverTo ? { deliverTo } : {}) }, ['cli:terminal']);
    expect(await add('  ', 'in 5m')).toMatchObject({ ok: false, code: 'invalid', field: 'text' });
    expect(await add('x'.repeat(MAX_REMINDER_CHARS + 1), 'in 5m')).toMatchObject({
      ok: false,
      code: 'invalid',
      field: 'text',
      error: `The reminder text is ${MAX_REMINDER_CHARS + 1} characters; keep it under ${MAX_REMINDER_CHARS}.`,
    });
    expect(await add('tea', 'in 5m', ['nowhere'])).toEqual({
      ok: false,
      code: 'invalid',
      field: 'deliverTo',
      error: '"nowhere" is not a delivery target; use channel:chat (telegram:123) or webhook:name.',
    });
    expect(await reminders.add({ text: 'tea', when: 'in 5m' }, ['bad target'])).toMatchObject({
      code: 'invalid',
      field: 'deliverTo',
    });
    expect(await add('tea', 'whenever you like')).toMatchObject({
      ok: false,
      code: 'invalid',
      field: 'when',
    });
    expect(await add('tea', '2020-01-01T10:00:00Z')).toMatchObject({
      ok: false,
      code: 'invalid',
      field: 'when',
    });
    expect(reminders.list('all')).toEqual([]);
  });

  it('edits only an active reminder, checking the text and time like add', async () => {
    const { reminders } = setup();
    const added = await reminders.add({ text: 'tea', when: 'in 20m' }, ['cli:terminal']);
    if (!added.ok) throw new Error(added.error);
    const id = added.reminder.id;
    expect(await reminders.edit(id, { text: ' ' })).toMatchObject({
      ok: false,
      code: 'invalid',
      field: 'text',
    });
    expect(await reminders.edit(id, { when: 'not a time' })).toMatchObject({
      code: 'invalid',
      field: 'when',
    });
    expect(reminders.get(id)?.text).toBe('tea');
    expect(await reminders.edit(id, { mode: 'agent' })).toMatchObject({
      ok: true,
      reminder: { mode: 'agent' },
      description: 'Tue 2026-12-01 10:20 (Europe/Berlin)',
    });
    expect(await reminders.edit(id, { when: 'every day at 8' })).toMatchObject({
      ok: true,
      reminder: { cron: '0 8 * * *' },
    });
    expect(await reminders.edit(999, { text: 'x' })).toEqual({
      ok: false,
      code: 'not_found',
      error: 'No active reminder 999.',
    });
    expect(reminders.cancel(id)).toEqual({ ok: true });
    expect(await reminders.edit(id, { text: 'again' })).toMatchObject({ ok: false, code: 'not_found' });
  });

  it('cancels once; an unknown, cancelled or non-integer id is not found', () => {
    const { reminders, store } = setup();
    const { id } = store.create({
      text: 'x',
      mode: 'notify',
      at: NOW + 60_000,
      timezone: 'UTC',
      nextAt: NOW + 60_000,
      deliverTo: [],
    });
    expect(reminders.cancel(id)).toEqual({ ok: true });
    expect(reminders.cancel(id)).toMatchObject({ ok: false, code: 'not_found' });
    expect(reminders.cancel(Number.NaN)).toMatchObject({ ok: false, code: 'not_found' });
    expect(reminders.cancel(1.5)).toMatchObject({ ok: false, code: 'not_found' });
  });
});
