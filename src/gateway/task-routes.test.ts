import { describe, expect, it } from 'vitest';
import { jsonSender, routeHarness } from '../../test/support/route-harness.js';
import { openTasksSection } from '../memory/tools/task-tool.js';
import { createTaskService } from '../services/task-service.js';
import { TaskRepository } from '../store/task-repository.js';
import { taskRoutes } from './task-routes.js';

const harness = routeHarness();

type Task = { id: number; title: string; status: string; due?: string; notes: string; priority: string };
type Body = Record<string, unknown> & {
  error?: { code: string; message: string };
  task?: Task;
  tasks?: Task[];
};

function setup() {
  const { db } = harness.database('wren-taskapi-');
  let now = Date.parse('2026-04-01T09:00:00Z');
  const tasks = new TaskRepository(db, () => now++);
  const app = taskRoutes(createTaskService({ tasks }));
  const send = jsonSender<Body>(app);
  return { tasks, send };
}

describe('task routes', () => {
  it('create, list by status, change, complete, reopen and delete — on the task tool’s repository', async () => {
    const { send, tasks } = setup();
    const created = await send('POST', '/api/tasks', {
      title: '  Call the plumber ',
      notes: 'about the kitchen',
      due: '2026-04-03T18:00',
      priority: 'high',
    });
    expect(created.status).toBe(201);
    expect(created.body.task).toMatchObject({
      id: 1,
      title: 'Call the plumber',
      notes: 'about the kitchen',
      due: '2026-04-03 18:00',
      priority: 'high',
      status: 'open',
    });
    await send('POST', '/api/tasks', { title: 'Buy milk' });
    expect(openTasksSection(tasks, 10)).toContain('#1 [high] Call the plumber (due 2026-04-03 18:00)');
    expect((await send('GET', '/api/tasks')).body.tasks?.map((task) => task.title)).toEqual([
      'Call the plumber',
      'Buy milk',
    ]);

    const changed = await send('PATCH', '/api/tasks/2', { title: 'Buy oat milk', due: '2026-04-02' });
    expect(changed).toMatchObject({
      status: 200,
      body: { task: { title: 'Buy oat milk', due: '2026-04-02' } },
    });
    const cleared = await send('PATCH', '/api/tasks/2', { due: null, priority: 'low' });
    expect(cleared.body.task?.due).toBeUndefined();
    expect(cleared.body.task?.priority).toBe('low');
    expect((await send('PATCH', '/api/tasks/2', { due: '' })).body.task?.due).toBeUndefined();

    const done = await send('PATCH', '/api/tasks/1', { status: 'done' });
    expect(done.body.task).toMatchObject({ status: 'done', completedAt: expect.any(Number) });
    expect((await send('GET', '/api/tasks?status=done')).body.tasks?.map((task) => task.id)).toEqual([1]);
    expect((await send('GET', '/api/tasks')).body.tasks?.map((task) => task.id)).toEqual([2]);
    expect((await send('GET', '/api/tasks?status=all')).body.tasks).toHaveLength(2);
    const reopened = await send('PATCH', '/api/tasks/1', { status: 'open', notes: '' });
    expect(reopened.body.task).toMatchObject({ status: 'open', notes: '' });
    expect(reopened.body.task).not.toHaveProperty('completedAt');
    // An empty change answers the task as it is.
    expect((await send('PATCH', '/api/tasks/1', {})).body.task?.title).toBe('Call the plumber');

    expect(await send('DELETE', '/api/tasks/1')).toEqual({ status: 200, body: { deleted: 1 } });
    expect((await send('DELETE', '/api/tasks/1')).status).toBe(404);
    expect((await send('PATCH', '/api/tasks/1', { title: 'x' })).status).toBe(404);
    expect(tasks.list('all')).toHaveLength(1);
  });

  it.each([
    ['malformed JSON', '{"title": '],
    ['a JSON string', '"Buy milk"'],
    ['no title', { notes: 'x' }],
    ['a blank title', { title: '   ' }],
    ['a title of the wrong type', { title: 7 }],
    ['a huge title', { title: 'x'.repeat(501) }],
    ['an impossible due date', { title: 'x', due: '2026-02-30' }],
    ['words as a due date', { title: 'x', due: 'tomorrow' }],
    ['a bad priority', { title: 'x', priority: 'urgent' }],
    ['a status on create', { title: 'x', status: 'done' }],
    ['an unknown key', { title: 'x', dueDate: '2026-04-01' }],
  ])('refuses to create with %s (400, nothing stored)', async (_name, body) => {
    const { send, tasks } = setup();
    const answer = await send('POST', '/api/tasks', body);
    expect(answer.status).toBe(400);
    expect(answer.body.error?.code).toBe('bad_request');
    expect(answer.body.error?.message).toBeTruthy();
    expect(tasks.list('all')).toEqual([]);
  });

  it('refuses bad changes and ids without changing anything', async () => {
    const { send, tasks } = setup();
    await send('POST', '/api/tasks', { title: 'Keep me', due: '2026-04-05' });
    const bad = await send('PATCH', '/api/tasks/1', { title: 'Changed?', due: '2026-13-01' });
    expect(bad.status).toBe(400);
    expect(bad.body.error?.message).toMatch(/^due: Invalid due date/);
    expect((await send('PATCH', '/api/tasks/1', { status: 'cancelled' })).status).toBe(400);
    expect((await send('PATCH', '/api/tasks/1', { title: '' })).status).toBe(400);
    expect(tasks.get(1)).toMatchObject({ title: 'Keep me', due: '2026-04-05', status: 'open' });
    for (const id of ['abc', '0', '-1', '1e3', '1.5']) {
      expect((await send('PATCH', `/api/tasks/${id}`, { title: 'x' })).status, id).toBe(400);
      expect((await send('DELETE', `/api/tasks/${id}`)).status, id).toBe(400);
    }
    expect((await send('GET', '/api/tasks?status=cancelled')).status).toBe(400);
    const huge = await send('POST', '/api/tasks', { title: 'x', notes: 'n'.repeat(2_000_000) });
    expect(huge.status).toBe(413);
    expect(huge.body.error?.code).toBe('too_large');
    expect(tasks.list('all')).toHaveLength(1);
  });
});
