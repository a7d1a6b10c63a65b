import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonSender, routeHarness } from '../../test/support/route-harness.js';
import { loadVapidKeys } from '../proactive/web-push.js';
import { createPushService } from '../services/push-service.js';
import { PushSubscriptionRepository } from '../store/push-subscription-repository.js';
import { pushRoutes } from './push-routes.js';

const harness = routeHarness();

type Body = Record<string, unknown> & { error?: { code: string; message: string } };

const P256DH = Buffer.alloc(65, 4).toString('base64url');
const AUTH = Buffer.alloc(16, 7).toString('base64url');
const ENDPOINT = 'https://fcm.googleapis.com/fcm/send/abc123';
/** The refusal of an endpoint that is no browser push service: it names the services allowed. */
const NOT_A_SERVICE =
  /^invalid push subscription: endpoint must be a browser push service's URL: https on the default port at fcm\.googleapis\.com, updates\.push\.services\.mozilla\.com, \*\.push\.apple\.com or \*\.notify\.windows\.com$/;
const browserJson = (endpoint = ENDPOINT) => ({
  endpoint,
  expirationTime: null,
  keys: { p256dh: P256DH, auth: AUTH },
});

function setup(enabled = true) {
  const { dir: home, db } = harness.database('wren-pushapi-');
  const subscriptions = new PushSubscriptionRepository(db);
  const app = pushRoutes({
    subscriptions: createPushService({ pushSubscriptions: subscriptions }),
    publicKey: async () => loadVapidKeys(home).publicKey,
    enabled: () => enabled,
  });
  const send = jsonSender<Body>(app);
  return { home, subscriptions, send };
}

