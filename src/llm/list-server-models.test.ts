import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listServerModels } from './list-server-models.js';

/** A model server on 127.0.0.1 whose answer each test picks by path; it records what it was asked. */
let server: Server;
let base: string;
const asked: Array<{ url: string; authorization?: string }> = [];
/** Open connections of the hanging route, ended in afterAll. */
const hanging: ServerResponse[] = [];

function route(req: IncomingMessage, res: ServerResponse) {
  asked.push({
    url: req.url ?? '',
    ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
  });
  const json = (status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  switch (req.url) {
    case '/openai/v1/models':
      return json(200, {
        object: 'list',
        data: [{ id: 'qwen3:8b' }, { id: 'llama3.2' }, { id: 'qwen3:8b' }],
      });
    case '/ollama/models':
      return json(200, { models: [{ name: 'mistral:7b', model: 'mistral:7b' }] });
    case '/keyed/v1/models':
      return req.headers.authorization === 'Bearer sk-local-123456'
        ? json(200, { data: [{ id: 'private-model' }] })
        : json(401, { error: { message: 'missing key' } });
    case '/hostile/v1/models':
      return json(200, {
        data: [
          { id: 'ok-model' },
          { id: 'two words' },
          { id: 'bell\u0007' },
          { id: 'x'.repeat(300) },
          { id: 7 },
          null,
        ],
      });
    case '/redirect/v1/models':
      res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data' });
      return void res.end();
    case '/huge/v1/models':
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"data":[');
      for (let i = 0; i < 2100; i++) res.write(`${'{"id":"m"},'.repeat(100)}`);
      return void res.end('{"id":"last"}]}');
    case '/html/v1/models':
      res.writeHead(200, { 'content-type': 'text/html' });
      return void res.end('<html>a login page</html>');
    case '/hang/v1/models':
      hanging.push(res);
      return;
    default:
      return json(404, { error: 'not found' });
  }
}

beforeAll(async () => {
  server = createServer(route);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const res of hanging) res.destroy();
  await new Promise((done) => server.close(done));
});

describe('listServerModels', () => {
  it('lists an OpenAI-compatible server’s models once each, in its order (trailing slash or not)', async () => {
    expect(await listServerModels({ baseUrl: `${base}/openai/v1/` })).toEqual({
      ok: true,
      models: ['qwen3:8b', 'llama3.2'],
    });
    expect(await listServerModels({ baseUrl: `${base}/ollama` })).toEqual({
      ok: true,
      models: ['mistral:7b'],
    });
    expect(asked.at(-1)?.authorization).toBeUndefined();
  });

  it('sends the key only when given, and says a key is wanted when the server refuses without one', async () => {
    const without = await listServerModels({ baseUrl: `${base}/keyed/v1` });
    expect(without).toEqual({ ok: false, error: expect.stringMatching(/wants an API key .*HTTP 401/) });
    const keyed = await listServerModels({ baseUrl: `${base}/keyed/v1`, apiKey: 'sk-local-123456' });
    expect(keyed).toEqual({ ok: true, models: ['private-model'] });
    expect(asked.at(-1)?.authorization).toBe('Bearer sk-local-123456');
  });

  it('refuses anything but an http(s) URL without credentials, asking nothing', async () => {
    const before = asked.length;
    for (const baseUrl of [
      'file:///etc/passwd',
      'javascript:alert(1)',
      'ftp://127.0.0.1/v1',
      `${base.replace('http', 'ws')}/openai/v1`,
      base.replace('//', '//owner:secret@'),
      'not a url',
      '',
    ]) {
      const answer = await listServerModels({ baseUrl });
      expect(answer.ok, baseUrl).toBe(false);
      expect(JSON.stringify(answer)).not.toContain('secret');
    }
    expect(asked.length).toBe(before);
  });

  it('follows no redirect, reads no more than a model list, and skips ids that are not ids', async () => {
    const redirected = await listServerModels({ baseUrl: `${base}/redirect/v1` });
    expect(redirected).toEqual({
      ok: false,
      error: expect.stringMatching(/redirects elsewhere \(HTTP 302\)/),
    });
    expect(asked.some((entry) => entry.url.includes('meta-data'))).toBe(false);
    const huge = await listServerModels({ baseUrl: `${base}/huge/v1` });
    expect(huge).toEqual({ ok: false, error: expect.stringMatching(/more than a model list/) });
    expect(await listServerModels({ baseUrl: `${base}/html/v1` })).toEqual({
      ok: false,
      error: expect.stringMatching(/did not answer with a model list/),
    });
    expect(await listServerModels({ baseUrl: `${base}/hostile/v1` })).toEqual({
      ok: true,
      models: ['ok-model'],
    });
    expect(await listServerModels({ baseUrl: `${base}/nothing/v1` })).toEqual({
      ok: false,
      error: expect.stringMatching(/No model list at .*HTTP 404.*\/v1/),
    });
  });

  it('gives up at its deadline, and says so when nothing listens', async () => {
    const slow = await listServerModels({ baseUrl: `${base}/hang/v1`, timeoutMs: 200 });
    expect(slow).toEqual({ ok: false, error: expect.stringMatching(/did not answer within 0\.2 s/) });
    const closed = createServer();
    await new Promise<void>((done) => closed.listen(0, '127.0.0.1', done));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((done) => closed.close(done));
    const refused = await listServerModels({ baseUrl: `http://127.0.0.1:${port}/v1` });
    expect(refused).toEqual({
      ok: false,
      error: expect.stringMatching(/Could not reach 127\.0\.0\.1:\d+.*running/),
    });
  });

  it('ends at once when the caller aborts', async () => {
    const controller = new AbortController();
    const pending = listServerModels({ baseUrl: `${base}/hang/v1`, timeoutMs: 60_000 }, controller.signal);
    controller.abort();
    expect(await pending).toEqual({ ok: false, error: 'Cancelled.' });
  });
});
