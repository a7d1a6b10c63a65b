/**
 * A fake QQ bot platform (API v2) on 127.0.0.1, speaking its wire protocol: the token endpoint
 * (`POST /app/getAppAccessToken`), `GET /gateway`, the WebSocket gateway (Hello, Identify → READY,
 * heartbeats → ACK, Resume → replay + RESUMED, op 7 Reconnect and op 9 Invalid Session on request), the
 * message and rich-media endpoints of direct chats and groups, and attachment downloads. REST calls carry
 * `Authorization: QQBot <token>`; an expired or unknown token is answered 401 (and counted).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';

export interface QqCall {
  method: string;
  path: string;
  body: Record<string, unknown>;
  token: string | undefined;
}

interface Dispatch {
  s: number;
  t: string;
  d: unknown;
}

export interface FakeQqOptions {
  appId: string;
  appSecret: string;
  /** Seconds each token lives (as the string QQ sends). Default 7200. */
  tokenLife?: number;
  /** Hello's heartbeat_interval in ms. Default 45000. */
  heartbeatInterval?: number;
}

export async function startFakeQq(options: FakeQqOptions) {
  const calls: QqCall[] = [];
  const tokens = new Map<string, number>();
  const frames: Array<{ op: number; d: unknown }> = [];
  const log: Dispatch[] = [];
  const sessions = new Set<string>();
  const files = new Map<string, Buffer>();
  const downloads: Array<{ path: string; authorization: string | undefined }> = [];
  let live: WebSocket | undefined;
  let sessionId: string | undefined;
  let seq = 0;
  let next = 0;
  let tokenRequests = 0;
  let refused = 0;
  let ackHeartbeats = true;
  let invalidateNextResume = false;
  let redeliverOnConnect: Dispatch | undefined;
  const server = createServer((request, response) => void route(request, response));
  const wss = new WebSocketServer({ server, path: '/websocket' });
  let base = '';

  const json = (response: ServerResponse, status: number, body: unknown): void => {
    response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };

  async function route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString();
    const path = request.url ?? '';
    if (request.method === 'GET' && files.has(path)) {
      downloads.push({ path, authorization: request.headers.authorization });
      return void response.writeHead(200, { 'content-type': 'image/png' }).end(files.get(path));
    }
    let body: Record<string, unknown> = {};
    try {
      body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      return json(response, 400, { code: 40001, message: 'bad json' });
    }
    if (path === '/app/getAppAccessToken') {
      tokenRequests++;
      if (body['appId'] !== options.appId || body['clientSecret'] !== options.appSecret)
        return json(response, 200, { code: 100016, message: 'invalid appid or secret' });
      const token = `token-${++next}`;
      const life = options.tokenLife ?? 7200;
      tokens.set(token, Date.now() + life * 1000);
      return json(response, 200, { access_token: token, expires_in: String(life) });
    }
    const token = /^QQBot (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    const call: QqCall = { method: request.method ?? 'GET', path, body, token };
    if (!token || (tokens.get(token) ?? 0) < Date.now()) {
      refused++;
      return json(response, 401, { code: 11244, message: 'token not exist or expire' });
    }
    calls.push(call);
    if (path === '/gateway') return json(response, 200, { url: `${base.replace('http', 'ws')}/websocket` });
    if (/^\/v2\/(users|groups)\/[^/]+\/files$/.test(path))
      return json(response, 200, { file_uuid: `uuid-${++next}`, file_info: `fileinfo-${next}`, ttl: 0 });
    if (/^\/v2\/(users|groups)\/[^/]+\/messages$/.test(path))
      return json(response, 200, { id: `sent-${++next}`, timestamp: new Date().toISOString() });
    return json(response, 404, { code: 404, message: 'not found' });
  }

  const dispatch = (socket: WebSocket, event: Dispatch) =>
    socket.send(JSON.stringify({ op: 0, s: event.s, t: event.t, d: event.d }));

  wss.on('connection', (socket) => {
    socket.send(JSON.stringify({ op: 10, d: { heartbeat_interval: options.heartbeatInterval ?? 45_000 } }));
    socket.on('close', () => {
      if (live === socket) live = undefined;
    });
    socket.on('message', (data) => {
      let frame: { op: number; d: Record<string, unknown> | number | null };
      try {
        frame = JSON.parse(data.toString());
      } catch {
        return;
      }
      frames.push(frame);
      const d = (frame.d ?? {}) as Record<string, unknown>;
      const authorized = () => {
        const token = /^QQBot (.+)$/.exec(String(d['token'] ?? ''))?.[1];
        return token !== undefined && (tokens.get(token) ?? 0) >= Date.now();
      };
      if (frame.op === 1 && ackHeartbeats) socket.send(JSON.stringify({ op: 11 }));
      if (frame.op === 2) {
        if (!authorized()) return socket.close(4004, 'invalid token');
        if ((Number(d['intents']) & (1 << 25)) === 0) return socket.close(4014, 'intent not allowed');
        sessionId = `session-${++next}`;
        sessions.add(sessionId);
        live = socket;
        dispatch(socket, { s: ++seq, t: 'READY', d: { version: 1, session_id: sessionId, shard: [0, 1] } });
        afterConnect(socket);
      }
      if (frame.op === 6) {
        const known = typeof d['session_id'] === 'string' && sessions.has(d['session_id']);
        if (!authorized() || !known || invalidateNextResume) {
          invalidateNextResume = false;
          return socket.send(JSON.stringify({ op: 9, d: false }));
        }
        live = socket;
        const from = Number(d['seq']);
        for (const event of log) if (event.s > from) dispatch(socket, event);
        dispatch(socket, { s: ++seq, t: 'RESUMED', d: '' });
        afterConnect(socket);
      }
    });
  });

  const afterConnect = (socket: WebSocket) => {
    if (!redeliverOnConnect) return;
    const again = { ...redeliverOnConnect, s: ++seq };
    redeliverOnConnect = undefined;
    log.push(again);
    dispatch(socket, again);
  };

  /** Logs an event (with the next seq) and sends it to the live session, if one is up. */
  const emit = (t: string, d: unknown): Dispatch => {
    const event = { s: ++seq, t, d };
    log.push(event);
    if (live) dispatch(live, event);
    return event;
  };

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    apiBase: base,
    tokenUrl: `${base}/app/getAppAccessToken`,
    calls,
    /** Frames Wren sent on the gateway with `op`. */
    sent: (op: number) => frames.filter((frame) => frame.op === op),
    tokenRequests: () => tokenRequests,
    /** REST calls answered 401 for an expired or unknown token. */
    refused: () => refused,
    lastSeq: () => seq,
    connected: () => live !== undefined,
    downloads: () => downloads,
    /** Messages Wren sent to a user openid (or `group:<group_openid>`). */
    messagesTo(chat: string): Array<Record<string, unknown>> {
      const path = chat.startsWith('group:')
        ? `/v2/groups/${chat.slice(6)}/messages`
        : `/v2/users/${chat}/messages`;
      return calls.filter((call) => call.path === path).map((call) => call.body);
    },
    textsTo(chat: string): string[] {
      return this.messagesTo(chat)
        .filter((body) => body['msg_type'] === 0)
        .map((body) => String(body['content']));
    },
    /** Serves `bytes` at a new path and returns its address. */
    serveFile(bytes: Buffer): string {
      const path = `/files/${++next}.png`;
      files.set(path, bytes);
      return `${base}${path}`;
    },
    /** A direct message from `openid`; returns the event (its `d.id` is the message id). */
    c2c(message: { openid: string; content: string; id?: string; attachments?: unknown[] }): Dispatch {
      return emit('C2C_MESSAGE_CREATE', {
        id: message.id ?? `msg-${++next}`,
        author: { user_openid: message.openid },
        content: message.content,
        timestamp: new Date().toISOString(),
        ...(message.attachments ? { attachments: message.attachments } : {}),
      });
    },
    /** A group message @mentioning the bot (QQ leaves the space after the cut-out mention). */
    group(message: { group: string; member: string; content: string }): Dispatch {
      return emit('GROUP_AT_MESSAGE_CREATE', {
        id: `msg-${++next}`,
        author: { member_openid: message.member },
        group_openid: message.group,
        content: ` ${message.content}`,
        timestamp: new Date().toISOString(),
      });
    },
    /** Any dispatch (an unknown event type, a malformed payload). */
    emit,
    /** A raw text frame on the live connection (malformed JSON and the like). */
    raw(text: string): void {
      live?.send(text);
    },
    /** The next Identify or Resume is followed by this event again, under a new seq (a redelivery). */
    redeliverOnConnect(event: Dispatch): void {
      redeliverOnConnect = event;
    },
    /** Stops (or resumes) acknowledging heartbeats. */
    ackHeartbeats(on: boolean): void {
      ackHeartbeats = on;
    },
    /** The next Resume is answered with op 9 Invalid Session. */
    invalidateNextResume(): void {
      invalidateNextResume = true;
    },
    /** Asks the client to reconnect (op 7). */
    requestReconnect(): void {
      live?.send(JSON.stringify({ op: 7 }));
    },
    /** Drops the connection without a close frame. */
    drop(): void {
      for (const socket of wss.clients) socket.terminate();
      live = undefined;
    },
    close(): Promise<void> {
      for (const socket of wss.clients) socket.terminate();
      wss.close();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

export type FakeQq = Awaited<ReturnType<typeof startFakeQq>>;
