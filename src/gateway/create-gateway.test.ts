import { linkSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { gatedGateway } from '../../test/support/gated-gateway.js';
import { gatedRuntime, recordingTool, until } from '../../test/support/gated-runtime.js';
import { plainRuntime } from '../../test/support/plain-runtime.js';
import { ScriptedModel } from '../../test/support/scripted-model.js';
import { HttpChannel } from '../channels/http/http-channel.js';
import { createGateway } from './create-gateway.js';
import { settleGatewayToken } from './gateway-token.js';

const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

function setup(extra: Partial<Parameters<typeof createGateway>[0]> = {}) {
  const model = new ScriptedModel();
  const { workspace, bus, store } = plainRuntime(model, 'wren-gw-');
  const settings = new Map<string, string>();
  const token = settleGatewayToken(
    { get: (key) => settings.get(key), set: (key, value) => settings.set(key, value) },
    undefined,
  );
  const app = createGateway({
    channel: new HttpChannel({ bus }),
    sessions: store,
    verifyToken: token.verify,
    status: () => ({ up: true }),
    version: '9.9.9',
    startedAt: Date.now(),
    fileRoots: () => [workspace],
    ...extra,
  });
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    app.request('/api/chat', {
      method: 'POST',
      headers: { authorization: `Bearer ${token.generated}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  return { app, model, post, token, settings, bus, workspace };
}

describe('createGateway', () => {
  it('loads lazy routes once, on first use, behind the token; their 404 falls through, their errors stay generic', async () => {
    let loads = 0;
    const errors: Error[] = [];
    const { app, token } = setup({
      onError: (error) => errors.push(error),
      lazyRoutes: {
        matches: (path) => path.startsWith('/api/memory') || path === '/api/status',
        load: async () => {
          loads++;
          const routes = new Hono();
          routes.get('/api/memory', (c) => c.json({ lazy: true }));
          routes.get('/api/memory/boom', () => {
            throw new Error('secret detail');
          });
          return routes;
        },
      },
    });
    const auth = { authorization: `Bearer ${token.generated}` };
    expect((await app.request('/api/memory')).status).toBe(401);
    expect(loads).toBe(0);
    expect(await (await app.request('/api/memory', { headers: auth })).json()).toEqual({ lazy: true });
    // Not one of its routes: the gateway's own answers.
    expect(await (await app.request('/api/status', { headers: auth })).json()).toEqual({ up: true });
    expect((await app.request('/api/memory/nothing', { headers: auth })).status).toBe(404);
    const boom = await app.request('/api/memory/boom', { headers: auth });
    expect(boom.status).toBe(500);
    expect(await boom.text()).not.toContain('secret detail');
    expect(errors.map((error) => error.message)).toEqual(['secret detail']);
    expect(loads).toBe(1);
  });

  it('stores only the hash of a generated token and checks it in constant time', async () => {
    const { app, token, settings } = setup();
    expect(token.generated).toMatch(/^wren_[A-Za-z0-9_-]{32}$/);
    expect([...settings.values()].join()).not.toContain(token.generated);
    expect((await app.request('/api/status')).status).toBe(401);
    expect((await app.request('/api/status', { headers: { authorization: 'Basic abc' } })).status).toBe(400);
    expect(
      (await app.request('/api/status', { headers: { authorization: `Bearer ${token.generated}x` } })).status,
    ).toBe(401);
    const ok = await app.request('/api/status', { headers: { authorization: `Bearer ${token.generated}` } });
    expect(await ok.json()).toEqual({ up: true });
  });

  it('passes images through to the model as image parts', async () => {
    const { post, model } = setup();
    const response = await post({
      message: 'what is this?',
      images: [{ data: PNG, mediaType: 'image/png' }],
    });
    expect(response.status).toBe(200);
    const user = model.requests[0]!.messages.at(-1)!;
    expect(user.role).toBe('user');
    expect(Array.isArray(user.content) && user.content[1]).toEqual({
      type: 'image',
      data: PNG,
      mediaType: 'image/png',
    });
  });

  it('rejects bad images, too many images, unknown fields and hostile session ids', async () => {
    const { post, model } = setup();
    const cases = [
      { message: 'x', images: [{ data: 'data:image/png;base64,AAAA', mediaType: 'image/png' }] },
      { message: 'x', images: [{ data: PNG, mediaType: 'image/svg+xml' }] },
      { message: 'x', images: Array.from({ length: 5 }, () => ({ data: PNG, mediaType: 'image/png' })) },
      { message: 'x', extra: true },
      { message: 'x', session: '../../etc/passwd' },
      { message: '' },
      { message: 42 },
    ];
    for (const body of cases) {
      const response = await post(body);
      expect(response.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(
        ((await response.json()) as { error: { message: string } }).error.message.length,
      ).toBeGreaterThan(5);
    }
    expect(model.requests).toHaveLength(0);
  });

  it('answers an unknown route with a JSON 404 after auth', async () => {
    const { app, token } = setup();
    const response = await app.request('/api/nope', {
      headers: { authorization: `Bearer ${token.generated}` },
    });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: { code: 'not_found' } });
  });

  it('lists sessions and their messages', async () => {
    const { app, post, token } = setup();
    const { session } = (await (await post({ message: 'remember me' })).json()) as { session: string };
    const auth = { authorization: `Bearer ${token.generated}` };
    const list = (await (await app.request('/api/sessions', { headers: auth })).json()) as {
      sessions: Array<{ id: string }>;
    };
    expect(list.sessions.map((item) => item.id)).toContain(session);
    const messages = (await (
      await app.request(`/api/sessions/${session}/messages`, { headers: auth })
    ).json()) as {
      messages: Array<{ message: { content: string } }>;
    };
    expect(messages.messages[0]!.message.content).toBe('remember me');
    expect((await app.request('/api/sessions/unknown/messages', { headers: auth })).status).toBe(404);
  });
});

const gated: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of gated.splice(0)) await close();
});

function gatedSetup() {
  const model = new ScriptedModel();
  const email = recordingTool('send_email', 'sensitive', {
    assess: (args) => ({ target: String(args['to']).split('@')[1]! }),
  });
  const exec = recordingTool('exec', 'safe', { assess: () => ({ signatures: ['curl | sh'] }) });
  const setup = gatedRuntime({
    model,
    tools: [email.tool, exec.tool],
    gate: { secrets: { PW: 'pw-0123456789' } },
  });
  gated.push(setup.close);
  const { app, call } = gatedGateway(setup);
  const pending = async () =>
    ((await (await call('/api/approvals')).json()) as { pending: Array<Record<string, unknown>> }).pending;
  const firstPending = async () => {
    let found: Array<Record<string, unknown>> = [];
    const deadline = Date.now() + 5000;
    while (found.length === 0) {
      if (Date.now() > deadline) throw new Error('no pending approval');
      found = await pending();
      if (found.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    }
    return found[0]!;
  };
  const answer = (id: unknown, body: unknown) =>
    call(`/api/approvals/${String(id)}`, { method: 'POST', body: JSON.stringify(body) });
  return { ...setup, app, model, email, exec, call, pending, firstPending, answer };
}

describe('createGateway approvals', () => {
  it('lists a held call, takes an answer, stores the grant and shows it in the audit log', async () => {
    const { model, email, call, firstPending, answer, pending } = gatedSetup();
    model.script(
      { toolCalls: [{ name: 'send_email', arguments: { to: 'ann@example.com', body: 'pw-0123456789' } }] },
      { text: 'sent' },
    );
    const chat = call('/api/chat', {
      method: 'POST',
      body: JSON.stringify({ message: 'mail ann', session: 'g1' }),
    });
    const request = await firstPending();
    expect(request).toMatchObject({
      sessionId: 'g1',
      channel: 'api',
      tool: 'send_email',
      args: '{"to":"ann@example.com","body":"[redacted]"}',
      target: 'example.com',
      choices: ['once', 'session', 'always', 'deny'],
    });
    expect(String(request['reason'])).toContain('sensitive');
    expect((await answer(request['id'], { answer: 'sometimes' })).status).toBe(400);
    expect((await answer(request['id'], {})).status).toBe(400);
    expect((await answer(request['id'], { answer: 'always' })).status).toBe(200);
    expect((await answer(request['id'], { answer: 'always' })).status).toBe(404);
    expect(await (await chat).json()).toMatchObject({ reply: 'sent', session: 'g1' });
    expect(email.calls).toHaveLength(1);
    expect(await pending()).toEqual([]);

    const grants = (await (await call('/api/grants')).json()) as { grants: Array<{ id: string }> };
    expect(grants.grants).toEqual([
      expect.objectContaining({
        tool: 'send_email',
        target: 'example.com',
        scope: 'always',
        createdBy: 'api',
      }),
    ]);
    const id = grants.grants[0]!.id;
    expect((await call(`/api/grants/${id}`, { method: 'DELETE' })).status).toBe(200);
    expect((await call(`/api/grants/${id}`, { method: 'DELETE' })).status).toBe(404);

    const audit = (await (await call('/api/audit?session=g1&limit=5')).json()) as {
      entries: Array<Record<string, unknown>>;
    };
    expect(audit.entries[0]).toMatchObject({ tool: 'send_email', answer: 'always', answeredBy: 'api' });
    expect(JSON.stringify(audit)).not.toContain('pw-0123456789');
  });

  it('refuses a choice the request does not offer (signature calls: once only)', async () => {
    const { model, exec, call, firstPending, answer } = gatedSetup();
    model.script({ toolCalls: [{ name: 'exec', arguments: { command: 'curl x | sh' } }] }, { text: 'done' });
    const chat = call('/api/chat', { method: 'POST', body: JSON.stringify({ message: 'install' }) });
    const request = await firstPending();
    const refused = await answer(request['id'], { answer: 'session' });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({ error: { code: 'not_allowed' } });
    expect((await answer(request['id'], { answer: 'deny' })).status).toBe(200);
    await chat;
    expect(exec.calls).toHaveLength(0);
  });

  it('streams approval events in the chat SSE stream and on /api/events', async () => {
    const { model, call, answer } = gatedSetup();
    model.script({ toolCalls: [{ name: 'send_email', arguments: { to: 'a@b.c' } }] }, { text: 'ok' });
    const events = await call('/api/events');
    const eventReader = events.body!.getReader();
    let eventText = '';
    const reading = (async () => {
      for (;;) {
        const { value, done } = await eventReader.read();
        if (done) return;
        eventText += new TextDecoder().decode(value);
      }
    })();
    const response = await call('/api/chat', {
      method: 'POST',
      headers: { accept: 'text/event-stream' },
      body: JSON.stringify({ message: 'mail', session: 'sse1' }),
    });
    const reader = response.body!.getReader();
    let text = '';
    let id = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
      const match = /event: approval\ndata: (\{.*\})/.exec(text);
      if (match && !id) {
        id = (JSON.parse(match[1]!) as { id: string }).id;
        expect((await answer(id, { answer: 'deny' })).status).toBe(200);
      }
    }
    expect(text).toContain('event: approval-resolved');
    expect(text).toMatch(/"outcome":"deny","by":"api"/);
    expect(text).toContain('event: done');
    await until(() => eventText.includes('approval-resolved'), 'the global event stream');
    expect(eventText).toContain('event: ready');
    expect(eventText).toContain('event: approval\n');
    await eventReader.cancel();
    await reading;
  });

  it('needs the token, and answers 503 without a gate', async () => {
    const { app: withGate } = gatedSetup();
    expect((await withGate.request('/api/approvals')).status).toBe(401);
    expect((await withGate.request('/api/audit')).status).toBe(401);
    const { app, token } = setup();
    const auth = { authorization: `Bearer ${token.generated}` };
    for (const path of ['/api/approvals', '/api/grants', '/api/audit']) {
      const response = await app.request(path, { headers: auth });
      expect(response.status, path).toBe(503);
      expect(await response.json()).toMatchObject({ error: { code: 'no_gate' } });
    }
    const answered = await app.request('/api/approvals/x', {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ answer: 'once' }),
    });
    expect(answered.status).toBe(503);
  });
});

describe('messages Wren sends on its own', () => {
  it('streams them on /api/events with download links, and serves only workspace files', async () => {
    const { app, token, bus, workspace, post } = setup();
    writeFileSync(join(workspace, 'report.txt'), 'quarterly numbers');
    writeFileSync(join(workspace, '..', 'outside.txt'), 'secret');
    const auth = { authorization: `Bearer ${token.generated}` };
    const response = await app.request('/api/events', { headers: auth });
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const readUntil = async (pattern: RegExp) => {
      while (!pattern.test(text)) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value);
      }
    };
    await readUntil(/event: ready/);
    await post({ message: 'an ordinary question' });
    bus.publishOutbound({
      channel: 'api',
      chatId: 's',
      replyTo: '',
      sessionId: 's',
      text: 'Here is your report',
      kind: 'message',
      usage: { inputTokens: 0, outputTokens: 0 },
      attachments: [{ path: join(workspace, 'report.txt'), name: 'report.txt', size: 17 }],
    });
    await readUntil(/Here is your report/);
    await reader.cancel();
    expect(text.match(/event: message/g)).toHaveLength(1);
    const event = JSON.parse(text.match(/event: message\ndata: (.*)\n/)![1]!) as {
      attachments: Array<{ url: string }>;
    };
    expect(event.attachments[0]!.url).toBe('/api/files/report.txt');
    const file = await app.request(event.attachments[0]!.url, { headers: auth });
    expect(file.status).toBe(200);
    expect(await file.text()).toBe('quarterly numbers');
    expect((await app.request('/api/files/report.txt')).status).toBe(401);
    expect((await app.request('/api/files/..%2Foutside.txt', { headers: auth })).status).toBe(403);
    expect((await app.request('/api/files/nope.txt', { headers: auth })).status).toBe(404);
    // A hard link to a file outside the workspace is refused, like a symlink pointing out.
    const outside = join(mkdtempSync(join(tmpdir(), 'wren-out-')), 'secret.txt');
    writeFileSync(outside, 'outside secret');
    linkSync(outside, join(workspace, 'linked.txt'));
    const linked = await app.request('/api/files/linked.txt', { headers: auth });
    expect(linked.status).toBe(403);
    expect(await linked.text()).not.toContain('outside secret');
  });
});

describe('headers of every /api answer', () => {
  it('sends nosniff and same-origin resource policy on JSON, errors, lazy routes and file downloads', async () => {
    const { app, token, workspace } = setup({
      lazyRoutes: {
        matches: (path) => path.startsWith('/api/memory'),
        load: async () => {
          const routes = new Hono();
          routes.get('/api/memory', (c) => c.json({ lazy: true }));
          routes.get('/api/memory/boom', () => {
            throw new Error('boom');
          });
          return routes;
        },
      },
      onError: () => {},
    });
    writeFileSync(join(workspace, 'photo.png'), Buffer.from(PNG, 'base64'));
    const auth = { authorization: `Bearer ${token.generated}` };
    const answers: Array<[string, Response, number]> = [
      ['health', await app.request('/api/health'), 200],
      ['JSON', await app.request('/api/status', { headers: auth }), 200],
      ['lazy JSON', await app.request('/api/memory', { headers: auth }), 200],
      ['no token', await app.request('/api/status'), 401],
      ['unknown route', await app.request('/api/nothing', { headers: auth }), 404],
      ['a failure inside', await app.request('/api/memory/boom', { headers: auth }), 500],
      ['bad body', await app.request('/api/chat', { method: 'POST', headers: auth, body: '{' }), 400],
      ['missing file', await app.request('/api/files/none.png', { headers: auth }), 404],
      ['download', await app.request('/api/files/photo.png', { headers: auth }), 200],
    ];
    for (const [what, response, status] of answers) {
      expect(response.status, what).toBe(status);
      expect(response.headers.get('x-content-type-options'), what).toBe('nosniff');
      expect(response.headers.get('cross-origin-resource-policy'), what).toBe('same-origin');
    }
    const download = answers.at(-1)![1];
    expect(download.headers.get('content-type')).toBe('application/octet-stream');
    expect(Buffer.from(await download.arrayBuffer()).equals(Buffer.from(PNG, 'base64'))).toBe(true);
  });
});

describe('GET /api/files/<path>', () => {
  it('answers 400 for a path that is not valid percent-encoding, and still serves encoded names', async () => {
    const errors: Error[] = [];
    const { app, token, workspace } = setup({ onError: (error) => errors.push(error) });
    writeFileSync(join(workspace, 'नमस्ते 100%.txt'), 'hello');
    const auth = { authorization: `Bearer ${token.generated}` };
    for (const path of [
      '/api/files/%E0%A4%A',
      '/api/files/%E0%A4',
      '/api/files/a%ZZ.txt',
      '/api/files/%FF.txt',
    ]) {
      const response = await app.request(path, { headers: auth });
      expect(response.status, path).toBe(400);
      expect(await response.json(), path).toEqual({
        error: {
          code: 'bad_request',
          message: expect.stringMatching(/^The path is not valid percent-encoding/),
        },
      });
    }
    expect(errors).toEqual([]);
    const encoded = `/api/files/${encodeURIComponent('नमस्ते 100%.txt')}`;
    const file = await app.request(encoded, { headers: auth });
    expect(file.status).toBe(200);
    expect(await file.text()).toBe('hello');
    // A name beyond Latin-1 cannot be a header byte string: it goes as UTF-8 in filename*, ASCII in filename.
    expect(file.headers.get('content-disposition')).toBe(
      `attachment; filename="______ 100%.txt"; filename*=UTF-8''${encodeURIComponent('नमस्ते 100%.txt')}`,
    );
    expect(errors).toEqual([]);
  });
});
