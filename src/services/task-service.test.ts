import { describe, expect, it } from 'vitest';
import { routeHarness } from '../../test/support/route-harness.js';
import { TaskRepository } from '../store/task-repository.js';
import {
  createTaskService,
  MAX_TASK_NOTES_CHARS,
  MAX_TASK_TITLE_CHARS,
  normalizeDue,
} from './task-service.js';

const harness = routeHarness();

function setup() {
  const { db } = harness.database('wren-taskservice-');
  let now = Date.parse('2026-04-01T09:00:00Z');
  const store = new TaskRepository(db, () => now++);
  return { store, tasks: createTaskService({ tasks: store }) };
}

describe('normalizeDue', () => {
  it('takes a day or a day and time, with a T or seconds', () => {
    expect(normalizeDue('2026-04-03')).toBe('2026-04-03');
    expect(normalizeDue(' 2026-04-03T18:00 ')).toBe('2026-04-03 18:00');
    expect(normalizeDue('2026-04-03 18:00:59')).toBe('2026-04-03 18:00');
  });

  it.each(['tomorrow', '2026-02-30', '2026-13-01', '2026-04-03 24:00', '2026-04-03 12:60', '26-4-3'])(
    'refuses %s, saying what to write',
    (text) => {
      expect(() => normalizeDue(text)).toThrow(`Invalid due date "${text}": use YYYY-MM-DD`);
    },
  );
});

describe('task service', () => {
  it('creates a task with a normalised due date; a blank or null due date is none', () => {
    const { tasks } = setup();
    expect(
      tasks.create({ title: ' Call the plumber ', due: '2026-04-03T18:00', priority: 'high', notes: ' n ' }),
    ).toMatchObject({
      ok: true,
      task: { id: 1, title: 'Call the plumber', due: '2026-04-03 18:00', priority: 'high', notes: 'n' },
    });
    for (const due of ['', '  ', null]) {
      const created = tasks.create({ title: 'x', due });
      expect(created.ok && created.task.due).toBeUndefined();
    }
  });

  it.each([
    ['an empty title', { title: '' }, 'title'],
    ['a blank title', { title: '   ' }, 'title'],
    ['a title over the cap', { title: 'x'.repeat(MAX_TASK_TITLE_CHARS + 1) }, 'title'],
    ['notes over the cap', { title: 'x', notes: 'n'.repeat(MAX_TASK_NOTES_CHARS + 1) }, 'notes'],
    ['words as a due date', { title: 'x', due: 'tomorrow' }, 'due'],
    ['an impossible due date', { title: 'x', due: '2026-02-30' }, 'due'],
    ['an unknown priority', { title: 'x', priority: 'urgent' }, 'priority'],
  ])('refuses to create with %s (invalid, nothing stored)', (_name, input, field) => {
    const { tasks, store } = setup();
    expect(tasks.create(input)).toMatchObject({
      ok: false,
      code: 'invalid',
      field,
      error: expect.any(String),
    });
    expect(store.list('all')).toEqual([]);
  });

  it('says how to write a due date it refuses', () => {
    const { tasks } = setup();
    const answer = tasks.create({ title: 'x', due: 'next week' });
    expect(!answer.ok && answer.error).toMatch(
      /^Invalid due date "next week": use YYYY-MM-DD or YYYY-MM-DD HH:MM/,
    );
  });

  it('checks every change before writing any: a bad field changes nothing', () => {
    const { tasks, store } = setup();
    tasks.create({ title: 'Keep me', due: '2026-04-05' });
    const before = store.get(1);
    expect(tasks.update(1, { title: 'Changed?', due: '2026-13-01' })).toMatchObject({
      code: 'invalid',
      field: 'due',
    });
    expect(tasks.update(1, { title: 'Changed?', priority: 'urgent' })).toMatchObject({ code: 'invalid' });
    expect(tasks.update(1, { title: '', status: 'done' })).toMatchObject({ code: 'invalid', field: 'title' });
    expect(tasks.update(1, { notes: 'n'.repeat(MAX_TASK_NOTES_CHARS + 1) })).toMatchObject({
      code: 'invalid',
    });
    expect(store.get(1)).toEqual(before);
  });

  it('updates, clears the due date, completes and reopens', () => {
    const { tasks } = setup();
    tasks.create({ title: 'Buy milk', due: '2026-04-02' });
    expect(tasks.update(1, { title: 'Buy oat milk', due: '2026-04-03 08:00' })).toMatchObject({
      ok: true,
      task: { title: 'Buy oat milk', due: '2026-04-03 08:00' },
    });
    const cleared = tasks.update(1, { due: null, priority: 'low' });
    expect(cleared.ok && cleared.task).toMatchObject({ priority: 'low' });
    expect(cleared.ok && cleared.task.due).toBeUndefined();
    tasks.update(1, { due: '2026-04-09' });
    expect(tasks.update(1, { due: '' })).not.toHaveProperty('task.due');
    expect(tasks.update(1, { status: 'done' })).toMatchObject({
      task: { status: 'done', completedAt: expect.any(Number) },
    });
    expect(tasks.list('done').map((task) => task.id)).toEqual([1]);
    expect(tasks.update(1, { status: 'open' })).toMatchObject({ task: { status: 'open' } });
    expect(tasks.complete(1)).toMatchObject({ ok: true, task: { status: 'done' } });
    expect(tasks.reopen(1)).toMatchObject({ ok: true, task: { status: 'open' } });
    expect(tasks.countOpen()).toBe(1);
  });

  it('answers not_found for an unknown id, after checking the input', () => {
    const { tasks } = setup();
    expect(tasks.update(7, { title: 'x' })).toEqual({
      ok: false,
      code: 'not_found',
      error: 'There is no task #7.',
    });
    expect(tasks.update(7, { due: 'soon' })).toMatchObject({ code: 'invalid' });
    expect(tasks.complete(7)).toMatchObject({ ok: false, code: 'not_found' });
    expect(tasks.reopen(7)).toMatchObject({ ok: false, code: 'not_found' });
    expect(tasks.delete(7)).toMatchObject({ ok: false, code: 'not_found' });
    tasks.create({ title: 'x' });
    expect(tasks.delete(1)).toEqual({ ok: true });
    expect(tasks.get(1)).toBeUndefined();
  });
});