describe('push routes', () => {
  it('gives the VAPID public key, created once (0600) and never the private one', async () => {
    const { home, send } = setup(false);
    const first = await send('GET', '/api/push/key');
    expect(first.status).toBe(200);
    const stored = JSON.parse(readFileSync(join(home, 'push-vapid.json'), 'utf8')) as {
      publicKey: string;
      privateKey: string;
    };
    expect(first.body).toEqual({ publicKey: stored.publicKey, enabled: false });
    expect(JSON.stringify(first.body)).not.toContain(stored.privateKey);
    expect(statSync(join(home, 'push-vapid.json')).mode & 0o777).toBe(0o600);
    expect((await send('GET', '/api/push/key')).body['publicKey']).toBe(stored.publicKey);
  });

  it('says what to do when the stored key pair is damaged, without replacing it', async () => {
    const { home, send } = setup();
    writeFileSync(join(home, 'push-vapid.json'), '{"publicKey": "x"}');
    const answer = await send('GET', '/api/push/key');
    expect(answer.status).toBe(500);
    expect(answer.body.error?.message).toMatch(/not a VAPID key pair; move it aside/);
    expect(readFileSync(join(home, 'push-vapid.json'), 'utf8')).toBe('{"publicKey": "x"}');
  });

  it('subscribes a browser (idempotently, keys not echoed) and unsubscribes it', async () => {
    const { send, subscriptions } = setup();
    const added = await send('POST', '/api/push/subscriptions', browserJson());
    expect(added.status).toBe(201);
    expect(added.body).toEqual({
      subscription: { id: expect.any(Number), endpoint: ENDPOINT, createdAt: expect.any(Number) },
    });
    expect(JSON.stringify(added.body)).not.toContain(AUTH);
    expect((await send('POST', '/api/push/subscriptions', browserJson())).status).toBe(201);
    expect(subscriptions.list()).toMatchObject([
      { endpoint: ENDPOINT, keys: { p256dh: P256DH, auth: AUTH } },
    ]);
    expect(await send('DELETE', '/api/push/subscriptions', { endpoint: ENDPOINT })).toEqual({
      status: 200,
      body: { removed: true },
    });
    expect((await send('DELETE', '/api/push/subscriptions', { endpoint: ENDPOINT })).body).toEqual({
      removed: false,
    });
    expect(subscriptions.list()).toEqual([]);
  });

  it.each([
    ['malformed JSON', '{"endpoint":', /JSON object/],
    ['an http endpoint', browserJson('http://fcm.googleapis.com/x'), /endpoint must be an https URL/],
    ['no URL at all', browserJson('https://'), /endpoint/],
    ['an IP address', browserJson('https://127.0.0.1/push'), NOT_A_SERVICE],
    ['an IPv6 address', browserJson('https://[::1]:8443/push'), NOT_A_SERVICE],
    ['localhost', browserJson('https://localhost/push'), NOT_A_SERVICE],
    ['a single-label host', browserJson('https://router/push'), NOT_A_SERVICE],
    ['a public name for 127.0.0.1', browserJson('https://127.0.0.1.nip.io:8443/x'), NOT_A_SERVICE],
    [
      'a metadata service',
      browserJson('https://metadata.google.internal/computeMetadata/v1/'),
      NOT_A_SERVICE,
    ],
    [
      'a push service on another port',
      browserJson('https://fcm.googleapis.com:8443/fcm/send/a'),
      NOT_A_SERVICE,
    ],
    ['an IP with a push path', browserJson('https://169.254.169.254:443/fcm/send/a'), NOT_A_SERVICE],
    ['a look-alike host', browserJson('https://fcm.googleapis.com.evil.example/x'), NOT_A_SERVICE],
    ['a suffix without a dot', browserJson('https://evilpush.apple.com/x'), NOT_A_SERVICE],
    ['the bare wildcard domain', browserJson('https://notify.windows.com/w/'), NOT_A_SERVICE],
    ['a trailing dot', browserJson('https://fcm.googleapis.com./fcm/send/a'), NOT_A_SERVICE],
    ['user info', browserJson('https://user:pw@fcm.googleapis.com/fcm/send/a'), NOT_A_SERVICE],
    ['a backslash trick', browserJson('https://127.0.0.1\\@fcm.googleapis.com/x'), NOT_A_SERVICE],
    ['no keys', { endpoint: ENDPOINT }, /keys/],
    ['a short auth', { endpoint: ENDPOINT, keys: { p256dh: P256DH, auth: 'abc' } }, /keys\.auth/],
    ['a p256dh that is no base64url', { endpoint: ENDPOINT, keys: { p256dh: '!!', auth: AUTH } }, /p256dh/],
    ['keys of the wrong type', { endpoint: ENDPOINT, keys: 'x' }, /keys/],
    ['a huge endpoint', browserJson(`https://fcm.googleapis.com/${'a'.repeat(3000)}`), /endpoint/],
  ])('refuses to subscribe %s with 400', async (_name, body, message) => {
    const { send, subscriptions } = setup();
    const answer = await send('POST', '/api/push/subscriptions', body);
    expect(answer.status).toBe(400);
    expect(answer.body.error?.code).toBe('bad_request');
    expect(answer.body.error?.message).toMatch(message);
    expect(subscriptions.list()).toEqual([]);
  });

  it.each([
    'https://fcm.googleapis.com/fcm/send/cXyZ:APA91bH-abc',
    'https://fcm.googleapis.com:443/fcm/send/explicit-default-port',
    'https://updates.push.services.mozilla.com/wpush/v2/gAAAAABk',
    'https://web.push.apple.com/QGuQyavXutnMHTDZ-abc',
    'https://wns2-par02p.notify.windows.com/w/?token=BQYAAAB%3d',
  ])('accepts a subscription at a browser push service: %s', async (endpoint) => {
    const { send, subscriptions } = setup();
    const answer = await send('POST', '/api/push/subscriptions', browserJson(endpoint));
    expect(answer.status).toBe(201);
    expect(subscriptions.list().map((subscription) => subscription.endpoint)).toEqual([endpoint]);
  });

  it('refuses bad unsubscribe bodies and oversize ones', async () => {
    const { send } = setup();
    for (const body of ['{', {}, { endpoint: 7 }, { endpoint: ENDPOINT, extra: 1 }]) {
      const answer = await send('DELETE', '/api/push/subscriptions', body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
    }
    const huge = await send('POST', '/api/push/subscriptions', { ...browserJson(), pad: 'x'.repeat(20_000) });
    expect(huge.status).toBe(413);
  });
});
