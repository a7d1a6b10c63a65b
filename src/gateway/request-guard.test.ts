import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MemorySessionStore } from '../agent/memory-session-store.js';
import { MessageBus } from '../bus/message-bus.js';
import { HttpChannel } from '../channels/http/http-channel.js';
import { createGateway } from './create-gateway.js';
import { AuthLimiter, allowedHostnames, hostnameOf } from './request-guard.js';

const TOKEN = 'the-right-token-0123456789abcdef';

function gateway(options: { now?: () => number; hosts?: ReadonlySet<string> } = {}) {
  return createGateway({
    channel: new HttpChannel({ bus: new MessageBus() }),
    sessions: new MemorySessionStore(),
    verifyToken: (token) => token === TOKEN,
    status: () => ({ up: true }),
    version: '1.0.0',
    startedAt: 0,
    instanceSecret: 'instance-secret',
    limiter: new AuthLimiter({
      maxFailures: 10,
      windowMs: 60_000,
      ...(options.now ? { now: options.now } : {}),
    }),
    ...(options.hosts ? { allowedHosts: () => options.hosts! } : {}),
  });
}

const status = (app: ReturnType<typeof gateway>, token: string, headers: Record<string, string> = {}) =>
  app.request('http://127.0.0.1:7777/api/status', {
    headers: { authorization: `Bearer ${token}`, ...headers },
  });

describe('failed token attempts', () => {
  it('are limited per address: 2,000 wrong tokens meet 429 after ten, and guessing stops being checked', async () => {
    let now = 0;
    const app = gateway({ now: () => now });
    const codes: number[] = [];
    for (let attempt = 0; attempt < 2000; attempt++)
      codes.push((await status(app, `wrong-${attempt}`)).status);
    expect(codes.slice(0, 10).every((code) => code === 401)).toBe(true);
    expect(codes.slice(10).every((code) => code === 429)).toBe(true);
    // While limited, even the right token is not checked: a guess cannot be confirmed.
    const limited = await status(app, TOKEN);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await limited.json()) as { error: { message: string } }).error.message).toMatch(
      /try again in \d+ s/,
    );
    now += 60_001;
    expect((await status(app, TOKEN)).status).toBe(200);
  });

  it('a local process flooding wrong tokens cannot lock the owner’s local commands out', async () => {
    const app = createGateway({
      channel: new HttpChannel({ bus: new MessageBus() }),
      sessions: new MemorySessionStore(),
      verifyToken: (token) => token === TOKEN || token === 'wren_local_abc',
      isLocalToken: (token) => token === 'wren_local_abc',
      status: () => ({ up: true }),
      version: '1.0.0',
      startedAt: 0,
    });
    for (let attempt = 0; attempt < 20; attempt++) await status(app, 'wrong');
    expect((await status(app, TOKEN)).status).toBe(429);
    expect((await status(app, 'wren_local_abc')).status).toBe(200);
  });

  it('a success clears the count; a malformed header counts as a failure', async () => {
    const app = gateway();
    for (let attempt = 0; attempt < 9; attempt++) await status(app, 'wrong');
    expect((await status(app, TOKEN)).status).toBe(200);
    for (let attempt = 0; attempt < 9; attempt++) await status(app, 'wrong');
    const bad = await app.request('http://127.0.0.1:7777/api/status', {
      headers: { authorization: 'Basic x' },
    });
    expect(bad.status).toBe(400);
    expect((await status(app, 'wrong')).status).toBe(429);
  });
});

describe('Host and Origin', () => {
  it('refuses a foreign Host or Origin even with a valid token (DNS rebinding, cross-site)', async () => {
    const app = gateway();
    const refused: Array<Record<string, string>> = [
      { host: 'evil.example:7777' },
      { host: 'evil.example' },
      { host: '127.0.0.1.evil.example' },
      { host: '127.0.0.1:7777', origin: 'http://evil.example' },
      { host: '127.0.0.1:7777', origin: 'null' },
      { host: '127.0.0.1:7777', origin: 'file://' },
    ];
    for (const headers of refused) {
      const response = await status(app, TOKEN, headers);
      expect(response.status, JSON.stringify(headers)).toBe(403);
    }
    const rebinding = await app.request('http://evil.example:7777/api/health');
    expect(rebinding.status).toBe(403);
    const accepted: Array<Record<string, string>> = [
      { host: '127.0.0.1:7777' },
      { host: 'localhost:7777', origin: 'http://localhost:7777' },
      { host: '[::1]:7777' },
    ];
    for (const headers of accepted) {
      expect((await status(app, TOKEN, headers)).status, JSON.stringify(headers)).toBe(200);
    }
  });

  it('a non-loopback bind allows its own address and gateway.allowed_hosts, nothing else', () => {
    const names = allowedHostnames('192.168.1.20', ['wren.home.arpa', 'https://Wren.Example:8443']);
    expect([...names].sort()).toEqual([
      '127.0.0.1',
      '192.168.1.20',
      '::1',
      'localhost',
      'wren.example',
      'wren.home.arpa',
    ]);
    expect(allowedHostnames('127.0.0.2', []).has('127.0.0.2')).toBe(true);
    expect(hostnameOf('user@evil.example')).toBeUndefined();
    expect(hostnameOf('[::1]:7777')).toBe('::1');
  });
});

describe('GET /api/health', () => {
  it('proves which gateway answers with an HMAC of the challenge, without the token', async () => {
    const app = gateway();
    const body = (await (await app.request('http://127.0.0.1/api/health?challenge=nonce-1')).json()) as {
      proof: string;
    };
    expect(body.proof).toBe(createHmac('sha256', 'instance-secret').update('nonce-1').digest('hex'));
    const plain = (await (await app.request('http://127.0.0.1/api/health')).json()) as Record<
      string,
      unknown
    >;
    expect(plain).not.toHaveProperty('proof');
  });
});
