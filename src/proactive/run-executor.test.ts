import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../store/open-database.js';
import { type Delivery, type OutboxPayload, OutboxRepository } from '../store/outbox-repository.js';
import { createRunExecutor, type Deliverer } from './run-executor.js';
import { createWebhookDeliverer } from './webhook-deliverer.js';

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const T0 = Date.parse('2026-06-01T09:00:00.000Z');
const SECOND = 1000;

/** An outbox on a temp database, a clock the test moves, and an executor over both. */
function setup(deliverers: { channel: Deliverer; webhook?: Deliverer }, reply = 'done') {
  const dir = mkdtempSync(join(tmpdir(), 'wren-exec-'));
  const db = openDatabase(join(dir, 'wren.db'));
  cleanups.push(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const clock = { time: T0 };
  const now = () => clock.time;
  const outbox = new OutboxRepository(db, now);
  const executor = createRunExecutor({
    outbox,
    clock: now,
    deliverers,
    runAgent: async () => ({ text: reply, failed: false }),
  });
  /** Claims and runs one item due now, leaving its deliveries pending; returns its outbox id. */
  const runOne = async (payload: Partial<OutboxPayload> = {}) => {
    const run = outbox.claim(
      {
        sourceKey: `reminder:1:${new Date(clock.time).toISOString()}`,
        kind: 'reminder',
        ref: '1',
        dueAt: clock.time,
        late: false,
        payload: {
          title: 'Reminder',
          text: 'Stretch',
          mode: 'notify',
          autonomous: false,
          deliverTo: [],
          ...payload,
        },
      },
      () => {},
    )!;
    await executor.run(run);
    return run.id;
  };
  return { outbox, executor, clock, runOne };
}

const failWith =
  (error: unknown): Deliverer =>
  () =>
    Promise.reject(error);

describe('run executor delivery retries', () => {
  it('gives up at once on an error marked permanent', async () => {
    const calls: Delivery[] = [];
    const refused = Object.assign(new Error('webhook refused the delivery permanently (400)'), {
      permanent: true,
    });
    const { outbox, executor, runOne } = setup({
      channel: failWith(new Error('unused')),
      webhook: (delivery) => {
        calls.push(delivery);
        return Promise.reject(refused);
      },
    });
    const id = await runOne({ deliverTo: ['webhook:home'] });
    await executor.deliver(T0);
    expect(outbox.deliveriesOf(id)).toEqual([
      { target: 'webhook:home', state: 'failed', attempts: 1, lastError: refused.message },
    ]);
    expect(outbox.nextDeliveryAt()).toBeUndefined();
    await executor.deliver(T0 + 24 * 3600 * SECOND);
    expect(calls).toHaveLength(1);
  });

  it('waits max(backoff, retryAfterMs) before the next attempt', async () => {
    const hinted = Object.assign(new Error('busy'), { retryAfterMs: 120 * SECOND });
    const short = Object.assign(new Error('busy'), { retryAfterMs: 5 * SECOND });
    const errors = [hinted, short];
    const { outbox, executor, clock, runOne } = setup({ channel: () => Promise.reject(errors.shift()) });
    await runOne({ deliverTo: ['telegram:1'] });
    await executor.deliver(T0);
    // The first backoff is 30 s; the target asked for 120 s.
    expect(outbox.nextDeliveryAt()).toBe(T0 + 120 * SECOND);
    clock.time = T0 + 120 * SECOND;
    await executor.deliver(clock.time);
    // The second backoff is 60 s, longer than the 5 s asked for.
    expect(outbox.nextDeliveryAt()).toBe(T0 + 120 * SECOND + 60 * SECOND);
  });

  it('ignores a retryAfterMs that is not a number, and still gives up when the backoff does', async () => {
    const odd = Object.assign(new Error('busy'), { retryAfterMs: 'soon' });
    const { outbox, executor, runOne } = setup({ channel: failWith(odd) });
    const id = await runOne({ deliverTo: ['telegram:1'] });
    await executor.deliver(T0);
    expect(outbox.nextDeliveryAt()).toBe(T0 + 30 * SECOND);
    // A day after the occurrence the executor gives up, whatever the target asks.
    const late = Object.assign(new Error('busy'), { retryAfterMs: 60 * SECOND });
    const giveUp = setup({ channel: failWith(late) });
    const lateId = await giveUp.runOne({ deliverTo: ['telegram:1'] });
    giveUp.clock.time = T0 + 25 * 3600 * SECOND;
    await giveUp.executor.deliver(giveUp.clock.time);
    expect(giveUp.outbox.deliveriesOf(lateId)[0]?.state).toBe('failed');
    expect(outbox.deliveriesOf(id)[0]?.state).toBe('pending');
  });

  it('creates no delivery for a quiet autonomous result, so push and webhooks are never called', async () => {
    const called: string[] = [];
    const record: Deliverer = async (delivery) => {
      called.push(delivery.target);
    };
    const { outbox, executor, runOne } = setup({ channel: record, webhook: record }, '[quiet] all calm');
    const id = await runOne({ mode: 'agent', autonomous: true, deliverTo: ['push:all', 'webhook:home'] });
    await executor.deliver(T0 + 3600 * SECOND);
    expect(outbox.get(id)?.outcome).toBe('quiet');
    expect(outbox.deliveriesOf(id)).toEqual([]);
    expect(called).toEqual([]);
  });
});

describe('run executor with the webhook deliverer', () => {
  it('retries a 503 after its Retry-After with the same Idempotency-Key, then confirms', async () => {
    const keys: string[] = [];
    const replies: Array<(response: ServerResponse) => void> = [
      (response) => response.writeHead(503, { 'retry-after': '120' }).end('maintenance'),
      (response) => response.writeHead(200).end(),
    ];
    const server = createServer((request, response) => {
      keys.push(String(request.headers['idempotency-key']));
      request.resume();
      request.on('end', () => replies.shift()!(response));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    const webhook = createWebhookDeliverer({ webhooks: () => ({ home: { url, headers: {} } }) });
    const { outbox, executor, clock, runOne } = setup({ channel: failWith(new Error('unused')), webhook });
    const id = await runOne({ deliverTo: ['webhook:home'] });

    await executor.deliver(T0);
    expect(outbox.deliveriesOf(id)[0]).toMatchObject({ state: 'pending', attempts: 1 });
    expect(outbox.deliveriesOf(id)[0]?.lastError).toContain('answered 503: maintenance; will retry');
    expect(outbox.nextDeliveryAt()).toBe(T0 + 120 * SECOND);
    clock.time = T0 + 60 * SECOND;
    await executor.deliver(clock.time);
    expect(keys).toHaveLength(1);
    clock.time = T0 + 120 * SECOND;
    await executor.deliver(clock.time);
    expect(outbox.deliveriesOf(id)[0]).toMatchObject({ state: 'sent', attempts: 2 });
    expect(keys).toEqual([
      `reminder:1:${new Date(T0).toISOString()}`,
      `reminder:1:${new Date(T0).toISOString()}`,
    ]);
  });
});
