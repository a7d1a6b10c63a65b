import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Delivery } from '../store/outbox-repository.js';
import { createWebhookDeliverer, parseRetryAfter, WebhookDeliveryError } from './webhook-deliverer.js';

interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

type Reply = (response: ServerResponse) => void;

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A sink on 127.0.0.1 answering with `replies` in turn (the last one repeats), recording each request. */
async function sink(...replies: Reply[]): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      const reply = replies[Math.min(received.length, replies.length) - 1]!;
      reply(response);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hook/secret-id`, received };
}

const status =
  (code: number, headers: Record<string, string> = {}, body = ''): Reply =>
  (response) => {
    response.writeHead(code, headers);
    response.end(body);
  };
const hang: Reply = () => {};

function delivery(overrides: Partial<Delivery> = {}): Delivery {
  return {
    id: 1,
    outboxId: 7,
    sourceKey: 'reminder:3:2026-03-29T07:00:00.000Z',
    target: 'webhook:home',
    state: 'pending',
    attempts: 0,
    nextAttemptAt: 0,
    kind: 'reminder',
    title: 'Reminder',
    text: 'Water the plants',
    late: true,
    dueAt: Date.parse('2026-03-29T07:00:00.000Z'),
    ...overrides,
  };
}

const signal = new AbortController().signal;

async function failure(promise: Promise<unknown>): Promise<WebhookDeliveryError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(WebhookDeliveryError);
  return error as WebhookDeliveryError;
}

describe('createWebhookDeliverer', () => {
  it('POSTs the JSON body with the idempotency key, the configured headers and a user agent', async () => {
    const { url, received } = await sink(status(204));
    const deliver = createWebhookDeliverer({
      webhooks: () => ({
        home: { url, headers: { Authorization: 'Bearer s3cret-token', 'X-Extra': 'yes' } },
      }),
    });
    await deliver(delivery(), signal);
    expect(received).toHaveLength(1);
    const [request] = received;
    expect(request?.method).toBe('POST');
    expect(request?.url).toBe('/hook/secret-id');
    expect(JSON.parse(request?.body ?? '')).toEqual({
      key: 'reminder:3:2026-03-29T07:00:00.000Z',
      kind: 'reminder',
      title: 'Reminder',
      text: 'Water the plants',
      at: '2026-03-29T07:00:00.000Z',
      late: true,
    });
    expect(request?.headers['idempotency-key']).toBe('reminder:3:2026-03-29T07:00:00.000Z');
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.headers['user-agent']).toBe('Wren');
    expect(request?.headers.authorization).toBe('Bearer s3cret-token');
    expect(request?.headers['x-extra']).toBe('yes');
  });

  it('keeps the idempotency key on retries, and a configured header cannot replace it', async () => {
    const { url, received } = await sink(status(503), status(200));
    const deliver = createWebhookDeliverer({
      webhooks: () => ({ home: { url, headers: { 'Idempotency-Key': 'mine' } } }),
    });
    const error = await failure(deliver(delivery(), signal));
    expect(error.permanent).toBe(false);
    expect(error.status).toBe(503);
    expect(error.message).toMatch(/answered 503.*will retry/);
    await deliver(delivery({ attempts: 1 }), signal);
    expect(received.map((request) => request.headers['idempotency-key'])).toEqual([
      'reminder:3:2026-03-29T07:00:00.000Z',
      'reminder:3:2026-03-29T07:00:00.000Z',
    ]);
    expect(received[0]?.body).toBe(received[1]?.body);
  });

  it('reads Retry-After in seconds and as an HTTP date', async () => {
    const now = Date.parse('2026-03-29T07:00:00.000Z');
    const { url } = await sink(
      status(429, { 'retry-after': '120' }),
      status(503, { 'retry-after': 'Sun, 29 Mar 2026 07:05:00 GMT' }),
      status(408),
    );
    const deliver = createWebhookDeliverer({
      webhooks: () => ({ home: { url, headers: {} } }),
      clock: () => now,
    });
    const limited = await failure(deliver(delivery(), signal));
    expect(limited).toMatchObject({ permanent: false, status: 429, retryAfterMs: 120_000 });
    const dated = await failure(deliver(delivery(), signal));
    expect(dated).toMatchObject({ permanent: false, status: 503, retryAfterMs: 300_000 });
    const timeout = await failure(deliver(delivery(), signal));
    expect(timeout).toMatchObject({ permanent: false, status: 408 });
    expect(timeout.retryAfterMs).toBeUndefined();
  });

  it('marks a 4xx refusal permanent, with the answer but never a header value', async () => {
    const { url } = await sink(status(400, {}, 'bad token Bearer s3cret-token'));
    const deliver = createWebhookDeliverer({
      webhooks: () => ({ home: { url, headers: { Authorization: 'Bearer s3cret-token' } } }),
    });
    const error = await failure(deliver(delivery(), signal));
    expect(error).toMatchObject({ permanent: true, status: 400 });
    expect(error.message).toContain('refused the delivery permanently');
    expect(error.message).toContain('webhook "home" (127.0.0.1:');
    expect(error.message).toContain('bad token [redacted]');
    expect(error.message).not.toContain('s3cret');
    expect(error.message).not.toContain('secret-id');
  });

  it('does not follow a redirect', async () => {
    const { url: elsewhere, received: elsewhereReceived } = await sink(status(200));
    const { url } = await sink(status(307, { location: elsewhere }));
    const deliver = createWebhookDeliverer({ webhooks: () => ({ home: { url, headers: {} } }) });
    const error = await failure(deliver(delivery(), signal));
    expect(error).toMatchObject({ permanent: true, status: 307 });
    expect(error.message).toContain('redirects');
    expect(elsewhereReceived).toHaveLength(0);
  });

  it('times out a webhook that never answers, as a retryable failure', async () => {
    const { url, received } = await sink(hang);
    const deliver = createWebhookDeliverer({
      webhooks: () => ({ home: { url, headers: {} } }),
      timeoutMs: 200,
    });
    const error = await failure(deliver(delivery(), signal));
    expect(error.permanent).toBe(false);
    expect(error.message).toMatch(/did not answer within 1 s; will retry/);
    expect(received).toHaveLength(1);
  });

  it('reports an unreachable webhook as retryable', async () => {
    const { url } = await sink(status(200));
    await new Promise((resolve) => servers.pop()!.close(resolve));
    const deliver = createWebhookDeliverer({ webhooks: () => ({ home: { url, headers: {} } }) });
    const error = await failure(deliver(delivery(), signal));
    expect(error.permanent).toBe(false);
    expect(error.message).toMatch(/could not be reached \(.*ECONNREFUSED.*\); will retry/);
  });

  it('refuses an unknown webhook name permanently, naming the configured ones', async () => {
    const deliver = createWebhookDeliverer({
      webhooks: () => ({
        ntfy: { url: 'http://127.0.0.1:9/', headers: {} },
        n8n: { url: 'http://127.0.0.1:9/', headers: {} },
      }),
      fetch: () => Promise.reject(new Error('must not be called')),
    });
    const error = await failure(deliver(delivery({ target: 'webhook:hass' }), signal));
    expect(error.permanent).toBe(true);
    expect(error.message).toContain('"webhook:hass"');
    expect(error.message).toContain('configured: ntfy, n8n');
    const inherited = await failure(deliver(delivery({ target: 'webhook:toString' }), signal));
    expect(inherited.permanent).toBe(true);
  });

  it('refuses a non-http URL and an invalid header without showing its value', async () => {
    const fetchNever = () => Promise.reject(new Error('must not be called'));
    const ftp = createWebhookDeliverer({
      webhooks: () => ({ home: { url: 'ftp://127.0.0.1/x', headers: {} } }),
      fetch: fetchNever,
    });
    expect(await failure(ftp(delivery(), signal))).toMatchObject({ permanent: true });
    const badHeader = createWebhookDeliverer({
      webhooks: () => ({
        home: { url: 'http://127.0.0.1:9/', headers: { 'X-Token': 'line\nbreak-secret' } },
      }),
      fetch: fetchNever,
    });
    const error = await failure(badHeader(delivery(), signal));
    expect(error.permanent).toBe(true);
    expect(error.message).toContain('"X-Token"');
    expect(error.message).not.toContain('break-secret');
  });
});

describe('parseRetryAfter', () => {
  it('reads seconds, dates, and caps at a day', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter(null, now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(' 5 ', now)).toBe(5000);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 00:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('999999999', now)).toBe(24 * 60 * 60_000);
  });
});
