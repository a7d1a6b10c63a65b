import { request as httpRequest } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type FakeLlmServer, startFakeLlmServer } from '../fakes/fake-llm-server.js';
import { cliEnv, makeHome, type RunningWren, runCli, startWren } from '../support/wren-home.js';

const TOKEN = 'web-security-token-0123456789';
let llm: FakeLlmServer;
let wren: RunningWren;
let home: string;

beforeAll(async () => {
  llm = await startFakeLlmServer();
  home = makeHome(
    `models:\n  - name: fake\n    protocol: openai\n    base_url: \${FAKE_BASE}\n    model: fake-model\n`,
  );
  wren = await startWren(cliEnv(home, { FAKE_BASE: llm.baseUrls.openai, WREN_GATEWAY_TOKEN: TOKEN }));
});
afterAll(async () => {
  await wren?.stop();
  await llm?.close();
});
afterEach(() => llm.reset());

/** Signs in with the token and returns the session cookie (`name=value`). */
async function signIn(): Promise<string> {
  const response = await fetch(`${wren.url}/api/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: wren.url },
    body: JSON.stringify({ token: TOKEN }),
  });
  expect(response.status).toBe(204);
  const cookie = response.headers.get('set-cookie') ?? '';
  expect(cookie).toMatch(/HttpOnly/i);
  expect(cookie).toMatch(/SameSite=Strict/i);
  expect(cookie).toMatch(/Path=\//);
  return cookie.split(';')[0]!;
}

/** A raw HTTP/1.1 request, so that `Host` can be anything (fetch always sends the URL's). */
function raw(path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const url = new URL(wren.url);
  return new Promise((done, fail) => {
    const req = httpRequest(
      { host: url.hostname, port: url.port, path, method: 'GET', headers, setHost: false },
      (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => {
          body += chunk.toString();
        });
        res.on('end', () => done({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', fail);
    req.end();
  });
}

/** Opens /ws and resolves with the first frame, or rejects with the refusal's HTTP status. */
function openSocket(headers: Record<string, string>): Promise<{ socket: WebSocket; first: unknown }> {
  return new Promise((done, fail) => {
    const socket = new WebSocket(`${wren.url.replace('http', 'ws')}/ws`, { headers });
    socket.once('message', (data) => done({ socket, first: JSON.parse(String(data)) }));
    socket.once('unexpected-response', (_req, res) => fail(new Error(`HTTP ${res.statusCode}`)));
    socket.once('error', fail);
  });
}

describe('web gateway security', () => {
  it('refuses the API without a token or a session cookie (401), and a bogus cookie too', async () => {
    expect((await fetch(`${wren.url}/api/status`)).status).toBe(401);
    const bogus = await fetch(`${wren.url}/api/status`, { headers: { cookie: 'wren_session=forged' } });
    expect(bogus.status).toBe(401);
  });

  it('signs a browser in with the token: the cookie then works, and signing out ends it', async () => {
    const cookie = await signIn();
    const status = await fetch(`${wren.url}/api/session`, { headers: { cookie } });
    expect(await status.json()).toEqual({ signedIn: true, via: 'cookie' });
    const out = await fetch(`${wren.url}/api/session`, {
      method: 'DELETE',
      headers: { cookie, origin: wren.url },
    });
    expect(out.status).toBe(204);
    expect((await fetch(`${wren.url}/api/status`, { headers: { cookie } })).status).toBe(401);
  });

  it('refuses a cross-site form POST carrying the session cookie', async () => {
    const cookie = await signIn();
    const form = (headers: Record<string, string>) =>
      fetch(`${wren.url}/api/reminders`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: 'text=pwned&when=in+1m',
      });
    expect((await form({ origin: 'https://evil.example' })).status).toBe(403);
    // Same host, another port (another program on this machine): same-site, but not this app.
    const sibling = new URL(wren.url);
    sibling.port = String(Number(sibling.port) + 1);
    expect((await form({ origin: sibling.origin })).status).toBe(403);
    expect((await form({ 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    // No Origin at all: a browser always sends one on a POST, so this is refused too.
    expect((await form({})).status).toBe(403);
    const reminders = await fetch(`${wren.url}/api/reminders`, { headers: { cookie } });
    expect(JSON.stringify(await reminders.json())).not.toContain('pwned');
  });

  it('refuses a DNS-rebinding Host and a foreign Origin even with a good token', async () => {
    const rebinding = await raw('/api/status', {
      host: 'evil.example',
      authorization: `Bearer ${TOKEN}`,
    });
    expect(rebinding.status).toBe(403);
    const page = await raw('/', { host: `evil.example:${new URL(wren.url).port}` });
    expect(page.status).toBe(403);
    const foreign = await fetch(`${wren.url}/api/status`, {
      headers: { authorization: `Bearer ${TOKEN}`, origin: 'http://evil.example' },
    });
    expect(foreign.status).toBe(403);
  });

  it('upgrades /ws only for a signed-in browser from an allowed origin', async () => {
    const cookie = await signIn();
    await expect(openSocket({ origin: 'https://evil.example', cookie })).rejects.toThrow('HTTP 403');
    await expect(openSocket({ origin: wren.url })).rejects.toThrow('HTTP 401');
    await expect(openSocket({ origin: wren.url, cookie: 'wren_session=forged' })).rejects.toThrow('HTTP 401');
    const { socket, first } = await openSocket({ origin: wren.url, cookie });
    expect(first).toEqual({ type: 'ready', data: { nextDue: null } });
    socket.close();
  });

  it('pushes live events over /ws: a reminder that fires reaches the feed live', async () => {
    const cookie = await signIn();
    const { socket } = await openSocket({ origin: wren.url, cookie });
    const frames: Array<{ type: string; data: Record<string, unknown> }> = [];
    socket.on('message', (data) => frames.push(JSON.parse(String(data))));
    const added = await fetch(`${wren.url}/api/reminders`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'stretch your legs', when: 'in 2 seconds' }),
    });
    expect(added.status).toBe(201);
    const deadline = Date.now() + 15_000;
    const fed = () => frames.find((frame) => frame.type === 'feed');
    while (!fed() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(fed()?.data['title']).toBe('Reminder');
    const feed = await fetch(`${wren.url}/api/feed`, { headers: { cookie } });
    expect(JSON.stringify(await feed.json())).toContain('stretch your legs');
    expect(frames.some((frame) => frame.type === 'next-due')).toBe(true);
    socket.close();
  });

  it('signs in once through the link `wren start` printed, and never twice', async () => {
    const link = /web app: (http:\/\/\S+\/signin\?code=\S+)/.exec(wren.stdout())?.[1];
    expect(link).toBeDefined();
    const first = await fetch(link!, { redirect: 'manual' });
    expect(first.status).toBe(303);
    expect(first.headers.get('location')).toBe('/');
    const cookie = (first.headers.get('set-cookie') ?? '').split(';')[0]!;
    expect((await fetch(`${wren.url}/api/status`, { headers: { cookie } })).status).toBe(200);
    const again = await fetch(link!, { redirect: 'manual' });
    expect(again.status).toBe(410);
    expect(again.headers.get('set-cookie')).toBeNull();
  });

  it('`wren web open --print` makes a fresh one-time link; without a gateway it says so', async () => {
    const result = await runCli(['web', 'open', '--print'], cliEnv(home));
    expect(result.code).toBe(0);
    const link = result.stdout.trim();
    expect(link).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/signin\?code=[A-Za-z0-9_-]+$/);
    const first = await fetch(link, { redirect: 'manual' });
    expect(first.status).toBe(303);
    expect((await fetch(link, { redirect: 'manual' })).status).toBe(410);
    const elsewhere = await runCli(['web', 'open', '--print'], cliEnv(makeHome('')));
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stderr).toContain('no gateway runs for this home');
  });

  it('serves the app with the right types and caching, and no page for a missing asset', async () => {
    const page = await fetch(`${wren.url}/`, { headers: { 'accept-encoding': 'gzip' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('cache-control')).toBe('no-cache');
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const html = await page.text();
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(`${wren.url}${script}`, { headers: { 'accept-encoding': 'gzip' } });
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(asset.headers.get('cache-control')).toContain('immutable');
    expect(asset.headers.get('content-encoding')).toBe('gzip');
    const etag = asset.headers.get('etag')!;
    const cached = await fetch(`${wren.url}${script}`, { headers: { 'if-none-match': etag } });
    expect(cached.status).toBe(304);
    const deepLink = await fetch(`${wren.url}/chat/some-session`);
    expect(deepLink.headers.get('content-type')).toMatch(/^text\/html/);
    expect((await fetch(`${wren.url}/assets/missing-123.js`)).status).toBe(404);
    expect((await fetch(`${wren.url}/..%2f..%2fconfig.yaml`)).status).toBe(404);
    const manifest = await fetch(`${wren.url}/manifest.webmanifest`);
    expect(manifest.headers.get('content-type')).toBe('application/manifest+json');
  });
  // Last: it leaves this address rate-limited.
  it('refuses a wrong token at sign-in and rate-limits the address', async () => {
    const attempt = (token: string) =>
      fetch(`${wren.url}/api/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: wren.url },
        body: JSON.stringify({ token }),
      });
    const wrong = await attempt('not-the-token');
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('set-cookie')).toBeNull();
    expect(await wrong.text()).not.toContain(TOKEN);
    let last = wrong;
    for (let i = 0; i < 12 && last.status !== 429; i++) last = await attempt(`guess-${i}`);
    expect(last.status).toBe(429);
    expect(Number(last.headers.get('retry-after'))).toBeGreaterThan(0);
    // Limited means limited: even the right token is not checked until the window passes.
    expect((await attempt(TOKEN)).status).toBe(429);
  });
});
