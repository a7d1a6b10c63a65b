import { describe, expect, it } from 'vitest';
import { toHooksConfig } from '../config/hooks-config.js';
import type { HookEvent } from '../hooks/hook-trigger-event.js';
import { signBody } from '../hooks/verify-hook-auth.js';
import { hookRoutes } from './hook-routes.js';

const SECRET = 'route-test-secret-0123456789';
const hooks = toHooksConfig({
  ci: { secret: SECRET, notify: 'build {{status}}', rate_per_minute: 2, max_body_kb: 1 },
});

function routes(record: (event: HookEvent) => boolean = () => true) {
  const events: HookEvent[] = [];
  const app = hookRoutes({
    hooks: () => hooks,
    record: (event) => {
      events.push(event);
      return record(event);
    },
    defaultTargets: () => ['cli:terminal'],
  });
  const post = (body: string, headers: Record<string, string> = {}, path = '/hooks/ci') =>
    app.request(path, {
      method: 'POST',
      body,
      headers: { 'x-wren-signature': signBody(SECRET, body), ...headers },
    });
  return { app, events, post };
}

describe('hookRoutes', () => {
  it('records a signed delivery for the default targets and answers 202', async () => {
    const { events, post } = routes();
    const answer = await post('{"status":"green"}', { 'x-wren-delivery': 'b-1' });
    expect(answer.status).toBe(202);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      key: 'hook:ci:b-1',
      payload: { text: 'build green', mode: 'notify', deliverTo: ['cli:terminal'], untrusted: true },
    });
  });

  it('answers 413 by the declared length before reading, closing the connection', async () => {
    const { events, post } = routes();
    const answer = await post('x'.repeat(2048));
    expect(answer.status).toBe(413);
    expect(answer.headers.get('connection')).toBe('close');
    expect(events).toEqual([]);
  });

  it('answers every other method and path under /hooks with the same 401', async () => {
    const { app, post } = routes();
    const bad = await post('{}', { 'x-wren-signature': 'sha256=00' });
    const expected = await bad.text();
    for (const answer of [
      await app.request('/hooks/ci'),
      await app.request('/hooks'),
      await app.request('/hooks/ci/more', { method: 'POST' }),
      await post('{}', {}, '/hooks/CI'),
    ]) {
      expect(answer.status).toBe(401);
      expect(await answer.text()).toBe(expected);
    }
  });

  it('answers 429 with Retry-After past the rate, and 500 when the delivery cannot be stored', async () => {
    const { post } = routes();
    expect((await post('{"n":1}')).status).toBe(202);
    expect((await post('{"n":2}')).status).toBe(202);
    const limited = await post('{"n":3}');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBe(30);
    const failing = routes(() => {
      throw new Error('disk full');
    });
    expect((await failing.post('{"n":4}')).status).toBe(500);
  });
});
