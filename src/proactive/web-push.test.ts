import {
  createDecipheriv,
  createECDH,
  createPublicKey,
  type ECDH,
  hkdfSync,
  randomBytes,
  verify,
} from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import webPush from 'web-push';
import { MIGRATION_V8 } from '../store/migration-v8-push.js';
import { MIGRATIONS, migrate } from '../store/migrations.js';
import { openDatabase } from '../store/open-database.js';
import type { Delivery } from '../store/outbox-repository.js';
import { PushSubscriptionRepository } from '../store/push-subscription-repository.js';
import {
  cap,
  createPushDeliverer,
  loadVapidKeys,
  PUSH_SERVICES,
  PUSH_TARGET,
  PushDeliveryError,
  type PushSend,
  parsePushSubscription,
  pushServiceUrl,
  pushTargets,
} from './web-push.js';

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'wren-webpush-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function database(): Database.Database {
  const db = openDatabase(join(tempDir(), 'wren.db'), { migrate: false });
  migrate(db, [...MIGRATIONS, MIGRATION_V8]);
  cleanups.push(() => {
    db.close();
  });
  return db;
}

/** A browser's side of a subscription: its key pair and auth secret, as `pushManager.subscribe()` makes. */
function browser(endpoint: string) {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  const auth = randomBytes(16);
  return {
    ecdh,
    auth,
    subscription: {
      endpoint,
      keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: auth.toString('base64url') },
    },
  };
}

/** Decrypts an aes128gcm push message (RFC 8291 + RFC 8188, one record) with the browser's keys. */
function decrypt(body: Buffer, ecdh: ECDH, auth: Buffer): string {
  const salt = body.subarray(0, 16);
  const idLength = body.readUInt8(20);
  const senderKey = body.subarray(21, 21 + idLength);
  const record = body.subarray(21 + idLength);
  const shared = ecdh.computeSecret(senderKey);
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), ecdh.getPublicKey(), senderKey]);
  const ikm = Buffer.from(hkdfSync('sha256', shared, auth, keyInfo, 32));
  const cek = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16));
  const nonce = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12));
  const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(record.subarray(record.length - 16));
  const plain = Buffer.concat([decipher.update(record.subarray(0, record.length - 16)), decipher.final()]);
  return plain.subarray(0, plain.lastIndexOf(2)).toString('utf8');
}

/** Checks the VAPID JWT (`vapid t=<jwt>, k=<key>`) is signed by `publicKey`; returns its claims. */
function vapidClaims(authorization: string, publicKey: string): Record<string, unknown> {
  const match = /^vapid t=([^,]+), k=(.+)$/.exec(authorization);
  expect(match?.[2]).toBe(publicKey);
  const [header, claims, signature] = match![1]!.split('.') as [string, string, string];
  const raw = Buffer.from(publicKey, 'base64url');
  const key = createPublicKey({
    key: {
      kty: 'EC',
      crv: 'P-256',
      x: raw.subarray(1, 33).toString('base64url'),
      y: raw.subarray(33).toString('base64url'),
    },
    format: 'jwk',
  });
  const signed = Buffer.from(`${header}.${claims}`);
  const valid = verify(
    'sha256',
    signed,
    { key, dsaEncoding: 'ieee-p1363' },
    Buffer.from(signature, 'base64url'),
  );
  expect(valid).toBe(true);
  return JSON.parse(Buffer.from(claims, 'base64url').toString('utf8')) as Record<string, unknown>;
}

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** A fake push service on 127.0.0.1: `reply` picks the answer per path; requests are recorded. */
async function pushService(reply: (path: string, response: ServerResponse) => void) {
  const received: Received[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ path: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks) });
      reply(request.url ?? '', response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  const { port } = server.address() as AddressInfo;
  /**
   * web-push's request, built by `generateRequestDetails` exactly as `sendNotification` builds it, sent with
   * fetch to the local service (web-push itself only speaks https): the endpoint's path is kept.
   */
  const send: PushSend = async (subscription, payload, options, signal) => {
    const details = webPush.generateRequestDetails(subscription, payload, options);
    const headers = Object.fromEntries(
      Object.entries(details.headers)
        .filter(([name]) => name.toLowerCase() !== 'content-length')
        .map(([name, value]) => [name, String(value)]),
    );
    const url = `http://127.0.0.1:${port}${new URL(details.endpoint).pathname}`;
    const response = await fetch(url, { method: 'POST', headers, body: details.body, signal });
    const text = await response.text();
    if (!response.ok) {
      const answerHeaders = Object.fromEntries(response.headers);
      throw new webPush.WebPushError(
        'Received unexpected response code',
        response.status,
        answerHeaders,
        text,
        details.endpoint,
      );
    }
  };
  return { received, send };
}

