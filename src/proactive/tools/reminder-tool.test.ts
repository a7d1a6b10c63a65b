import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { toolContext } from '../../../test/support/tool-context.js';
import { createReminderService } from '../../services/reminder-service.js';
import { openDatabase } from '../../store/open-database.js';
import { ReminderRepository } from '../../store/reminder-repository.js';
import { createReminderTool } from './reminder-tool.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function setup(now = Date.parse('2026-12-01T08:00:00Z')) {
  const dir = mkdtempSync(join(tmpdir(), 'wren-reminder-tool-'));
  const db = openDatabase(join(dir, 'wren.db'));
  cleanups.push(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const reminders = new ReminderRepository(db, () => now);
  let woken = 0;
  const tool = createReminderTool({
    reminders: createReminderService(
      { reminders },
      { now: () => now, timezone: () => 'Europe/Berlin', defaultTargets: () => ['cli:terminal'] },
    ),
    wake: () => {
      woken++;
    },
  });
  const ctx = toolContext({ sessionId: 's1', channel: 'telegram', chatId: '42' });
  const call = (args: Record<string, unknown>) => tool.execute(args, ctx, new AbortController().signal);
  return { tool, reminders, call, ctx, woken: () => woken };
}

describe('reminder tool', () => {
  it('adds a one-off reminder delivered to the chat it was asked in, and wakes the scheduler', async () => {
    const { call, reminders, woken } = setup();
    const result = await call({ action: 'add', text: 'call the dentist', when: 'in 20 minutes' });
    expect(result.content).toBe('Reminder #1 set: Tue 2026-12-01 09:20 (Europe/Berlin).');
    expect(reminders.get(1)).toMatchObject({
      text: 'call the dentist',
      mode: 'notify',
      nextAt: Date.parse('2026-12-01T08:20:00Z'),
      deliverTo: ['telegram:42'],
      sessionId: 's1',
    });
    expect(woken()).toBe(1);
  });

  it('adds a recurring agent reminder in the owner’s zone, lists and cancels it', async () => {
    const { call, reminders } = setup();
    const added = await call({
      action: 'add',
      text: 'summarise my inbox',
      when: 'every weekday at 7:30',
      mode: 'agent',
    });
    expect(added.content).toContain('every weekday at 07:30 (Europe/Berlin)');
    expect(reminders.get(1)).toMatchObject({
      cron: '30 7 * * 1-5',
      timezone: 'Europe/Berlin',
      mode: 'agent',
    });
    expect((await call({ action: 'list' })).content).toMatch(
      /^#1 Wed 2026-12-02 07:30 \(Europe\/Berlin\) · cron "30 7 \* \* 1-5" · agent → telegram:42 · summarise my inbox$/,
    );
    expect((await call({ action: 'cancel', id: 1 })).content).toBe('Cancelled reminder #1.');
    expect((await call({ action: 'list' })).content).toBe('No active reminders.');
  });

  it('refuses what it cannot schedule with a message the model can act on', async () => {
    const { call } = setup();
    await expect(call({ action: 'add', text: 'x', when: 'yesterday at 9' })).rejects.toThrow(/past|future/i);
    await expect(call({ action: 'add', text: 'x', when: 'banana' })).rejects.toThrow(/in 20m|tomorrow/);
    await expect(call({ action: 'add', text: '  ', when: 'in 1h' })).rejects.toThrow(/needs some text/);
    await expect(call({ action: 'add', text: 'x', when: 'in 1h', deliver_to: ['nowhere'] })).rejects.toThrow(
      /not a delivery target/,
    );
    await expect(call({ action: 'add', text: 'x' })).rejects.toThrow(/needs "text" and "when"/);
    await expect(call({ action: 'cancel', id: 9 })).rejects.toThrow(/no active reminder #9/);
  });

  it('tells the gate that adding stores text a later run acts on', async () => {
    const { tool, ctx } = setup();
    expect(await tool.assess!({ action: 'add', text: 'send the report', when: 'in 1h' }, ctx)).toEqual({
      persists: 'a reminder ("send the report")',
    });
    expect(await tool.assess!({ action: 'list' }, ctx)).toEqual({});
    expect(await tool.assess!({ action: 'cancel', id: 999 }, ctx)).toEqual({ removes: 'reminder #999' });
  });
});
