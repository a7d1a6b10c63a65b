import { Hono } from 'hono';
import * as z from 'zod';
import type { Channel, ChannelStatus } from '../channels/channel.js';
import { problem } from './problem.js';
import { limitBody, validBody } from './route-input.js';

/** What the channel routes need of the app: the running channels and the platforms it knows. */
export interface ChannelControls {
  /** The running channel called `name` (a configured platform while Wren runs). */
  running(name: string): Channel | undefined;
  /** Whether `name` is a platform Wren has an adapter for (so an unknown name is a 404, not a 409). */
  known(name: string): boolean;
  /** Why `name` is not running, in words for the owner (not configured, disabled, failed to start…). */
  whyNotRunning(name: string): string;
  /** Hides secrets in an error a platform returned before it reaches the caller. */
  redact: (text: string) => string;
}

/** A phone number in international form: digits only after an optional +, as WhatsApp's pairing expects. */
const PHONE = /^\+?[0-9]{7,15}$/;

const linkBody = z.union([
  z.strictObject({ method: z.literal('qr') }),
  z.strictObject({
    method: z.literal('code'),
    phone: z
      .string()
      .regex(PHONE, 'use the full number with its country code, digits only (e.g. +4915112345678)'),
  }),
]);

const TEST_TEXT = 'Test from Wren: this channel delivers to you. Nothing else to do.';

/**
 * `POST /api/channels/:name/link` (start linking a linked-device platform: a QR code, or a pairing code for
 * a phone number; the QR or code then shows in `/api/status`), `POST /api/channels/:name/unlink` (log the
 * device out and forget its session) and `POST /api/channels/:name/test` (send the owner a test message
 * there, reporting the platform's refusal): what `wren channels link|unlink|test` do, for the web app too.
 * 404 for a platform Wren does not know, 409 when it is not running (with the reason) or has no owner chat,
 * 400 when it does not link by device (token platforms), 502 when the platform refused.
 */
export function channelRoutes(controls: ChannelControls): Hono {
  const app = new Hono();
  app.use('/api/channels/*', limitBody(4096));

  const find = (
    name: string,
  ): { channel: Channel } | { response: [ReturnType<typeof problem>, 404 | 409] } => {
    if (!controls.known(name)) return { response: [problem('not_found', `No channel named ${name}.`), 404] };
    const channel = controls.running(name);
    if (!channel) return { response: [problem('conflict', controls.whyNotRunning(name)), 409] };
    return { channel };
  };
  const notLinked = (name: string) =>
    problem(
      'bad_request',
      `The ${name} channel does not link by device: it signs in with the credentials in config.yaml (docs/channels.md).`,
    );

  app.post('/api/channels/:name/link', async (c) => {
    const name = c.req.param('name');
    const found = find(name);
    if ('response' in found) return c.json(...found.response);
    if (!found.channel.link) return c.json(notLinked(name), 400);
    const body = await validBody(c, linkBody);
    if (!body.ok) return body.response;
    const request =
      body.value.method === 'code'
        ? { method: 'code' as const, phone: body.value.phone.replace(/^\+/, '') }
        : { method: 'qr' as const };
    try {
      await found.channel.link(request);
    } catch (error) {
      return c.json(problem('upstream', controls.redact((error as Error).message)), 502);
    }
    return c.json({ channel: found.channel.status() } satisfies { channel: ChannelStatus });
  });

  app.post('/api/channels/:name/unlink', async (c) => {
    const name = c.req.param('name');
    const found = find(name);
    if ('response' in found) return c.json(...found.response);
    if (!found.channel.unlink) return c.json(notLinked(name), 400);
    try {
      await found.channel.unlink();
    } catch (error) {
      return c.json(problem('upstream', controls.redact((error as Error).message)), 502);
    }
    return c.json({ channel: found.channel.status() } satisfies { channel: ChannelStatus });
  });

  app.post('/api/channels/:name/test', async (c) => {
    const name = c.req.param('name');
    const found = find(name);
    if ('response' in found) return c.json(...found.response);
    const chatId = found.channel.ownerChat?.();
    if (!chatId) {
      const state = found.channel.status().state;
      const why =
        state === 'connected'
          ? `The ${name} channel knows no owner chat to write to: set channels.${name}.access.owner in config.yaml.`
          : `The ${name} channel is ${state}; it can send once it is connected.`;
      return c.json(problem('conflict', why), 409);
    }
    try {
      await found.channel.send({
        channel: name,
        chatId,
        replyTo: '',
        sessionId: `${name}:${chatId}`,
        text: TEST_TEXT,
        kind: 'notice',
        usage: { inputTokens: 0, outputTokens: 0 },
      });
    } catch (error) {
      return c.json(problem('upstream', controls.redact((error as Error).message)), 502);
    }
    return c.json({ delivered: true, chatId });
  });
  return app;
}