function delivery(overrides: Partial<Delivery> = {}): Delivery {
  return {
    id: 1,
    outboxId: 1,
    sourceKey: 'reminder:9:2026-05-01T08:00:00.000Z',
    target: PUSH_TARGET,
    state: 'pending',
    attempts: 0,
    nextAttemptAt: 0,
    kind: 'reminder',
    title: 'Reminder',
    text: 'Call the dentist',
    late: false,
    dueAt: Date.parse('2026-05-01T08:00:00.000Z'),
    ...overrides,
  };
}

const signal = new AbortController().signal;

async function rejection(promise: Promise<unknown>): Promise<PushDeliveryError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(PushDeliveryError);
  return error as PushDeliveryError;
}

describe('loadVapidKeys', () => {
  it('generates the key pair once, 0600, and reads it back afterwards', () => {
    const home = tempDir();
    const keys = loadVapidKeys(home);
    expect(Buffer.from(keys.publicKey, 'base64url')).toHaveLength(65);
    expect(statSync(join(home, 'push-vapid.json')).mode & 0o777).toBe(0o600);
    expect(loadVapidKeys(home)).toEqual(keys);
    chmodSync(join(home, 'push-vapid.json'), 0o644);
    expect(loadVapidKeys(home)).toEqual(keys);
    expect(statSync(join(home, 'push-vapid.json')).mode & 0o777).toBe(0o600);
  });

  it('refuses a damaged file instead of replacing the keys browsers are bound to', () => {
    const home = tempDir();
    writeFileSync(join(home, 'push-vapid.json'), '{"publicKey": "x"}', { mode: 0o600 });
    expect(() => loadVapidKeys(home)).toThrow(/is not a VAPID key pair; move it aside/);
  });
});

describe('parsePushSubscription and cap', () => {
  it('accepts what a browser sends and names what is wrong otherwise', () => {
    const { subscription } = browser('https://updates.push.services.mozilla.com/send/abc');
    expect(parsePushSubscription({ ...subscription, expirationTime: null })).toEqual(subscription);
    expect(() =>
      parsePushSubscription({ ...subscription, endpoint: 'http://updates.push.services.mozilla.com/x' }),
    ).toThrow(/endpoint must be an https URL/);
    expect(() =>
      parsePushSubscription({ ...subscription, keys: { ...subscription.keys, auth: 'abc' } }),
    ).toThrow(/keys.auth/);
    expect(() => parsePushSubscription('nope')).toThrow(/invalid push subscription/);
  });

  it("accepts only endpoints at the browsers' push services, naming them when it refuses", () => {
    expect(PUSH_SERVICES).toEqual([
      'fcm.googleapis.com',
      'updates.push.services.mozilla.com',
      '*.push.apple.com',
      '*.notify.windows.com',
    ]);
    const keys = browser('https://fcm.googleapis.com/x').subscription.keys;
    for (const endpoint of [
      'https://fcm.googleapis.com/fcm/send/abc',
      'https://updates.push.services.mozilla.com/wpush/v2/abc',
      'https://web.push.apple.com/abc',
      'https://wns2-par02p.notify.windows.com/w/?token=abc',
    ])
      expect(parsePushSubscription({ endpoint, keys }).endpoint).toBe(endpoint);
    for (const endpoint of [
      'https://127.0.0.1.nip.io:8443/x',
      'https://metadata.google.internal/computeMetadata/v1/',
      'https://10.0.0.1/fcm/send/abc',
      'https://fcm.googleapis.com:8443/fcm/send/abc',
      'https://push.apple.com/abc',
      'https://fcm.googleapis.com.attacker.example/x',
    ]) {
      expect(() => parsePushSubscription({ endpoint, keys }), endpoint).toThrow(
        /endpoint must be a browser push service's URL: .*fcm\.googleapis\.com.*\*\.notify\.windows\.com/,
      );
    }
    // What is sent to is the parsed form, so the host checked is the host connected to.
    expect(pushServiceUrl('https://FCM.googleapis.com:443/fcm/send/a')).toBe(
      'https://fcm.googleapis.com/fcm/send/a',
    );
    expect(pushServiceUrl('https://127.0.0.1\\@fcm.googleapis.com/x')).toBeUndefined();
    expect(pushServiceUrl('not a url')).toBeUndefined();
  });

  it('cuts by characters, not UTF-16 units, and marks the cut', () => {
    expect(cap('short', 10)).toBe('short');
    expect(cap('abcdefghij', 5)).toBe('abcd…');
    expect(cap('🐦🐦🐦🐦🐦🐦', 4)).toBe('🐦🐦🐦…');
  });

  it('adds push:all to the targets only when push is on', () => {
    expect(pushTargets({ push: true })).toEqual(['push:all']);
    expect(pushTargets({ push: false })).toEqual([]);
  });
});

