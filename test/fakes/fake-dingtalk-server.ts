/**
 * A fake DingTalk on 127.0.0.1 speaking the Stream-mode wire protocol and the robot OpenAPI: the gateway
 * handshake (`POST /v1.0/gateway/connections/open`: client id + secret → endpoint + ticket), the stream
 * WebSocket (`?ticket=`, refused without a valid one) pushing CALLBACK frames and SYSTEM ping/disconnect
 * and recording the client's acks, the access token, direct and group robot sends, session webhooks,
 * file downloads by download code and media uploads. Every message Wren sends lands in `sent`.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';

export const ROBOT_TOPIC = '/v1.0/im/bot/messages/get';

/** One message Wren sent, by whichever route: `chat` is a staff id (direct) or a conversation id (group). */
export interface SentMessage {
  via: 'webhook' | 'direct' | 'group';
  chat: string;
  /** `text`, `markdown` (webhook) or the msgKey (`sampleText`, `sampleMarkdown`, `sampleFile`, …). */
  kind: string;
  text: string;
  param: Record<string, unknown>;
}

export interface FakeMessage {
  /** Staff id of the sender (absent: a user outside the organisation, known only by `senderId`). */
  staffId?: string;
  text?: string;
  msgtype?: string;
  content?: Record<string, unknown>;
  /** A group conversation; `atBot` sets `isInAtList`. */
  group?: { conversationId: string; atBot: boolean };
  msgId?: string;
  /** The session webhook has expired: replies must take the OpenAPI. */
  expiredWebhook?: boolean;
  /** A session webhook somewhere else than this fake (Wren must not post there). */
  webhookUrl?: string;
}

