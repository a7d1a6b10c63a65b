import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { MessageBus } from '../bus/message-bus.js';
import { HttpChannel } from '../channels/http/http-channel.js';
import { liveSocket } from './live-socket.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

/** A gateway with only `/ws` behind an auth that lets everyone in, so the Origin check is all that decides. */
async function serveLive(): Promise<{ port: number }> {
  const app = new Hono();
  const live = liveSocket(app, (_c, next) => next(), {
    channel: new HttpChannel({ bus: new MessageBus() }),
    nextDue: () => 1234,
  });
  app.route('/', live.routes);
  const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  live.inject(server as never);
  cleanups.push(() => {
    live.closeAll();
    server.close();
  });
  return { port: (server.address() as AddressInfo).port };
}

/** Opens `/ws` with these headers: the first frame if it upgraded, else the status it was refused with. */
function open(
  port: number,
  headers: Record<string, string>,
): Promise<{ frame: unknown } | { status: number }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`ws://127.0.0.1:${port}/ws`, { headers });
    socket.once('message', (data) => {
      socket.close();
      resolve({ frame: JSON.parse(String(data)) });
    });
    socket.once('unexpected-response', (_request, response) => {
      response.resume();
      resolve({ status: response.statusCode ?? 0 });
    });
    socket.once('error', reject);
  });
}

describe('/ws origin check', () => {
  it('upgrades a page of this very origin, and a client that sends no Origin at all', async () => {
    const { port } = await serveLive();
    const ready = { frame: { type: 'ready', data: { nextDue: 1234 } } };
    expect(await open(port, { Origin: `http://127.0.0.1:${port}` })).toEqual(ready);
    expect(await open(port, { Origin: `HTTP://127.0.0.1:${port}`, 'Sec-Fetch-Site': 'same-origin' })).toEqual(
      ready,
    );
    expect(await open(port, {})).toEqual(ready);
  });

  it('refuses another port, another host, a scheme-less or opaque Origin, and a cross-site fetch', async () => {
    const { port } = await serveLive();
    const refused = { status: 403 };
    // A page of another program on this host: same address, another port.
    expect(await open(port, { Origin: `http://127.0.0.1:${port + 1}` })).toEqual(refused);
    expect(await open(port, { Origin: 'http://127.0.0.1' })).toEqual(refused);
    expect(await open(port, { Origin: `http://localhost:${port}` })).toEqual(refused);
    expect(await open(port, { Origin: `http://evil.example:${port}` })).toEqual(refused);
    expect(await open(port, { Origin: `http://127.0.0.1:${port}.evil.example` })).toEqual(refused);
    expect(await open(port, { Origin: 'null' })).toEqual(refused);
    expect(await open(port, { Origin: '127.0.0.1' })).toEqual(refused);
    // Browsers that hide the Origin still say where the request came from.
    expect(await open(port, { 'Sec-Fetch-Site': 'cross-site' })).toEqual(refused);
    expect(await open(port, { Origin: `http://127.0.0.1:${port}`, 'Sec-Fetch-Site': 'same-site' })).toEqual(
      refused,
    );
  });
});
