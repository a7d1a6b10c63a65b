import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { OutboundMessage } from '../bus/messages.js';
import type { Channel, ChannelStatus, LinkRequest } from '../channels/channel.js';
import { channelRoutes } from './channel-routes.js';

/** A channel as the routes see it: records what it was asked; `linkable` adds link/unlink. */
function channel(name: string, options: { linkable?: boolean; owner?: string; failSend?: string } = {}) {
  const sent: OutboundMessage[] = [];
  const links: LinkRequest[] = [];
  let unlinked = 0;
  let current: ChannelStatus = { name, state: 'connected', since: 1 };
  const face: Channel = {
    name,
    start: async () => {},
    stop: async () => {},
    send: async (message) => {
      if (options.failSend) throw new Error(options.failSend);
      sent.push(message);
    },
    status: () => current,
    ownerChat: () => options.owner,
    ...(options.linkable
      ? {
          link: async (request: LinkRequest) => {
            links.push(request);
            current = { name, state: 'linking', since: 2, link: { qr: '2@payload', expiresAt: 99 } };
          },
          unlink: async () => {
            unlinked += 1;
            current = { name, state: 'logged-out', since: 3 };
          },
        }
      : {}),
  };
  return { face, sent, links, unlinked: () => unlinked };
}

interface AnswerBody {
  error?: { code: string; message: string };
  channel?: ChannelStatus;
  delivered?: boolean;
  chatId?: string;
}

function routes(running: Record<string, Channel>) {
  const app = new Hono();
  app.route(
    '/',
    channelRoutes({
      running: (name) => running[name],
      known: (name) => ['whatsapp', 'telegram', 'slack'].includes(name),
      whyNotRunning: (name) => `The ${name} channel is not configured.`,
      redact: (text) => text.replaceAll('xoxb-secret-token', '[redacted]'),
    }),
  );
  const post = async (path: string, body?: unknown) => {
    const response = await app.request(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as AnswerBody };
  };
  return { post };
}

describe('channel routes', () => {
  it('starts QR linking and shows the QR payload in the answer', async () => {
    const whatsapp = channel('whatsapp', { linkable: true });
    const { post } = routes({ whatsapp: whatsapp.face });
    const answer = await post('/api/channels/whatsapp/link', { method: 'qr' });
    expect(answer.status).toBe(200);
    expect(answer.body.channel).toMatchObject({ state: 'linking', link: { qr: '2@payload' } });
    expect(whatsapp.links).toEqual([{ method: 'qr' }]);
  });

  it('asks for a pairing code with the number in digits only, and refuses a malformed number without echoing it', async () => {
    const whatsapp = channel('whatsapp', { linkable: true });
    const { post } = routes({ whatsapp: whatsapp.face });
    expect(
      (await post('/api/channels/whatsapp/link', { method: 'code', phone: '+4915112345678' })).status,
    ).toBe(200);
    expect(whatsapp.links).toEqual([{ method: 'code', phone: '4915112345678' }]);
    for (const phone of ['99', '+49 151 1234', '4915112345678; rm -rf /', 'x'.repeat(40)]) {
      const refused = await post('/api/channels/whatsapp/link', { method: 'code', phone });
      expect(refused.status).toBe(400);
      expect(refused.body.error?.message).toMatch(/^phone: use the full number/);
      expect(refused.body.error?.message).not.toContain(phone);
    }
    expect((await post('/api/channels/whatsapp/link', { method: 'sms' })).status).toBe(400);
    expect((await post('/api/channels/whatsapp/link', '{not json')).body.error?.message).toBe(
      'The body must be a JSON object.',
    );
    expect(whatsapp.links).toHaveLength(1);
  });

  it('refuses an oversized body before reading it', async () => {
    const { post } = routes({ whatsapp: channel('whatsapp', { linkable: true }).face });
    const huge = await post('/api/channels/whatsapp/link', { method: 'qr', pad: 'x'.repeat(10_000) });
    expect(huge.status).toBe(413);
  });

  it('unlinks a linked device', async () => {
    const whatsapp = channel('whatsapp', { linkable: true });
    const { post } = routes({ whatsapp: whatsapp.face });
    const answer = await post('/api/channels/whatsapp/unlink');
    expect(answer.status).toBe(200);
    expect(answer.body.channel?.state).toBe('logged-out');
    expect(whatsapp.unlinked()).toBe(1);
  });

  it('says why: an unknown platform is 404, one not running 409 with the reason, a token platform 400', async () => {
    const { post } = routes({ telegram: channel('telegram', { owner: '42' }).face });
    const unknown = await post('/api/channels/myspace/link', { method: 'qr' });
    expect(unknown.status).toBe(404);
    const absent = await post('/api/channels/whatsapp/link', { method: 'qr' });
    expect(absent).toEqual({
      status: 409,
      body: { error: { code: 'conflict', message: 'The whatsapp channel is not configured.' } },
    });
    const token = await post('/api/channels/telegram/link', { method: 'qr' });
    expect(token.status).toBe(400);
    expect(token.body.error?.message).toMatch(/does not link by device/);
    expect((await post('/api/channels/telegram/unlink')).status).toBe(400);
  });

  it('sends the owner a test message, and reports a platform refusal with its secrets hidden', async () => {
    const telegram = channel('telegram', { owner: '42' });
    const slack = channel('slack', { owner: 'D1', failSend: 'invalid_auth for xoxb-secret-token' });
    const { post } = routes({ telegram: telegram.face, slack: slack.face });
    expect(await post('/api/channels/telegram/test')).toEqual({
      status: 200,
      body: { delivered: true, chatId: '42' },
    });
    expect(telegram.sent.map((message) => [message.chatId, message.kind])).toEqual([['42', 'notice']]);
    expect(telegram.sent[0]!.text).toMatch(/^Test from Wren/);
    const refused = await post('/api/channels/slack/test');
    expect(refused.status).toBe(502);
    expect(refused.body.error?.message).toBe('invalid_auth for [redacted]');
  });

  it('refuses a test without an owner chat, saying what is missing', async () => {
    const { post } = routes({ telegram: channel('telegram').face });
    const answer = await post('/api/channels/telegram/test');
    expect(answer.status).toBe(409);
    expect(answer.body.error?.message).toMatch(/channels\.telegram\.access\.owner/);
  });
});
