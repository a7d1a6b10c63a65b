import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ScriptedModel } from '../../test/support/scripted-model.js';
import { AgentRuntime } from '../agent/agent-runtime.js';
import { ContextBuilder } from '../agent/context-builder.js';
import { MemorySessionStore } from '../agent/memory-session-store.js';
import { ToolRegistry } from '../agent/tool-registry.js';
import { MessageBus } from '../bus/message-bus.js';
import { createGateway } from './create-gateway.js';
import { settleGatewayToken } from './gateway-token.js';

const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

function setup() {
  const workspace = mkdtempSync(join(tmpdir(), 'wren-gw-'));
  const bus = new MessageBus();
  const store = new MemorySessionStore();
  const model = new ScriptedModel();
  new AgentRuntime({
    bus,
    store,
    model,
    registry: new ToolRegistry(),
    context: new ContextBuilder({ workspace }),
    workspace: () => workspace,
    settings: () => ({
      maxRounds: 3,
      maxConcurrency: 2,
      maxToolResultChars: 1000,
      repeatLimit: 2,
      historyReserveTokens: 10,
    }),
  }).start();
  const settings = new Map<string, string>();
  const token = settleGatewayToken(
    { get: (key) => settings.get(key), set: (key, value) => settings.set(key, value) },
    undefined,
  );
  const app = createGateway({
    bus,
    store,
    verifyToken: token.verify,
    status: () => ({ up: true }),
    version: '9.9.9',
    startedAt: Date.now(),
  });
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    app.request('/api/chat', {
      method: 'POST',
      headers: { authorization: `Bearer ${token.generated}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  return { app, model, post, token, settings };
}

describe('createGateway', () => {
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
