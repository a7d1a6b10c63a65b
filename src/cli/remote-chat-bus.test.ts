import { afterEach, describe, expect, it } from 'vitest';
import { plainRuntime } from '../../test/support/plain-runtime.js';
import { ScriptedModel } from '../../test/support/scripted-model.js';
import type { InboundMessage } from '../bus/messages.js';
import { HttpChannel } from '../channels/http/http-channel.js';
import { createGateway } from '../gateway/create-gateway.js';
import { type RunningGateway, serveGateway } from '../gateway/serve-gateway.js';
import type { GatewayLink } from './gateway-client.js';
import { createRemoteChatBus } from './remote-chat-bus.js';

const servers: RunningGateway[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

/** A gateway on a free port with its own token, answering "echo: <text>". */
async function gateway(token: string): Promise<GatewayLink> {
  const model = new ScriptedModel();
  model.script(
    ...Array.from({ length: 20 }, () => (request: { messages: Array<{ content: unknown }> }) => ({
      text: `echo: ${String(request.messages.at(-1)?.content).split('\n').at(-1)}`,
    })),
  );
  const { bus, store } = plainRuntime(model, 'wren-remote-');
  const app = createGateway({
    channel: new HttpChannel({ bus }),
    sessions: store,
    verifyToken: (presented) => presented === token,
    status: () => ({}),
    version: 'test',
    startedAt: Date.now(),
  });
  const running = await serveGateway(app, '127.0.0.1', 0);
  servers.push(running);
  return { url: `http://127.0.0.1:${running.port}`, token, pid: process.pid, version: 'test' };
}

const message = (text: string, chatId = 'terminal', sessionId?: string): InboundMessage => ({
  id: `m-${Math.random()}`,
  channel: 'cli',
  senderId: 'owner',
  fromOwner: true,
  chatId,
  text,
  interactive: true,
  ...(sessionId ? { sessionId } : {}),
});

describe('createRemoteChatBus', () => {
  it('answers through the gateway; a one-shot session stays apart from the terminal conversation', async () => {
    const link = await gateway('token-one-0123456789');
    const bus = createRemoteChatBus(link);
    const first = await bus.request(message('hello'));
    expect(first).toMatchObject({ kind: 'reply', text: 'echo: hello' });
    const again = await bus.request(message('again'));
    expect(again.sessionId).toBe(first.sessionId);
    const oneShot = await bus.request(message('alone', 'one-shot-1', 'one-shot-1'));
    expect(oneShot.sessionId).toBe('one-shot-1');
    expect(oneShot.sessionId).not.toBe(first.sessionId);
  });

  it('a stopped gateway gives an error reply, not a crash; a restarted one is found again', async () => {
    const link = await gateway('token-one-0123456789');
    let next: GatewayLink | undefined;
    const bus = createRemoteChatBus(link, async () => next);
    expect((await bus.request(message('hello'))).kind).toBe('reply');
    await servers.shift()!.close();
    const down = await bus.request(message('anyone?'));
    expect(down.kind).toBe('error');
    expect(down.text).toMatch(/stopped answering/);
    // A restart: new port, new local token, found again through gateway.json (here: the relink function).
    next = await gateway('token-two-0123456789');
    expect(await bus.request(message('back?'))).toMatchObject({ kind: 'reply', text: 'echo: back?' });
  });
});
