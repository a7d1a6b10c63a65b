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

/** A signed-in browser: its cookie (`name=value`), its session key, and both as request headers. */
interface Browser {
  cookie: string;
  key: string;
  headers: Record<string, string>;
}

/** Signs in with the token, as the web app does. */
async function signIn(): Promise<Browser> {
  const response = await fetch(`${wren.url}/api/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: wren.url },
    body: JSON.stringify({ token: TOKEN }),
  });
  expect(response.status).toBe(200);
  const { key } = (await response.json()) as { key: string };
  const setCookie = response.headers.get('set-cookie') ?? '';
  expect(setCookie).toMatch(/HttpOnly/i);
  expect(setCookie).toMatch(/SameSite=Strict/i);
  expect(setCookie).toMatch(/Path=\//);
  expect(setCookie).not.toContain(key);
  const cookie = setCookie.split(';')[0]!;
  return { cookie, key, headers: { cookie, 'x-wren-key': key } };
}

/** Another server on this host (another port): what a page of it could send. */
function siblingOrigin(): string {
  const sibling = new URL(wren.url);
  sibling.port = String(Number(sibling.port) + 1);
  return sibling.origin;
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
function openSocket(
  headers: Record<string, string>,
  protocols: string[] = [],
): Promise<{ socket: WebSocket; first: unknown }> {
  return new Promise((done, fail) => {
    const socket = new WebSocket(`${wren.url.replace('http', 'ws')}/ws`, protocols, { headers });
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

  it('signs a browser in with the token: cookie plus key work, either alone does not, signing out ends it', async () => {
    const browser = await signIn();
    const status = await fetch(`${wren.url}/api/session`, { headers: browser.headers });
    expect(await status.json()).toEqual({ signedIn: true, via: 'cookie' });
    // Cookies are not scoped by port: another server on this host the browser visits receives the cookie.
    // Replayed alone (even with a forged Origin) it opens nothing.
    const replayed = await fetch(`${wren.url}/api/sessions`, {
      headers: { cookie: browser.cookie, origin: wren.url },
    });
    expect(replayed.status).toBe(401);
    const mint = await fetch(`${wren.url}/api/session/link`, {
      method: 'POST',
      headers: { cookie: browser.cookie, origin: wren.url },
    });
    expect(mint.status).toBe(401);
    expect((await fetch(`${wren.url}/api/status`, { headers: { 'x-wren-key': browser.key } })).status).toBe(
      401,
    );
    const out = await fetch(`${wren.url}/api/session`, {
      method: 'DELETE',
      headers: { ...browser.headers, origin: wren.url },
    });
    expect(out.status).toBe(204);
    expect((await fetch(`${wren.url}/api/status`, { headers: browser.headers })).status).toBe(401);
  });

  it('refuses a cross-site form POST carrying the session cookie and key', async () => {
    const browser = await signIn();
    const form = (headers: Record<string, string>) =>
      fetch(`${wren.url}/api/reminders`, {
        method: 'POST',
        headers: { ...browser.headers, 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: 'text=pwned&when=in+1m',
      });
    expect((await form({ origin: 'https://evil.example' })).status).toBe(403);
    expect((await form({ origin: siblingOrigin() })).status).toBe(403);
    expect((await form({ 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await form({ 'sec-fetch-site': 'same-site', origin: wren.url })).status).toBe(403);
    // No Origin at all: a browser always sends one on a POST, so this is refused too.
    expect((await form({})).status).toBe(403);
    const reminders = await fetch(`${wren.url}/api/reminders`, { headers: browser.headers });
    expect(JSON.stringify(await reminders.json())).not.toContain('pwned');
  });

  it('signs in only from this origin, with a small JSON body', async () => {
    const post = (headers: Record<string, string>, body: string) =>
      fetch(`${wren.url}/api/session`, { method: 'POST', headers, body });
    const json = JSON.stringify({ token: TOKEN });
    expect((await post({ 'content-type': 'application/json', origin: siblingOrigin() }, json)).status).toBe(
      403,
    );
    expect(
      (
        await post(
          { 'content-type': 'application/json', origin: wren.url, 'sec-fetch-site': 'cross-site' },
          json,
        )
      ).status,
    ).toBe(403);
    // A text/plain "simple request" a form could send is not a sign-in.
    expect((await post({ 'content-type': 'text/plain', origin: wren.url }, json)).status).toBe(400);
    const huge = JSON.stringify({ token: 'x'.repeat(100_000) });
    expect((await post({ 'content-type': 'application/json', origin: wren.url }, huge)).status).toBe(413);
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

  it('upgrades /ws only for a signed-in browser of this very origin, with its key', async () => {
    const browser = await signIn();
    const key = [`wren`, `wren-key.${browser.key}`];
    await expect(openSocket({ origin: 'https://evil.example', cookie: browser.cookie }, key)).rejects.toThrow(
      'HTTP 403',
    );
    // A page of another program on this host: same site, and the browser sends the cookie — refused.
    await expect(openSocket({ origin: siblingOrigin(), cookie: browser.cookie }, key)).rejects.toThrow(
      'HTTP 403',
    );
    await expect(openSocket({ origin: wren.url }, key)).rejects.toThrow('HTTP 401');
    await expect(openSocket({ origin: wren.url, cookie: browser.cookie })).rejects.toThrow('HTTP 401');
    await expect(openSocket({ origin: wren.url, cookie: 'wren_session=forged' }, key)).rejects.toThrow(
      'HTTP 401',
    );
    const { socket, first } = await openSocket({ origin: wren.url, cookie: browser.cookie }, key);
    expect(socket.protocol).toBe('wren');
    expect(first).toEqual({ type: 'ready', data: { nextDue: null } });
    socket.close();
  });

  it('pushes live events over /ws: a reminder that fires reaches the feed live', async () => {
    const browser = await signIn();
    const { socket } = await openSocket({ origin: wren.url, cookie: browser.cookie }, [
      'wren',
      `wren-key.${browser.key}`,
    ]);
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
    const feed = await fetch(`${wren.url}/api/feed`, { headers: browser.headers });
    expect(JSON.stringify(await feed.json())).toContain('stretch your legs');
    expect(frames.some((frame) => frame.type === 'next-due')).toBe(true);
    socket.close();
  });

  it('signs in once through the link `wren start` printed, and never twice', async () => {
    const link = /web app: (http:\/\/\S+\/signin\?code=\S+)/.exec(wren.stdout())?.[1];
    expect(link).toBeDefined();
    const first = await fetch(link!, { redirect: 'manual' });
    expect(first.status).toBe(303);
    // The key travels in the fragment, which a browser keeps to itself (never in a request or a log).
    const key = /^\/#key=([A-Za-z0-9_-]+)$/.exec(first.headers.get('location') ?? '')?.[1];
    expect(key).toBeDefined();
    const cookie = (first.headers.get('set-cookie') ?? '').split(';')[0]!;
    expect((await fetch(`${wren.url}/api/status`, { headers: { cookie, 'x-wren-key': key! } })).status).toBe(
      200,
    );
    const again = await fetch(link!, { redirect: 'manual' });
    expect(again.status).toBe(410);
    expect(again.headers.get('set-cookie')).toBeNull();
  });

  it('does not let wrong sign-in links lock the owner out (they are unguessable, not counted)', async () => {
    for (let i = 0; i < 15; i++) {
      const bogus = await fetch(`${wren.url}/signin?code=bogus${i}`, { redirect: 'manual' });
      expect(bogus.status).toBe(410);
    }
    expect(
      (await fetch(`${wren.url}/api/status`, { headers: { authorization: `Bearer ${TOKEN}` } })).status,
    ).toBe(200);
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
  it('refuses a wrong token at sign-in and rate-limits the address, concurrent guesses included', async () => {
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
    // Thirty guesses at once: only the rest of the ten a minute are checked.
    const burst = await Promise.all(Array.from({ length: 30 }, (_, i) => attempt(`guess-${i}`)));
    const checked = burst.filter((response) => response.status === 401).length;
    expect(checked).toBe(9);
    expect(burst.filter((response) => response.status === 429)).toHaveLength(21);
    const last = burst.find((response) => response.status === 429)!;
    expect(Number(last.headers.get('retry-after'))).toBeGreaterThan(0);
    // Limited means limited: even the right token is not checked until the window passes.
    expect((await attempt(TOKEN)).status).toBe(429);
  });
});