export async function startFakeDingtalk(options: { clientId: string; clientSecret: string }) {
  const sockets = new Set<WebSocket>();
  const tickets = new Set<string>();
  const token = `token-${randomUUID()}`;
  const sent: SentMessage[] = [];
  const received: Array<Record<string, unknown>> = [];
  const acks = new Map<string, Record<string, unknown>>();
  /** The messageId of every ack, in order (a redelivery acked again appears twice). */
  const ackLog: string[] = [];
  const pongs: string[] = [];
  const files = new Map<string, Buffer>();
  const uploads: Array<{ name: string; type: string; bytes: Buffer }> = [];
  /** Webhook session → the chat Wren knows it by. */
  const sessions = new Map<string, string>();
  let connections = 0;
  let downloads = 0;
  let next = 0;
  let last: string | undefined;
  let redeliverOnConnect = false;

  const json = (response: ServerResponse, status: number, body: unknown) =>
    response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  const readBody = async (request: IncomingMessage) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  };

  async function handle(request: IncomingMessage, response: ServerResponse) {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const raw = await readBody(request);
    const body = (() => {
      try {
        return JSON.parse(raw.toString()) as Record<string, unknown>;
      } catch {
        return {};
      }
    })();
    const authorized = request.headers['x-acs-dingtalk-access-token'] === token;
    switch (url.pathname) {
      case '/v1.0/gateway/connections/open': {
        if (body['clientId'] !== options.clientId || body['clientSecret'] !== options.clientSecret)
          return json(response, 401, { code: 'InvalidAuthentication', message: 'bad client' });
        const ticket = randomUUID();
        tickets.add(ticket);
        return json(response, 200, { endpoint: `ws://127.0.0.1:${port}/connect`, ticket });
      }
      case '/v1.0/oauth2/accessToken':
        if (body['appKey'] !== options.clientId || body['appSecret'] !== options.clientSecret)
          return json(response, 400, { code: 'invalidClientIdOrSecret' });
        return json(response, 200, { accessToken: token, expireIn: 7200 });
      case '/v1.0/robot/oToMessages/batchSend':
      case '/v1.0/robot/groupMessages/send': {
        if (!authorized) return json(response, 401, { code: 'InvalidAuthentication' });
        const group = url.pathname.includes('group');
        const param = JSON.parse(String(body['msgParam'] ?? '{}')) as Record<string, unknown>;
        sent.push({
          via: group ? 'group' : 'direct',
          chat: group ? String(body['openConversationId']) : String((body['userIds'] as string[])[0]),
          kind: String(body['msgKey']),
          text: String(param['text'] ?? param['content'] ?? ''),
          param,
        });
        return json(response, 200, { processQueryKey: `q-${++next}` });
      }
      case '/v1.0/robot/messageFiles/download': {
        if (!authorized) return json(response, 401, { code: 'InvalidAuthentication' });
        const code = String(body['downloadCode']);
        if (!files.has(code)) return json(response, 404, { code: 'unknownDownloadCode' });
        return json(response, 200, { downloadUrl: `http://127.0.0.1:${port}/files/${code}` });
      }
      case '/media/upload': {
        if (url.searchParams.get('access_token') !== token) return json(response, 200, { errcode: 40014 });
        const form = await new Response(raw, {
          headers: { 'content-type': String(request.headers['content-type']) },
        }).formData();
        const media = form.get('media') as File;
        uploads.push({
          name: media.name,
          type: String(url.searchParams.get('type')),
          bytes: Buffer.from(await media.arrayBuffer()),
        });
        return json(response, 200, { errcode: 0, errmsg: 'ok', media_id: `@media-${++next}` });
      }
      case '/robot/sendBySession': {
        const chat = sessions.get(url.searchParams.get('session') ?? '');
        if (!chat) return json(response, 200, { errcode: 300001, errmsg: 'session expired' });
        const kind = String(body['msgtype']);
        const part = (body[kind] ?? {}) as Record<string, unknown>;
        sent.push({
          via: 'webhook',
          chat,
          kind,
          text: String(part['text'] ?? part['content'] ?? ''),
          param: part,
        });
        return json(response, 200, { errcode: 0, errmsg: 'ok' });
      }
    }
    if (url.pathname.startsWith('/files/')) {
      const bytes = files.get(url.pathname.slice('/files/'.length));
      if (!bytes) return void response.writeHead(404).end();
      downloads++;
      return void response.writeHead(200, { 'content-type': 'application/octet-stream' }).end(bytes);
    }
    json(response, 404, { code: 'notFound' });
  }

  const server = createServer((request, response) => {
    handle(request, response).catch(() => response.writeHead(500).end());
  });
  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (request, socket, head) => {
    const ticket = new URL(request.url ?? '/', 'http://127.0.0.1').searchParams.get('ticket') ?? '';
    if (!tickets.delete(ticket)) {
      socket.end('HTTP/1.1 401 Unauthorized\r\n\r\n');
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => wss.emit('connection', ws));
  });
  wss.on('connection', (socket: WebSocket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('message', (data) => {
      const frame = JSON.parse(data.toString()) as Record<string, unknown>;
      received.push(frame);
      const headers = (frame['headers'] ?? {}) as Record<string, unknown>;
      if (headers['topic'] === 'ping') pongs.push(String(headers['messageId']));
      else if (typeof headers['messageId'] === 'string') {
        acks.set(headers['messageId'], frame);
        ackLog.push(headers['messageId']);
      }
    });
    if (redeliverOnConnect && last) socket.send(last);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  const push = (frame: string) => {
    for (const socket of sockets) socket.send(frame);
  };
  /** A stream frame of `type` and `topic` carrying `data`; returns its messageId. */
  const frame = (type: string, topic: string, data: string, remember = false): string => {
    const messageId = `frame-${++next}`;
    const text = JSON.stringify({
      specVersion: '1.0',
      type,
      headers: {
        appId: 'app-1',
        connectionId: 'conn-1',
        contentType: 'application/json',
        messageId,
        time: String(Date.now()),
        topic,
      },
      data,
    });
    if (remember) last = text;
    push(text);
    return messageId;
  };

  return {
    apiUrl: `http://127.0.0.1:${port}`,
    sent,
    received,
    acks,
    ackLog,
    pongs,
    uploads,
    connections: () => connections,
    openSockets: () => sockets.size,
    downloads: () => downloads,
    /** Serves `bytes` under a new download code. */
    file(bytes: Buffer): string {
      const code = `code-${++next}`;
      files.set(code, bytes);
      return code;
    },
    /** A robot-message callback; returns its stream messageId (what the ack names) and msgId. */
    message(message: FakeMessage): { messageId: string; msgId: string } {
      const msgId = message.msgId ?? `msg-${++next}`;
      const senderId = `$:LWCP_v1:$${message.staffId ?? `outsider-${next}`}`;
      const chat = message.group?.conversationId ?? message.staffId ?? senderId;
      const session = `session-${chat}`;
      sessions.set(session, chat);
      const msgtype = message.msgtype ?? 'text';
      const payload = {
        conversationId: message.group?.conversationId ?? `cid-private-${chat}`,
        conversationType: message.group ? '2' : '1',
        chatbotCorpId: 'corp-1',
        chatbotUserId: 'bot-user-1',
        msgId,
        senderNick: `nick of ${message.staffId ?? 'an outsider'}`,
        isAdmin: false,
        ...(message.staffId ? { senderStaffId: message.staffId } : {}),
        senderId,
        senderCorpId: 'corp-1',
        sessionWebhook:
          message.webhookUrl ??
          `http://127.0.0.1:${port}/robot/sendBySession?session=${encodeURIComponent(session)}`,
        sessionWebhookExpiredTime: Date.now() + (message.expiredWebhook ? -1000 : 90 * 60_000),
        createAt: Date.now(),
        robotCode: options.clientId,
        isInAtList: message.group?.atBot ?? false,
        msgtype,
        ...(msgtype === 'text' ? { text: { content: message.text ?? '' } } : {}),
        ...(message.content ? { content: message.content } : {}),
      };
      return { messageId: frame('CALLBACK', ROBOT_TOPIC, JSON.stringify(payload), true), msgId };
    },
    /** A frame of any type and topic (unknown topics, events). */
    frame,
    /** Raw text on the socket (malformed frames). */
    raw: push,
    /** A SYSTEM ping the client must answer with the same messageId. */
    ping: () => frame('SYSTEM', 'ping', JSON.stringify({ opaque: randomUUID() })),
    /** DingTalk's notice that it will move the connection. */
    systemDisconnect: () => frame('SYSTEM', 'disconnect', '{"reason":"server restart"}'),
    /** From now on each new connection first gets the last robot callback again. */
    redeliverLastOnConnect(): void {
      redeliverOnConnect = true;
    },
    disconnect(): void {
      for (const socket of sockets) socket.terminate();
    },
    close(): Promise<void> {
      for (const socket of sockets) socket.terminate();
      wss.close();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

export type FakeDingtalk = Awaited<ReturnType<typeof startFakeDingtalk>>;
