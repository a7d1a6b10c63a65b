import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AddressGuard, type Resolve } from './address-guard.js';
import { AllowList } from './allow-list.js';
import { type SafeFetchOptions, safeFetch } from './safe-fetch.js';
import { FetchError } from './target-url.js';

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/** A server on 127.0.0.1 that counts requests per path. */
async function listen(handler: Handler): Promise<{ server: Server; port: number; hits: string[] }> {
  const hits: string[] = [];
  const server = createServer((request, response) => {
    hits.push(request.url ?? '');
    handler(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, hits };
}

let a: Awaited<ReturnType<typeof listen>>;
let b: Awaited<ReturnType<typeof listen>>;
let endlessWritten = 0;

function pumpForever(response: ServerResponse, onWrite: (bytes: number) => void): void {
  const chunk = Buffer.alloc(64 * 1024, 'x');
  let open = true;
  response.on('close', () => {
    open = false;
  });
  const pump = () => {
    while (open) {
      onWrite(chunk.length);
      if (!response.write(chunk)) {
        response.once('drain', pump);
        return;
      }
    }
  };
  pump();
}

beforeAll(async () => {
  a = await listen((request, response) => {
    const url = new URL(request.url ?? '/', 'http://x');
    if (url.pathname === '/ok') {
      response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end('hello');
    } else if (url.pathname === '/redirect') {
      response.writeHead(302, { location: url.searchParams.get('to') ?? '/ok' }).end();
    } else if (url.pathname === '/loop') {
      const n = Number(url.searchParams.get('n') ?? 0);
      response.writeHead(301, { location: `/loop?n=${n + 1}` }).end();
    } else if (url.pathname === '/endless') {
      response.writeHead(200, { 'content-type': 'text/plain' });
      pumpForever(response, (bytes) => {
        endlessWritten += bytes;
      });
    } else if (url.pathname === '/hang-body') {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.write('a little, then nothing');
    } else if (url.pathname === '/hang-headers') {
      // never answers
    } else if (url.pathname === '/echo-method') {
      response.writeHead(200).end(request.method);
    } else if (url.pathname === '/post-redirect') {
      response.writeHead(303, { location: '/echo-method' }).end();
    } else response.writeHead(404).end('no');
  });
  b = await listen((_request, response) => response.writeHead(200).end('server b'));
});

afterAll(() => {
  a.server.closeAllConnections();
  a.server.close();
  b.server.close();
});

const table: Record<string, string[]> = {
  localhost: ['127.0.0.1', '::1'],
  'intranet.test': ['127.0.0.1'],
  'metadata.test': ['169.254.169.254'],
  'mixed.test': ['93.184.216.34', '127.0.0.1'],
  'six.test': ['::ffff:127.0.0.1'],
};
const resolve: Resolve = async (host) => {
  const answers = table[host];
  if (!answers) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return answers.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

function options(allow: string[] = [], extra: Partial<SafeFetchOptions> = {}): SafeFetchOptions {
  return {
    maxBytes: 5 * 1024 * 1024,
    timeoutMs: 10_000,
    connectTimeoutMs: 5_000,
    maxRedirects: 5,
    guard: new AddressGuard(AllowList.parse(allow)),
    resolve,
    ...extra,
  };
}

async function refusal(url: string, opts: SafeFetchOptions): Promise<string> {
  const error = await safeFetch(url, opts).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error, url).toBeInstanceOf(FetchError);
  return (error as Error).message;
}

describe('safeFetch SSRF guard', () => {
  it('fetches from an allow-listed host:port and by allow-listed name', async () => {
    const direct = await safeFetch(`http://127.0.0.1:${a.port}/ok`, options([`127.0.0.1:${a.port}`]));
    expect(direct.body.toString()).toBe('hello');
    expect(direct.contentType).toBe('text/plain');
    expect(direct.charset).toBe('utf-8');
    const named = await safeFetch(`http://intranet.test:${a.port}/ok`, options(['intranet.test']));
    expect(named.status).toBe(200);
    const local = await safeFetch(`http://localhost:${a.port}/ok`, options([`localhost:${a.port}`]));
    expect(local.body.toString()).toBe('hello');
  });

  const refused: Array<[string, RegExp]> = [
    ['http://127.0.0.1:PORT/ok', /127\.0\.0\.1 is a loopback address/],
    ['http://localhost:PORT/ok', /localhost \(127\.0\.0\.1\) is a loopback/],
    ['http://2130706433:PORT/ok', /loopback.*writes 127\.0\.0\.1 as "2130706433"/],
    ['http://0x7f.1:PORT/ok', /loopback.*"0x7f\.1"/],
    ['http://0177.0.0.1:PORT/ok', /loopback.*"0177\.0\.0\.1"/],
    ['http://0x7f000001:PORT/ok', /loopback/],
    ['http://127.1:PORT/ok', /loopback/],
    ['http://017700000001:PORT/ok', /loopback/],
    ['http://0:PORT/ok', /0\.0\.0\.0 is an unspecified/],
    ['http://[::1]:PORT/ok', /::1 is a loopback/],
    ['http://[::ffff:127.0.0.1]:PORT/ok', /IPv4-mapped loopback/],
    ['http://[0:0:0:0:0:ffff:7f00:1]:PORT/ok', /IPv4-mapped loopback/],
    ['http://six.test:PORT/ok', /IPv4-mapped loopback/],
    ['http://metadata.test/latest/meta-data/', /169\.254\.169\.254.*link-local/],
    ['http://mixed.test:PORT/ok', /127\.0\.0\.1.*loopback/],
    ['http://nowhere.test/', /could not be resolved/],
    ['file:///etc/passwd', /file: URLs are not fetched/],
    ['ftp://127.0.0.1/', /ftp: URLs are not fetched/],
    ['gopher://127.0.0.1:70/_stats', /gopher: URLs are not fetched/],
    ['data:text/plain,hello', /data: URLs are not fetched/],
    ['javascript:alert(1)', /javascript: URLs are not fetched/],
    ['http://user:secret@127.0.0.1:PORT/ok', /user name or password/],
    ['not a url', /not a valid absolute URL/],
    ['/relative/path', /not a valid absolute URL/],
  ];
  for (const [template, pattern] of refused) {
    it(`refuses ${template}`, async () => {
      const before = a.hits.length;
      const message = await refusal(template.replace('PORT', String(a.port)), options());
      expect(message).toMatch(pattern);
      expect(a.hits.length).toBe(before);
    });
  }

  it('refuses a redirect from an allowed host to another loopback address', async () => {
    const to = `http://127.0.0.2:${a.port}/ok`;
    const message = await refusal(
      `http://127.0.0.1:${a.port}/redirect?to=${encodeURIComponent(to)}`,
      options([`127.0.0.1:${a.port}`]),
    );
    expect(message).toMatch(/127\.0\.0\.2 is a loopback address.*redirected there/);
  });

  it('refuses a redirect to a loopback port that is not allow-listed, before connecting', async () => {
    const to = `http://127.0.0.1:${b.port}/`;
    const message = await refusal(
      `http://127.0.0.1:${a.port}/redirect?to=${encodeURIComponent(to)}`,
      options([`127.0.0.1:${a.port}`]),
    );
    expect(message).toMatch(/loopback/);
    expect(b.hits).toEqual([]);
  });

  it('refuses redirects to other schemes and stops after the redirect limit', async () => {
    const allow = [`127.0.0.1:${a.port}`];
    const toFile = await refusal(
      `http://127.0.0.1:${a.port}/redirect?to=${encodeURIComponent('file:///etc/passwd')}`,
      options(allow),
    );
    expect(toFile).toMatch(/redirected to a URL that is not fetched: file:/);
    const loop = await refusal(`http://127.0.0.1:${a.port}/loop`, options(allow));
    expect(loop).toMatch(/Stopped after 5 redirects/);
    const followed = await safeFetch(`http://127.0.0.1:${a.port}/redirect?to=/ok`, options(allow));
    expect(followed.body.toString()).toBe('hello');
    expect(followed.redirects).toHaveLength(1);
    const none = await refusal(`http://127.0.0.1:${a.port}/redirect`, options(allow, { maxRedirects: 0 }));
    expect(none).toMatch(/not followed/);
  });

  it('refuses a DNS answer that flips from public (at the check) to private (at connect)', async () => {
    let calls = 0;
    const flipping: Resolve = async () => {
      calls++;
      return [{ address: calls === 1 ? '93.184.216.34' : '127.0.0.1', family: 4 }];
    };
    const before = a.hits.length;
    const message = await refusal(`http://rebind.test:${a.port}/ok`, options([], { resolve: flipping }));
    expect(message).toMatch(/rebind\.test \(127\.0\.0\.1\) is a loopback address/);
    expect(calls).toBe(2);
    expect(a.hits.length).toBe(before);
  });

  it('turns a POST into a GET on 303', async () => {
    const response = await safeFetch(
      `http://127.0.0.1:${a.port}/post-redirect`,
      options([`127.0.0.1:${a.port}`], { method: 'POST', body: 'x' }),
    );
    expect(response.body.toString()).toBe('GET');
  });
});

describe('safeFetch limits', () => {
  it('cuts an endless response at the byte cap and stops reading', async () => {
    const heapBefore = process.memoryUsage().rss;
    const response = await safeFetch(`http://127.0.0.1:${a.port}/endless`, options([`127.0.0.1:${a.port}`]));
    expect(response.truncated).toBe(true);
    expect(response.body.length).toBe(5 * 1024 * 1024);
    const deadline = Date.now() + 5_000;
    let settled = endlessWritten;
    while (Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      if (endlessWritten === settled) break;
      settled = endlessWritten;
    }
    // The server stops once the client hangs up: what it wrote is the cap plus socket buffers.
    expect(endlessWritten).toBeLessThan(5 * 1024 * 1024 + 48 * 1024 * 1024);
    expect(process.memoryUsage().rss - heapBefore).toBeLessThan(200 * 1024 * 1024);
  });

  it('times out a response that never ends and one that never starts', async () => {
    const allow = [`127.0.0.1:${a.port}`];
    for (const path of ['/hang-body', '/hang-headers']) {
      const message = await refusal(`http://127.0.0.1:${a.port}${path}`, options(allow, { timeoutMs: 300 }));
      expect(message).toMatch(/did not answer completely within 0\.3 s/);
    }
  });

  it('times out a DNS lookup that never answers', async () => {
    const silent: Resolve = () => new Promise(() => {});
    const message = await refusal('http://slow-dns.test/', options([], { resolve: silent, timeoutMs: 200 }));
    expect(message).toMatch(/did not answer completely within 0\.2 s/);
  });

  it('reports a refused connection and propagates the caller abort as an abort', async () => {
    const closed = await listen(() => {});
    const port = closed.port;
    await new Promise<void>((resolve) => closed.server.close(() => resolve()));
    const message = await refusal(`http://127.0.0.1:${port}/`, options([`127.0.0.1:${port}`]));
    expect(message).toMatch(/refused the connection/);
    const controller = new AbortController();
    const pending = safeFetch(
      `http://127.0.0.1:${a.port}/hang-headers`,
      options([`127.0.0.1:${a.port}`]),
      controller.signal,
    );
    controller.abort(new Error('stop'));
    await expect(pending).rejects.toThrow('stop');
  });

  it('skips the body when the caller does not want it', async () => {
    const response = await safeFetch(
      `http://127.0.0.1:${a.port}/endless`,
      options([`127.0.0.1:${a.port}`], { wantBody: () => false }),
    );
    expect(response.body.length).toBe(0);
    expect(response.truncated).toBe(false);
  });
});
