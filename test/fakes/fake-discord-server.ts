/**
 * A fake Discord on 127.0.0.1 for channel tests: the REST API (`/api/v10/...`, `Authorization: Bot <token>`,
 * 429 with `retry_after`) and the gateway WebSocket that `GET /gateway/bot` points to (HELLO, IDENTIFY →
 * READY, heartbeats acked, RESUME → RESUMED, dispatches with sequence numbers), in plain JSON frames.
 *
 * ```ts
 * const discord = await startFakeDiscord({ token });
 * discord.dm({ from: OWNER, content: 'hi' });                  // MESSAGE_CREATE in the owner's DM
 * await discord.waitFor((call) => call.route === 'POST /channels/:id/messages');
 * ```
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';

export const DISCORD_BOT = {
  id: '900000000000000001',
  username: 'wren',
  discriminator: '0',
  bot: true,
  avatar: null,
  global_name: 'Wren',
};
export const DISCORD_APP = '900000000000000002';
export const GUILD = '700000000000000001';
/** A text channel of GUILD. */
export const GUILD_CHANNEL = '700000000000000002';
/** A public thread under GUILD_CHANNEL. */
export const GUILD_THREAD = '700000000000000003';
/** A public thread under GUILD_CHANNEL that GUILD_CREATE does not list (made after the bot connected). */
export const LATE_THREAD = '700000000000000004';

export interface DiscordCall {
  /** `METHOD /path` with ids replaced by `:id` (e.g. `POST /channels/:id/messages`). */
  route: string;
  path: string;
  body: Record<string, unknown>;
  at: number;
}

const user = (id: string) => ({
  id,
  username: `user${id.slice(-4)}`,
  discriminator: '0',
  global_name: null,
  avatar: null,
  bot: false,
});

/**
 * `token`: the bot token the API and gateway accept. `closeOnIdentify`: answer IDENTIFY by closing the
 * gateway connection with that code (4004 a refused token, 4014 a privileged intent not turned on).
 */
