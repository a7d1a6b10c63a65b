import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/load-config.js';
import { problem } from '../gateway/problem.js';
import { createOwnerServices } from '../services/owner-services.js';
import { MemoRepository } from '../store/memo-repository.js';
import { openDatabase } from '../store/open-database.js';
import { openStores } from '../store/open-stores.js';
import { PushSubscriptionRepository } from '../store/push-subscription-repository.js';
import { TaskRepository } from '../store/task-repository.js';
import { serviceContext } from './open-home.js';
import { ownerDataRoutes } from './owner-data-routes.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function setup() {
  const home = mkdtempSync(join(tmpdir(), 'wren-ownerroutes-'));
  const db = openDatabase(join(home, 'wren.db'));
  cleanups.push(() => {
    db.close();
    rmSync(home, { recursive: true, force: true });
  });
  const config = loadConfig(home, {});
  mkdirSync(config.workspace, { recursive: true });
  const logged: Array<[Record<string, unknown>, string]> = [];
  const gateway = new Hono();
  // As createGateway does: the token check is mounted before these routes, so it guards them.
  gateway.use('/api/*', async (c, next) =>
    c.req.header('authorization') === 'Bearer secret'
      ? next()
      : c.json(problem('unauthorized', 'Missing or wrong token.'), 401),
  );
  const groups = ownerDataRoutes({
    home,
    services: createOwnerServices(
      openStores(db),
      serviceContext(() => config),
    ),
    config: () => config,
    memory: {},
    logger: {
      info: ((fields: Record<string, unknown>, message: string) => logged.push([fields, message])) as never,
    },
  });
  for (const routes of groups) gateway.route('/', routes);
  const send = async (method: string, path: string, body?: unknown, token = 'secret') => {
    const response = await gateway.request(path, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  return { home, db, config, send, logged };
}

describe('ownerDataRoutes', () => {
  it('wires every family over the app’s workspace, database and home, behind the token check', async () => {
    const { home, db, config, send, logged } = setup();
    for (const path of ['/api/memory', '/api/tasks', '/api/memos', '/api/push/key']) {
      expect((await send('GET', path, undefined, 'wrong')).status, path).toBe(401);
    }
    expect((await send('PUT', '/api/memory/files/MEMORY.md', { content: '- likes tea\n' })).status).toBe(200);
    expect(readFileSync(join(config.workspace, 'MEMORY.md'), 'utf8')).toBe('- likes tea\n');
    expect(logged).toEqual([[{ file: 'MEMORY.md', size: 12 }, 'memory file replaced over the API']]);
    expect((await send('POST', '/api/tasks', { title: 'water plants' })).status).toBe(201);
    expect(new TaskRepository(db).list()).toMatchObject([{ title: 'water plants' }]);
    expect((await send('POST', '/api/memos', { text: 'door code 4711' })).status).toBe(201);
    expect(new MemoRepository(db).list()).toMatchObject([{ text: 'door code 4711' }]);
    const key = await send('GET', '/api/push/key');
    expect(key.body).toEqual({
      publicKey: JSON.parse(readFileSync(join(home, 'push-vapid.json'), 'utf8')).publicKey,
      enabled: config.proactive.push,
    });
    const subscribed = await send('POST', '/api/push/subscriptions', {
      endpoint: 'https://updates.push.services.mozilla.com/wpush/v2/abc',
      keys: {
        p256dh: Buffer.alloc(65, 4).toString('base64url'),
        auth: Buffer.alloc(16, 1).toString('base64url'),
      },
    });
    expect(subscribed.status).toBe(201);
    // The table the push deliverer reads.
    expect(new PushSubscriptionRepository(db).count()).toBe(1);
    expect((await send('GET', '/api/memory/search?q=tea')).status).toBe(200);
  });
});
