import { describe, expect, it } from 'vitest';
import { routeHarness } from '../../test/support/route-harness.js';
import { PushSubscriptionRepository } from '../store/push-subscription-repository.js';
import { createPushService } from './push-service.js';

const harness = routeHarness();
const keys = {
  p256dh: Buffer.alloc(65, 4).toString('base64url'),
  auth: Buffer.alloc(16, 7).toString('base64url'),
};
const ENDPOINT = 'https://fcm.googleapis.com/fcm/send/abc123';

function setup() {
  const { db } = harness.database('wren-pushservice-');
  const store = new PushSubscriptionRepository(db);
  return { store, push: createPushService({ pushSubscriptions: store }) };
}

describe('push service', () => {
  it('subscribes a browser once (again refreshes it), never echoing its keys, and unsubscribes', async () => {
    const { push, store } = setup();
    const first = await push.subscribe({ endpoint: ENDPOINT, expirationTime: null, keys });
    if (!first.ok) throw new Error(first.error);
    expect(Object.keys(first.subscription).sort()).toEqual(['createdAt', 'endpoint', 'id']);
    const again = await push.subscribe({ endpoint: ENDPOINT, keys });
    expect(again).toMatchObject({ ok: true, subscription: { id: first.subscription.id } });
    expect(push.count()).toBe(1);
    expect(push.unsubscribe(ENDPOINT)).toBe(true);
    expect(push.unsubscribe(ENDPOINT)).toBe(false);
    expect(store.count()).toBe(0);
  });

  it.each([
    ['no keys', { endpoint: ENDPOINT }],
    ['plain http', { endpoint: 'http://fcm.googleapis.com/fcm/send/x', keys }],
    ['no push service', { endpoint: 'https://169.254.169.254/latest', keys }],
    ['not an object', 'subscribe me'],
  ])('refuses %s as invalid, storing nothing', async (_, subscription) => {
    const { push } = setup();
    const refused = await push.subscribe(subscription);
    expect(refused).toMatchObject({ ok: false, code: 'invalid', field: 'subscription' });
    expect(refused.ok ? '' : refused.error).toMatch(/^invalid push subscription: /);
    expect(push.count()).toBe(0);
  });
});
