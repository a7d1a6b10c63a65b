import { describe, expect, it } from 'vitest';
import { jsonSender, routeHarness } from '../../test/support/route-harness.js';
import { createGoals } from '../proactive/goals/goal-rules.js';
import { GoalRepository } from '../store/goal-repository.js';
import { goalRoutes } from './goal-routes.js';

const harness = routeHarness();

/** The JSON answers, as far as the tests read them. */
type Body = Record<string, unknown> & {
  error?: { code: string; message: string };
  steps?: Array<{ title: string }>;
  goals?: unknown[];
};

function setup() {
  const { db } = harness.database('wren-goalapi-');
  const now = () => Date.parse('2026-04-01T09:00:00Z');
  const goals = createGoals(new GoalRepository(db, { now, timezone: () => 'UTC' }), {
    now,
    timezone: () => 'UTC',
  });
  const wakes = { count: 0 };
  const app = goalRoutes(goals, { wake: () => wakes.count++ });
  const send = jsonSender<Body>(app);
  return { goals, send, wakes };
}

describe('goal routes', () => {
  it('create, list, show and change goals (waking the scheduler)', async () => {
    const { send, wakes } = setup();
    const created = await send('POST', '/api/goals', {
      title: 'Run a half marathon',
      dueDate: '2026-09-01',
      checkinCron: '0 18 * * 5',
      deliverTo: ['telegram:42'],
      steps: [{ title: 'Buy shoes' }, { title: 'Run 5 km', status: 'in_progress' }],
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      id: 1,
      status: 'active',
      timezone: 'UTC',
      deliverTo: ['telegram:42'],
    });
    expect(created.body.steps).toHaveLength(2);

    expect((await send('GET', '/api/goals')).body.goals).toMatchObject([{ id: 1 }]);
    const changed = await send('PATCH', '/api/goals/1', { status: 'paused', dueDate: null, why: 'health' });
    expect(changed).toMatchObject({ status: 200, body: { status: 'paused', why: 'health' } });
    expect(changed.body['dueDate']).toBeUndefined();
    expect(changed.body['nextCheckinAt']).toBeUndefined();
    expect((await send('GET', '/api/goals?status=active')).body.goals).toEqual([]);
    expect((await send('GET', '/api/goals?status=paused')).body.goals).toHaveLength(1);
    expect(wakes.count).toBe(2);
    expect((await send('GET', '/api/goals/1')).body).toMatchObject({
      id: 1,
      steps: [{ title: 'Buy shoes' }, {}],
    });
  });

  it('adds and marks steps; accept replaces the plan, dismiss leaves it, each decided once', async () => {
    const { send, goals } = setup();
    await send('POST', '/api/goals', { title: 'Trip', steps: [{ title: 'Pick dates' }] });
    const added = await send('POST', '/api/goals/1/steps', { title: 'Book hotel' });
    expect(added).toMatchObject({ status: 201, body: { id: 2, position: 2, status: 'pending' } });
    const marked = await send('PATCH', '/api/goals/1/steps/1', { status: 'done', notes: 'June 3-10' });
    expect(marked).toMatchObject({ status: 200, body: { status: 'done', notes: 'June 3-10' } });

    const keep = goals.propose(1, {
      reason: 'Flights first',
      steps: [{ title: 'Book flights' }, { title: 'Book hotel' }],
    });
    const drop = goals.propose(1, { reason: 'Skip', steps: [{ title: 'Stay home' }] });
    const dismissed = await send('POST', `/api/goals/proposals/${drop.id}/dismiss`);
    expect(dismissed).toMatchObject({ status: 200, body: { status: 'dismissed' } });
    expect(goals.get(1)!.steps.map((step) => step.title)).toEqual(['Pick dates', 'Book hotel']);
    const accepted = await send('POST', `/api/goals/proposals/${keep.id}/accept`);
    expect(accepted.status).toBe(200);
    expect(accepted.body.steps?.map((step) => step.title)).toEqual(['Book flights', 'Book hotel']);
    expect(await send('POST', `/api/goals/proposals/${keep.id}/accept`)).toEqual({
      status: 409,
      body: { error: { code: 'conflict', message: `Proposal ${keep.id} was already accepted.` } },
    });
  });

  it('answers bad input with 400, unknown ids with 404, as problem JSON', async () => {
    const { send } = setup();
    await send('POST', '/api/goals', { title: 'Trip' });
    const cases: Array<[string, string, unknown, number, string, RegExp]> = [
      ['POST', '/api/goals', {}, 400, 'bad_request', /^title: /],
      ['POST', '/api/goals', { title: 'x', colour: 'red' }, 400, 'bad_request', /colour/],
      ['POST', '/api/goals', 'not json', 400, 'bad_request', /JSON object/],
      ['POST', '/api/goals', { title: 'x', dueDate: 'soon' }, 400, 'bad_request', /use YYYY-MM-DD/],
      ['POST', '/api/goals', { title: 'x', deliverTo: ['nowhere'] }, 400, 'bad_request', /channel:chat/],
      ['PATCH', '/api/goals/1', { checkinCron: 'fridays' }, 400, 'bad_request', /cron expression/],
      ['PATCH', '/api/goals/1', { status: 'finished' }, 400, 'bad_request', /^status: /],
      ['PATCH', '/api/goals/9', { status: 'done' }, 404, 'not_found', /no goal #9/],
      ['GET', '/api/goals/9', undefined, 404, 'not_found', /no goal #9/],
      ['GET', '/api/goals/abc', undefined, 400, 'bad_request', /goal id/],
      ['GET', '/api/goals?status=someday', undefined, 400, 'bad_request', /status must be one of/],
      ['POST', '/api/goals/9/steps', { title: 'x' }, 404, 'not_found', /no goal #9/],
      ['PATCH', '/api/goals/1/steps/9', { status: 'done' }, 404, 'not_found', /no step 9/],
      ['PATCH', '/api/goals/1/steps/x', { status: 'done' }, 400, 'bad_request', /step id/],
      ['POST', '/api/goals/proposals/9/accept', undefined, 404, 'not_found', /no proposal 9/],
      ['POST', '/api/goals/proposals/9/dismiss', undefined, 404, 'not_found', /no proposal 9/],
    ];
    for (const [method, path, body, status, code, message] of cases) {
      const answer = await send(method, path, body);
      expect(answer.status, `${method} ${path}`).toBe(status);
      expect(answer.body.error?.code, `${method} ${path}`).toBe(code);
      expect(answer.body.error?.message, `${method} ${path}`).toMatch(message);
    }
  });
});