export async function startFakeDiscord(options: { token: string; closeOnIdentify?: number }) {
  const calls: DiscordCall[] = [];
  const failures = new Map<string, Array<{ status: number; retryAfter: number }>>();
  const sockets = new Set<WebSocket>();
  let seq = 0;
  let nextId = 800_000_000_000_000_000n;
  let identifies = 0;
  let resumes = 0;
  const id = () => String(++nextId);
  const dmChannels = new Map<string, string>(); // user id → DM channel id
  /** CDN files by path (`/attachments/<id>/<name>`), and every path asked for there. */
  const files = new Map<string, Buffer>();
  const fileRequests: string[] = [];

  const readBody = async (request: IncomingMessage): Promise<Record<string, unknown>> => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString();
    if ((request.headers['content-type'] ?? '').includes('json')) return JSON.parse(raw || '{}');
    const json = /name="payload_json"\r\n(?:Content-Type: [^\r]*\r\n)?\r\n([^\r]*)\r\n/.exec(raw)?.[1];
    // The files of a multipart upload, by the names the form gave them.
    const uploads = [...raw.matchAll(/name="files\[\d+\]"; filename="([^"]*)"/g)].map((match) => match[1]);
    return json ? { ...JSON.parse(json), multipart: true, uploads } : {};
  };

  const message = (channelId: string, body: Record<string, unknown>, messageId = id()) => ({
    id: messageId,
    channel_id: channelId,
    author: DISCORD_BOT,
    content: body['content'] ?? '',
    timestamp: new Date().toISOString(),
    edited_timestamp: null,
    tts: false,
    mention_everyone: false,
    mentions: [],
    mention_roles: [],
    attachments: [],
    embeds: [],
    components: body['components'] ?? [],
    pinned: false,
    type: 0,
  });

  /** `message` under a name the helpers below (whose argument is also called message) can reach. */
  const botMessage = message;

  const server = createServer((request, response) => {
    void (async () => {
      if ((request.url ?? '').startsWith('/attachments/')) {
        // The CDN: no bot token, just the URL Discord put in the message.
        const wanted = (request.url ?? '').split('?')[0]!;
        fileRequests.push(wanted);
        const bytes = files.get(wanted);
        if (!bytes) return void response.writeHead(404).end();
        return void response.writeHead(200, { 'content-length': bytes.length }).end(bytes);
      }
      const path = (request.url ?? '/').replace(/^\/api\/v\d+/, '').split('?')[0]!;
      const route = `${request.method} ${path.replace(/\/\d{15,22}(?=\/|$)/g, '/:id').replace(/\/interactions\/:id\/[^/]+/, '/interactions/:id/:token')}`;
      const json = (status: number, body?: unknown, headers: Record<string, string> = {}) => {
        if (status === 204) return void response.writeHead(204, headers).end();
        response
          .writeHead(status, { 'content-type': 'application/json', ...headers })
          .end(JSON.stringify(body));
      };
      const body = await readBody(request);
      calls.push({ route, path, body, at: Date.now() });
      if (request.headers.authorization !== `Bot ${options.token}` && !route.startsWith('POST /interactions'))
        return json(401, { message: '401: Unauthorized', code: 0 });
      const failure = failures.get(route)?.shift();
      if (failure)
        return json(
          failure.status,
          { message: 'You are being rate limited.', retry_after: failure.retryAfter, global: false },
          {
            'retry-after': String(failure.retryAfter),
            'x-ratelimit-scope': 'user',
            'x-ratelimit-limit': '5',
            'x-ratelimit-remaining': '0',
            'x-ratelimit-reset-after': String(failure.retryAfter),
            'x-ratelimit-bucket': 'b1',
          },
        );
      const channelId = /\/channels\/(\d+)/.exec(path)?.[1] ?? '';
      switch (route) {
        case 'GET /gateway/bot':
          return json(200, {
            url: `ws://127.0.0.1:${port}`,
            shards: 1,
            session_start_limit: { total: 1000, remaining: 999, reset_after: 0, max_concurrency: 1 },
          });
        case 'GET /users/@me':
          return json(200, DISCORD_BOT);
        case 'GET /users/:id':
          return json(200, user(path.split('/').pop()!));
        case 'POST /users/@me/channels': {
          const recipient = String(body['recipient_id']);
          const dm = dmChannels.get(recipient) ?? id();
          dmChannels.set(recipient, dm);
          return json(200, { id: dm, type: 1, recipients: [user(recipient)], last_message_id: null });
        }
        case 'GET /channels/:id': {
          // As Discord: a user id is not a channel (a DM to a user is opened with POST /users/@me/channels).
          const recipient = [...dmChannels].find(([, dm]) => dm === channelId)?.[0];
          if (!recipient && ![GUILD_CHANNEL, GUILD_THREAD, LATE_THREAD].includes(channelId))
            return json(404, { message: 'Unknown Channel', code: 10003 });
          if (channelId === GUILD_CHANNEL)
            return json(200, { id: channelId, type: 0, guild_id: GUILD, name: 'general' });
          if (channelId === GUILD_THREAD || channelId === LATE_THREAD)
            return json(200, { id: channelId, type: 11, guild_id: GUILD, parent_id: GUILD_CHANNEL });
          return json(200, { id: channelId, type: 1, recipients: [user(recipient!)] });
        }
        case 'POST /channels/:id/messages':
          return json(200, message(channelId, body));
        case 'PATCH /channels/:id/messages/:id':
          return json(200, message(channelId, body, path.split('/').pop()));
        case 'POST /channels/:id/typing':
          return json(204);
        case 'PUT /applications/:id/commands':
          return json(200, []);
        default:
          if (route.startsWith('POST /interactions')) return json(204);
          return json(200, {});
      }
    })();
  });

  const wss = new WebSocketServer({ server });
  const send = (socket: WebSocket, payload: unknown) => socket.send(JSON.stringify(payload));
  const dispatch = (t: string, d: unknown) => {
    seq++;
    for (const socket of sockets) send(socket, { op: 0, s: seq, t, d });
  };
  wss.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('message', (data) => {
      const frame = JSON.parse(data.toString()) as { op: number; d: unknown };
      if (frame.op === 1) send(socket, { op: 11, d: null });
      if (frame.op === 2 && options.closeOnIdentify) {
        identifies++;
        return void socket.close(options.closeOnIdentify, 'refused');
      }
      if (frame.op === 2) {
        identifies++;
        seq++;
        send(socket, {
          op: 0,
          s: seq,
          t: 'READY',
          d: {
            v: 10,
            user: DISCORD_BOT,
            guilds: [{ id: GUILD, unavailable: true }],
            session_id: `session-${identifies}`,
            resume_gateway_url: `ws://127.0.0.1:${port}`,
            application: { id: DISCORD_APP, flags: 0 },
            private_channels: [],
          },
        });
      }
      if (frame.op === 2) {
        seq++;
        send(socket, {
          op: 0,
          s: seq,
          t: 'GUILD_CREATE',
          d: {
            id: GUILD,
            name: 'Test guild',
            icon: null,
            owner_id: '100000000000000001',
            afk_timeout: 300,
            verification_level: 0,
            default_message_notifications: 0,
            explicit_content_filter: 0,
            mfa_level: 0,
            premium_tier: 0,
            preferred_locale: 'en-US',
            nsfw_level: 0,
            features: [],
            roles: [
              {
                id: GUILD,
                name: '@everyone',
                permissions: '0',
                position: 0,
                color: 0,
                hoist: false,
                managed: false,
                mentionable: false,
                flags: 0,
              },
            ],
            emojis: [],
            stickers: [],
            channels: [
              {
                id: GUILD_CHANNEL,
                type: 0,
                name: 'general',
                position: 0,
                permission_overwrites: [],
                guild_id: GUILD,
              },
            ],
            threads: [
              {
                id: GUILD_THREAD,
                type: 11,
                name: 'planning',
                guild_id: GUILD,
                parent_id: GUILD_CHANNEL,
                owner_id: '100000000000000001',
                message_count: 0,
                member_count: 1,
                thread_metadata: {
                  archived: false,
                  auto_archive_duration: 1440,
                  archive_timestamp: new Date().toISOString(),
                  locked: false,
                },
              },
            ],
            members: [],
            voice_states: [],
            presences: [],
            stage_instances: [],
            guild_scheduled_events: [],
            member_count: 3,
            joined_at: new Date().toISOString(),
            large: false,
            unavailable: false,
          },
        });
      }
      if (frame.op === 6) {
        resumes++;
        seq++;
        send(socket, { op: 0, s: seq, t: 'RESUMED', d: {} });
      }
    });
    send(socket, { op: 10, d: { heartbeat_interval: 41_250 } });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    apiUrl: `http://127.0.0.1:${port}/api`,
    calls,
    identifies: () => identifies,
    /** Gateway connections open now. */
    connections: () => sockets.size,
    resumes: () => resumes,
    /** Messages the bot posted to `channel`, in order. */
    posted: (channel: string) =>
      calls.filter(
        (call) => call.route === 'POST /channels/:id/messages' && call.path.includes(`/channels/${channel}/`),
      ),
    /** The DM channel id of `userId` (made on first use). */
    dmOf(userId: string): string {
      const dm = dmChannels.get(userId) ?? id();
      dmChannels.set(userId, dm);
      return dm;
    },
    /** CDN paths downloaded (or tried), in order. */
    fileRequests: () => [...fileRequests],
    /**
     * Serves `bytes` on the fake CDN; returns the attachment object a message carries (`size` as declared,
     * default the real length).
     */
    attachment(name: string, bytes: Buffer, contentType: string, size = bytes.length) {
      const attachmentId = id();
      const path = `/attachments/${attachmentId}/${name}`;
      files.set(path, bytes);
      const url = `http://127.0.0.1:${port}${path}`;
      return { id: attachmentId, filename: name, size, url, proxy_url: url, content_type: contentType };
    },
    /** A message from `from` in their DM (with attachments from `attachment()`); returns its id. */
    dm(message: { from: string; content: string; id?: string; attachments?: unknown[] }): string {
      const messageId = message.id ?? id();
      dispatch('MESSAGE_CREATE', {
        id: messageId,
        channel_id: this.dmOf(message.from),
        // Discord marks DM messages with their channel type (1): clients build the DM channel from it.
        channel_type: 1,
        author: user(message.from),
        content: message.content,
        timestamp: new Date().toISOString(),
        edited_timestamp: null,
        tts: false,
        mention_everyone: false,
        mentions: [],
        mention_roles: [],
        attachments: message.attachments ?? [],
        embeds: [],
        pinned: false,
        type: 0,
      });
      return messageId;
    },
    /**
     * A message from `from` in the guild's text channel (or `channel`, or GUILD_THREAD with `thread`),
     * mentioning the bot when asked, or replying to the bot's message `replyTo`; returns its id.
     */
    inGuild(message: {
      from: string;
      content: string;
      mentionBot?: boolean;
      thread?: boolean;
      channel?: string;
      replyTo?: { id: string; content: string };
    }): string {
      const messageId = id();
      const channelId = message.channel ?? (message.thread ? GUILD_THREAD : GUILD_CHANNEL);
      const reply = message.replyTo;
      dispatch('MESSAGE_CREATE', {
        id: messageId,
        channel_id: channelId,
        guild_id: GUILD,
        author: user(message.from),
        member: { roles: [], joined_at: new Date().toISOString(), deaf: false, mute: false, flags: 0 },
        content: message.mentionBot ? `<@${DISCORD_BOT.id}> ${message.content}` : message.content,
        timestamp: new Date().toISOString(),
        edited_timestamp: null,
        tts: false,
        mention_everyone: false,
        mentions: message.mentionBot ? [DISCORD_BOT] : [],
        mention_roles: [],
        attachments: [],
        embeds: [],
        pinned: false,
        // A reply (type 19) carries the message it answers, as Discord sends it.
        type: reply ? 19 : 0,
        ...(reply
          ? {
              message_reference: { type: 0, message_id: reply.id, channel_id: channelId, guild_id: GUILD },
              referenced_message: botMessage(channelId, { content: reply.content }, reply.id),
            }
          : {}),
      });
      return messageId;
    },
    /** A click on a button with `customId` by `from`, on a message in channel `channel`. */
    click(from: string, customId: string, channel: string): string {
      const interaction = id();
      dispatch('INTERACTION_CREATE', {
        id: interaction,
        application_id: DISCORD_APP,
        type: 3,
        token: `token-${interaction}`,
        version: 1,
        channel_id: channel,
        channel: { id: channel, type: 1 },
        user: user(from),
        data: { custom_id: customId, component_type: 2 },
        message: message(channel, { content: 'question' }),
        locale: 'en-US',
        entitlements: [],
        authorizing_integration_owners: {},
        app_permissions: '0',
      });
      return interaction;
    },
    /** `/wren message:<text>` run by `from` in their DM. */
    command(from: string, text: string): string {
      const interaction = id();
      const channel = this.dmOf(from);
      dispatch('INTERACTION_CREATE', {
        id: interaction,
        application_id: DISCORD_APP,
        type: 2,
        token: `token-${interaction}`,
        version: 1,
        channel_id: channel,
        channel: { id: channel, type: 1 },
        user: user(from),
        data: {
          id: '900000000000000099',
          name: 'wren',
          type: 1,
          options: [{ name: 'message', type: 3, value: text }],
        },
        locale: 'en-US',
        entitlements: [],
        authorizing_integration_owners: {},
        app_permissions: '0',
      });
      return interaction;
    },
    failNext(route: string, ...list: Array<{ status: number; retryAfter: number }>): void {
      failures.set(route, [...(failures.get(route) ?? []), ...list]);
    },
    /** Closes every gateway connection with a resumable code. */
    disconnect(): void {
      for (const socket of sockets) socket.close(4000, 'test disconnect');
    },
    async waitFor(check: (call: DiscordCall) => boolean, timeoutMs = 10_000): Promise<DiscordCall> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = calls.find(check);
        if (found) return found;
        if (Date.now() > deadline)
          throw new Error(
            `no matching Discord call in ${timeoutMs} ms: ${calls.map((call) => call.route).join(', ')}`,
          );
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    close(): Promise<void> {
      for (const socket of sockets) socket.terminate();
      wss.close();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

export type FakeDiscord = Awaited<ReturnType<typeof startFakeDiscord>>;
