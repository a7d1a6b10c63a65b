/**
 * A fake Slack on 127.0.0.1 for channel tests: the Web API (`POST /api/<method>`, form or JSON bodies, bearer
 * tokens, `{ok: …}` answers, 429 with `Retry-After`, file uploads through `files.getUploadURLExternal`, the
 * upload URL it names and `files.completeUploadExternal`) and the Socket Mode WebSocket that
 * `apps.connections.open` points to (`hello`, event envelopes with `retry_attempt`, acks by `envelope_id`).
 *
 * ```ts
 * const slack = await startFakeSlack({ botToken: 'xoxb-1', appToken: 'xapp-1' });
 * slack.message({ user: 'U1', channel: 'D1', text: 'hi' });    // a DM event over the socket
 * await slack.waitFor((call) => call.method === 'chat.postMessage');
 * ```
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';

export const SLACK_BOT = { userId: 'UBOT0001', botId: 'BBOT0001', teamId: 'T0001' };

export interface SlackCall {
  method: string;
  body: Record<string, unknown>;
  token: string;
  at: number;
}

export async function startFakeSlack(options: { botToken: string; appToken: string }) {
  const calls: SlackCall[] = [];
  const acks = new Set<string>();
  const failures = new Map<string, Array<{ status: number; retryAfter?: number }>>();
  const sockets = new Set<WebSocket>();
  let connections = 0;
  let envelope = 0;
  let ts = 1_700_000_000;
  const nextTs = () => `${++ts}.000100`;
  /** Private file downloads by path (`/files-pri/<name>`, bot token required), and every path asked for. */
  const files = new Map<string, Buffer>();
  const fileRequests: string[] = [];
  /** Bytes posted to upload URLs, by the file id `files.getUploadURLExternal` gave out. */
  const uploads = new Map<string, { filename: string; bytes: number }>();

  const readBody = async (request: IncomingMessage): Promise<Record<string, unknown>> => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString();
    if ((request.headers['content-type'] ?? '').includes('json')) return JSON.parse(raw || '{}');
    const body: Record<string, unknown> = {};
    for (const [key, value] of new URLSearchParams(raw)) {
      body[key] = /^[[{]/.test(value) ? JSON.parse(value) : value;
    }
    return body;
  };

  const server = createServer((request, response) => {
    void (async () => {
      if ((request.url ?? '').startsWith('/files-pri/')) {
        fileRequests.push(request.url ?? '');
        const bytes = files.get(request.url ?? '');
        if (request.headers.authorization !== `Bearer ${options.botToken}` || !bytes)
          return void response.writeHead(404).end();
        return void response.writeHead(200, { 'content-length': bytes.length }).end(bytes);
      }
      const upload = /^\/upload\/(F\w+)$/.exec(request.url ?? '')?.[1];
      if (upload && uploads.has(upload) && request.method === 'POST') {
        let bytes = 0;
        for await (const chunk of request) bytes += (chunk as Buffer).length;
        uploads.get(upload)!.bytes = bytes;
        return void response.writeHead(200).end(`OK - ${bytes}`);
      }
      const method = /^\/api\/([\w.]+)/.exec(request.url ?? '')?.[1];
      const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
        response
          .writeHead(status, { 'content-type': 'application/json', ...headers })
          .end(JSON.stringify(body));
      if (!method) return json(404, { ok: false, error: 'unknown_method' });
      const body = await readBody(request);
      const token =
        (request.headers.authorization ?? '').replace(/^Bearer /, '') || String(body['token'] ?? '');
      calls.push({ method, body, token, at: Date.now() });
      const wanted = method === 'apps.connections.open' ? options.appToken : options.botToken;
      if (token !== wanted) return json(200, { ok: false, error: 'invalid_auth' });
      const failure = failures.get(method)?.shift();
      if (failure)
        return json(
          failure.status,
          { ok: false, error: 'ratelimited' },
          failure.retryAfter !== undefined ? { 'retry-after': String(failure.retryAfter) } : {},
        );
      switch (method) {
        case 'auth.test':
          return json(200, {
            ok: true,
            user_id: SLACK_BOT.userId,
            bot_id: SLACK_BOT.botId,
            team_id: SLACK_BOT.teamId,
            user: 'wren',
            team: 'test',
            url: 'https://test.slack.com/',
          });
        case 'apps.connections.open':
          return json(200, { ok: true, url: `ws://127.0.0.1:${port}/socket/${++connections}` });
        case 'chat.postMessage': {
          const messageTs = nextTs();
          return json(200, {
            ok: true,
            channel: body['channel'],
            ts: messageTs,
            message: { text: body['text'], ts: messageTs },
          });
        }
        case 'chat.update':
          return json(200, { ok: true, channel: body['channel'], ts: body['ts'] });
        case 'chat.postEphemeral':
          return json(200, { ok: true, message_ts: nextTs() });
        case 'files.getUploadURLExternal': {
          const fileId = `F${uploads.size + 1}`;
          uploads.set(fileId, { filename: String(body['filename']), bytes: 0 });
          return json(200, {
            ok: true,
            file_id: fileId,
            upload_url: `http://127.0.0.1:${port}/upload/${fileId}`,
          });
        }
        case 'files.completeUploadExternal':
          return json(200, { ok: true, files: body['files'] });
        default:
          return json(200, { ok: true });
      }
    })();
  });
  const wss = new WebSocketServer({ server });
  wss.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('message', (data) => {
      const message = JSON.parse(data.toString()) as { envelope_id?: string };
      if (message.envelope_id) acks.add(message.envelope_id);
    });
    socket.send(
      JSON.stringify({
        type: 'hello',
        num_connections: 1,
        connection_info: { app_id: 'A0001' },
        debug_info: { host: 'fake', approximate_connection_time: 3600 },
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  /** Slack redelivers an envelope that was not acked in time, with `retry_attempt` counting up. */
  type Delivery = { retryAttempt?: number; retryReason?: string };
  const send = (type: string, payload: unknown, delivery: Delivery = {}) => {
    const id = `env-${++envelope}`;
    const frame = JSON.stringify({
      envelope_id: id,
      type,
      payload,
      accepts_response_payload: false,
      retry_attempt: delivery.retryAttempt ?? 0,
      retry_reason: delivery.retryReason ?? '',
    });
    for (const socket of sockets) socket.send(frame);
    return id;
  };

  return {
    apiUrl: `http://127.0.0.1:${port}/api/`,
    calls,
    acks,
    connections: () => connections,
    /** Socket Mode connections open right now. */
    openSockets: () => sockets.size,
    /** Files uploaded through the upload URLs: name and bytes received. */
    uploads: () => [...uploads.values()],
    /** Any envelope (hostile ones too); returns its envelope id. */
    envelope: (type: string, payload: unknown) => send(type, payload),
    /** A raw text frame on every socket (not even JSON, if so wanted). */
    frame(text: string): void {
      for (const socket of sockets) socket.send(text);
    },
    sent: (method = 'chat.postMessage') => calls.filter((call) => call.method === method),
    /** File paths downloaded (or tried) at `/files-pri/…`, in order. */
    fileRequests: () => [...fileRequests],
    /** Serves `bytes` as a private file; returns the `files[]` entry of a message (`size` as declared). */
    file(name: string, bytes: Buffer, mimetype: string, size = bytes.length) {
      const path = `/files-pri/${files.size + 1}/${name}`;
      files.set(path, bytes);
      return { name, mimetype, size, url_private_download: `http://127.0.0.1:${port}${path}` };
    },
    /** A message event (`channel` D… for a DM); returns its ts. */
    message(
      event: {
        user: string;
        channel: string;
        text: string;
        ts?: string;
        thread_ts?: string;
        channel_type?: string;
        bot_id?: string;
        files?: Array<{ name: string; mimetype: string; size: number; url_private_download: string }>;
      },
      delivery: Delivery = {},
    ): string {
      const messageTs = event.ts ?? nextTs();
      send(
        'events_api',
        {
          token: 'x',
          team_id: SLACK_BOT.teamId,
          api_app_id: 'A0001',
          type: 'event_callback',
          event_id: `Ev${messageTs}`,
          event_time: Math.floor(Date.now() / 1000),
          event: {
            type: 'message',
            channel_type: event.channel_type ?? (event.channel.startsWith('D') ? 'im' : 'channel'),
            ...event,
            ts: messageTs,
          },
        },
        delivery,
      );
      return messageTs;
    },
    /** A click on a Block Kit button with `actionId` by `user`. */
    click(user: string, actionId: string, channel: string): string {
      return send('interactive', {
        type: 'block_actions',
        user: { id: user, username: user, team_id: SLACK_BOT.teamId },
        api_app_id: 'A0001',
        token: 'x',
        trigger_id: 't1',
        team: { id: SLACK_BOT.teamId, domain: 'test' },
        channel: { id: channel, name: 'dm' },
        container: { type: 'message', message_ts: '1', channel_id: channel, is_ephemeral: false },
        actions: [
          {
            action_id: actionId,
            block_id: 'b1',
            type: 'button',
            action_ts: `${Date.now() / 1000}`,
            text: { type: 'plain_text', text: 'x' },
          },
        ],
      });
    },
    failNext(method: string, ...list: Array<{ status: number; retryAfter?: number }>): void {
      failures.set(method, [...(failures.get(method) ?? []), ...list]);
    },
    /** Drops every Socket Mode connection (the client reconnects through apps.connections.open). */
    disconnect(): void {
      for (const socket of sockets) socket.terminate();
    },
    async waitFor(check: (call: SlackCall) => boolean, timeoutMs = 10_000): Promise<SlackCall> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = calls.find(check);
        if (found) return found;
        if (Date.now() > deadline)
          throw new Error(
            `no matching Slack call in ${timeoutMs} ms: ${calls.map((call) => call.method).join(', ')}`,
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

export type FakeSlack = Awaited<ReturnType<typeof startFakeSlack>>;