describe('createPushDeliverer', () => {
  it('sends every subscription a VAPID-signed, aes128gcm-encrypted, capped message', async () => {
    const subscriptions = new PushSubscriptionRepository(database(), () => 5_000);
    const one = browser('https://updates.push.services.mozilla.com/send/one');
    const two = browser('https://updates.push.services.mozilla.com/send/two');
    subscriptions.add(one.subscription);
    subscriptions.add(two.subscription);
    const service = await pushService((_path, response) => response.writeHead(201).end());
    const vapid = webPush.generateVAPIDKeys();
    const deliver = createPushDeliverer({
      subscriptions,
      vapid,
      subject: 'mailto:owner@example.com',
      send: service.send,
    });
    const title = `Daily briefing ${'t'.repeat(100)}`;
    await deliver(delivery({ title, text: 'x'.repeat(300), late: true }), signal);

    expect(service.received.map((request) => request.path).sort()).toEqual(['/send/one', '/send/two']);
    const request = service.received.find((received) => received.path === '/send/one')!;
    expect(request.headers['content-encoding']).toBe('aes128gcm');
    expect(request.headers.ttl).toBe('86400');
    expect(request.headers.urgency).toBe('normal');
    expect(request.headers.topic).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const claims = vapidClaims(String(request.headers.authorization), vapid.publicKey);
    expect(claims).toMatchObject({
      aud: 'https://updates.push.services.mozilla.com',
      sub: 'mailto:owner@example.com',
    });
    expect(request.body.includes(Buffer.from('Daily briefing'))).toBe(false);
    const message = JSON.parse(decrypt(request.body, one.ecdh, one.auth));
    expect(message).toEqual({
      title: `${title.slice(0, 79)}…`,
      body: `${'x'.repeat(239)}…`,
      key: 'reminder:9:2026-05-01T08:00:00.000Z',
      kind: 'reminder',
      at: '2026-05-01T08:00:00.000Z',
      late: true,
    });
    expect(subscriptions.list().map((subscription) => subscription.lastOkAt)).toEqual([5_000, 5_000]);
  });

  it('deletes endpoints that answer 404 or 410 and resolves when another browser took it', async () => {
    const subscriptions = new PushSubscriptionRepository(database());
    for (const name of ['gone', 'missing', 'alive'])
      subscriptions.add(browser(`https://updates.push.services.mozilla.com/${name}`).subscription);
    const service = await pushService((path, response) => {
      response.writeHead(path === '/gone' ? 410 : path === '/missing' ? 404 : 201).end();
    });
    const deliver = createPushDeliverer({
      subscriptions,
      vapid: webPush.generateVAPIDKeys(),
      send: service.send,
    });
    await deliver(delivery(), signal);
    expect(subscriptions.list().map((subscription) => subscription.endpoint)).toEqual([
      'https://updates.push.services.mozilla.com/alive',
    ]);
  });

  it('resolves when every endpoint is dead (nothing left to retry), and when none is subscribed', async () => {
    const subscriptions = new PushSubscriptionRepository(database());
    subscriptions.add(browser('https://updates.push.services.mozilla.com/gone').subscription);
    const service = await pushService((_path, response) => response.writeHead(410).end());
    const deliver = createPushDeliverer({
      subscriptions,
      vapid: webPush.generateVAPIDKeys(),
      send: service.send,
    });
    await deliver(delivery(), signal);
    expect(subscriptions.count()).toBe(0);
    await deliver(delivery(), signal);
    expect(service.received).toHaveLength(1);
  });

  it('counts failures and asks for a retry, honouring Retry-After, when no browser took it', async () => {
    const subscriptions = new PushSubscriptionRepository(database());
    subscriptions.add(browser('https://updates.push.services.mozilla.com/busy').subscription);
    subscriptions.add(browser('https://updates.push.services.mozilla.com/broken').subscription);
    const service = await pushService((path, response) => {
      response.writeHead(path === '/busy' ? 429 : 500, path === '/busy' ? { 'retry-after': '90' } : {}).end();
    });
    const deliver = createPushDeliverer({
      subscriptions,
      vapid: webPush.generateVAPIDKeys(),
      send: service.send,
    });
    const error = await rejection(deliver(delivery(), signal));
    expect(error).toMatchObject({ permanent: false, retryAfterMs: 90_000 });
    expect(error.message).toContain('updates.push.services.mozilla.com answered 429');
    expect(error.message).not.toContain('/busy');
    expect(subscriptions.list().map((subscription) => subscription.failures)).toEqual([1, 1]);
  });

  it('gives up at once when every push service refuses for good', async () => {
    const subscriptions = new PushSubscriptionRepository(database());
    subscriptions.add(browser('https://updates.push.services.mozilla.com/forbidden').subscription);
    const service = await pushService((_path, response) => response.writeHead(403).end());
    const deliver = createPushDeliverer({
      subscriptions,
      vapid: webPush.generateVAPIDKeys(),
      send: service.send,
    });
    const error = await rejection(deliver(delivery(), signal));
    expect(error.permanent).toBe(true);
    expect(error.message).toMatch(/refused the notification permanently .*403/);
    expect(subscriptions.list()[0]?.failures).toBe(1);
  });

  it('stops waiting for a push service that never answers', async () => {
    const subscriptions = new PushSubscriptionRepository(database());
    subscriptions.add(browser('https://updates.push.services.mozilla.com/slow').subscription);
    const service = await pushService(() => {});
    const deliver = createPushDeliverer({
      subscriptions,
      vapid: webPush.generateVAPIDKeys(),
      send: service.send,
      timeoutMs: 200,
    });
    const error = await rejection(deliver(delivery(), signal));
    expect(error.permanent).toBe(false);
    expect(error.message).toContain('no answer in time');
  });

  it('never sends to a stored endpoint that is no push service (an older row): it removes it', async () => {
    const subscriptions = new PushSubscriptionRepository(database());
    // Rows stored before endpoints were checked against PUSH_SERVICES (the repository takes what it is given).
    for (const endpoint of [
      'https://127.0.0.1.nip.io:8443/x',
      'https://metadata.google.internal/computeMetadata/v1/',
      'https://192.168.1.1/fcm/send/a',
    ])
      subscriptions.add(browser(endpoint).subscription);
    subscriptions.add(browser('https://fcm.googleapis.com:443/fcm/send/good').subscription);
    const service = await pushService((_path, response) => response.writeHead(201).end());
    const called: string[] = [];
    const deliver = createPushDeliverer({
      subscriptions,
      vapid: webPush.generateVAPIDKeys(),
      send: (subscription, ...rest) => {
        called.push(subscription.endpoint);
        return service.send(subscription, ...rest);
      },
    });
    await deliver(delivery(), signal);
    expect(called).toEqual(['https://fcm.googleapis.com/fcm/send/good']);
    expect(service.received.map((request) => request.path)).toEqual(['/fcm/send/good']);
    expect(subscriptions.list().map((subscription) => subscription.endpoint)).toEqual([
      'https://fcm.googleapis.com:443/fcm/send/good',
    ]);

    // Only bad rows: nobody to deliver to, so it resolves without sending.
    subscriptions.remove('https://fcm.googleapis.com:443/fcm/send/good');
    subscriptions.add(browser('https://169.254.169.254/latest/meta-data/').subscription);
    await deliver(delivery(), signal);
    expect(called).toHaveLength(1);
    expect(subscriptions.count()).toBe(0);
  });

  it('refuses any push target but push:all', async () => {
    const deliver = createPushDeliverer({
      subscriptions: new PushSubscriptionRepository(database()),
      vapid: webPush.generateVAPIDKeys(),
      send: () => Promise.reject(new Error('must not be called')),
    });
    const error = await rejection(deliver(delivery({ target: 'push:phone' }), signal));
    expect(error.permanent).toBe(true);
  });
});
