/**
 * A fake Feishu/Lark open platform on 127.0.0.1 for channel tests (the SDK's `domain` points here): the
 * long-connection endpoint lookup (`POST /callback/ws/endpoint`), the WebSocket speaking the SDK's protobuf
 * frames (pbbp2.Frame: control ping/pong, data frames carrying event JSON, the client's `{code}` answers),
 * the tenant token, and the IM REST calls (`/open-apis/im/v1/messages`) recorded.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import protobuf from 'protobufjs';
import { type WebSocket, WebSocketServer } from 'ws';

export const FEISHU_BOT_OPEN_ID = 'ou_bot00000000000000000000000000001';

const root = protobuf.Root.fromJSON({
  nested: {
    pbbp2: {
      nested: {
        Header: { fields: { key: { type: 'string', id: 1 }, value: { type: 'string', id: 2 } } },
        Frame: {
          fields: {
            SeqID: { type: 'uint64', id: 1 },
            LogID: { type: 'uint64', id: 2 },
            service: { type: 'int32', id: 3 },
            method: { type: 'int32', id: 4 },
            headers: { rule: 'repeated', type: 'Header', id: 5 },
            payloadEncoding: { type: 'string', id: 6 },
            payloadType: { type: 'string', id: 7 },
            payload: { type: 'bytes', id: 8 },
            LogIDNew: { type: 'string', id: 9 },
          },
        },
      },
    },
  },
});
const Frame = root.lookupType('pbbp2.Frame');

export interface FeishuCall {
  route: string;
  query: Record<string, string>;
  body: Record<string, unknown>;
  at: number;
}

/** Frames the client answered (the event's message id and the JSON it sent back, `data` decoded). */
export interface FeishuAnswer {
  messageId: string;
  payload: Record<string, unknown>;
}

export async function startFakeFeishu(options: { appId: string; appSecret: string }) {
  const calls: FeishuCall[] = [];
  const answers: FeishuAnswer[] = [];
  const sockets = new Set<WebSocket>();
  const failures = new Map<string, Array<{ status: number; retryAfter: number }>>();
  const resources = new Map<string, Buffer>();
  let connections = 0;
  let next = 0;

  const readBody = async (request: IncomingMessage) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString();
    try {
      return JSON.parse(raw || '{}') as Record<string, unknown>;
    } catch {
      return {};
    }
  };

  const server = createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? '/', 'http://x');
      const body = await readBody(request);
      const route = `${request.method} ${url.pathname.replace(/\/om_[\w]+/, '/:message_id').replace(/\/resources\/[\w-]+$/, '/resources/:file_key')}`;
      calls.push({ route, query: Object.fromEntries(url.searchParams), body, at: Date.now() });
      const json = (value: unknown) =>
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      if (route === 'POST /callback/ws/endpoint') {
        if (body['AppID'] !== options.appId || body['AppSecret'] !== options.appSecret)
          return json({ code: 1000040351, msg: 'invalid app_id or app_secret', data: {} });
        return json({
          code: 0,
          data: {
            URL: `ws://127.0.0.1:${port}/ws?device_id=dev-${++connections}&service_id=7`,
            ClientConfig: { PingInterval: 120, ReconnectCount: -1, ReconnectInterval: 1, ReconnectNonce: 0 },
          },
        });
      }
      if (route === 'POST /open-apis/auth/v3/tenant_access_token/internal')
        return json({ code: 0, msg: 'ok', tenant_access_token: 't-fake', expire: 7200 });
      if (route === 'GET /open-apis/bot/v3/info')
        return json({ code: 0, msg: 'ok', bot: { open_id: FEISHU_BOT_OPEN_ID, app_name: 'Wren' } });
      if (request.headers.authorization !== 'Bearer t-fake')
        return json({ code: 99991663, msg: 'invalid token' });
      const failure = failures.get(route)?.shift();
      if (failure) {
        response
          .writeHead(failure.status, {
            'content-type': 'application/json',
            'retry-after': String(failure.retryAfter),
          })
          .end(JSON.stringify({ code: 99991400, msg: 'request trigger frequency limit' }));
        return;
      }
      if (route === 'GET /open-apis/im/v1/messages/:message_id/resources/:file_key') {
        const bytes = resources.get(url.pathname.split('/').pop() ?? '');
        if (!bytes) return json({ code: 234003, msg: 'file not found' });
        response.writeHead(200, { 'content-type': 'application/octet-stream' }).end(bytes);
        return;
      }
      if (route === 'POST /open-apis/im/v1/images')
        return json({ code: 0, msg: 'ok', data: { image_key: `img_up${++next}` } });
      if (route === 'POST /open-apis/im/v1/files')
        return json({ code: 0, msg: 'ok', data: { file_key: `file_up${++next}` } });
      if (route === 'POST /open-apis/im/v1/messages')
        return json({
          code: 0,
          msg: 'ok',
          data: { message_id: `om_${++next}`, chat_id: body['receive_id'] },
        });
      return json({ code: 0, msg: 'ok', data: {} });
    })();
  });

  const wss = new WebSocketServer({ server });
  wss.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('message', (data) => {
      const frame = Frame.toObject(Frame.decode(new Uint8Array(data as Buffer))) as {
        method: number;
        headers: Array<{ key: string; value: string }>;
        payload?: Uint8Array;
      };
      const header = (key: string) => frame.headers.find((item) => item.key === key)?.value ?? '';
      if (frame.method === 0 && header('type') === 'ping') {
        const pong = { PingInterval: 120, ReconnectCount: -1, ReconnectInterval: 1, ReconnectNonce: 0 };
        socket.send(encode(0, [{ key: 'type', value: 'pong' }], pong));
      } else if (frame.method === 1 && frame.payload) {
        const payload = JSON.parse(Buffer.from(frame.payload).toString()) as Record<string, unknown>;
        // A handler's result travels base64-encoded in `data` (a card action's toast, for one).
        if (typeof payload['data'] === 'string')
          payload['data'] = JSON.parse(Buffer.from(payload['data'], 'base64').toString());
        answers.push({ messageId: header('message_id'), payload });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  const encode = (method: number, headers: Array<{ key: string; value: string }>, payload: unknown) =>
    Frame.encode(
      Frame.create({
        SeqID: 0,
        LogID: 0,
        service: 7,
        method,
        headers,
        payload: Buffer.from(JSON.stringify(payload)),
      }),
    ).finish();

  const event = (type: string, body: Record<string, unknown>) => {
    const id = `evt-${++next}`;
    const payload = {
      schema: '2.0',
      header: {
        event_id: id,
        event_type: type,
        create_time: String(Date.now()),
        token: '',
        app_id: options.appId,
        tenant_key: 't1',
      },
      event: body,
    };
    const frame = encode(
      1,
      [
        { key: 'type', value: 'event' },
        { key: 'message_id', value: id },
        { key: 'sum', value: '1' },
        { key: 'seq', value: '0' },
        { key: 'trace_id', value: `trace-${id}` },
      ],
      payload,
    );
    for (const socket of sockets) socket.send(frame);
    return id;
  };

  return {
    domain: `http://127.0.0.1:${port}`,
    calls,
    answers,
    connections: () => connections,
    /** Messages Wren created in `receiveId` (chat or open id), with their msg_type and parsed content. */
    created: (receiveId: string) =>
      calls
        .filter(
          (call) => call.route === 'POST /open-apis/im/v1/messages' && call.body['receive_id'] === receiveId,
        )
        .map((call) => ({
          type: String(call.body['msg_type']),
          content: JSON.parse(String(call.body['content'])) as Record<string, unknown>,
          at: call.at,
        })),
    /** A text message in chat `chatId` from `openId` (`group` with mentions when given); returns its message id. */
    text(message: {
      openId: string;
      chatId: string;
      text: string;
      group?: boolean;
      mentionBot?: boolean;
      messageId?: string;
    }): string {
      const messageId = message.messageId ?? `om_in${++next}`;
      const mentions = message.mentionBot
        ? [{ key: '@_user_1', id: { open_id: FEISHU_BOT_OPEN_ID }, name: 'Wren' }]
        : [];
      event('im.message.receive_v1', {
        sender: { sender_id: { open_id: message.openId }, sender_type: 'user', tenant_key: 't1' },
        message: {
          message_id: messageId,
          create_time: String(Date.now()),
          chat_id: message.chatId,
          chat_type: message.group ? 'group' : 'p2p',
          message_type: 'text',
          content: JSON.stringify({ text: `${message.mentionBot ? '@_user_1 ' : ''}${message.text}` }),
          mentions,
        },
      });
      return messageId;
    },
    /** Serves `bytes` as the resource `key` of any message (an image_key or file_key). */
    addResource(key: string, bytes: Buffer): void {
      resources.set(key, bytes);
    },
    /** An image or file message from `openId` in a direct chat; returns its message id. */
    media(message: {
      openId: string;
      chatId: string;
      type: 'image' | 'file' | 'audio';
      key: string;
      name?: string;
    }): string {
      const messageId = `om_in${++next}`;
      const content =
        message.type === 'image'
          ? { image_key: message.key }
          : message.type === 'audio'
            ? { file_key: message.key, duration: 4000 }
            : { file_key: message.key, file_name: message.name ?? 'file' };
      event('im.message.receive_v1', {
        sender: { sender_id: { open_id: message.openId }, sender_type: 'user', tenant_key: 't1' },
        message: {
          message_id: messageId,
          create_time: String(Date.now()),
          chat_id: message.chatId,
          chat_type: 'p2p',
          message_type: message.type,
          content: JSON.stringify(content),
          mentions: [],
        },
      });
      return messageId;
    },
    /** A click on a card button whose callback value is `{action}`; returns the event id. */
    click(openId: string, action: string): string {
      return event('card.action.trigger', {
        operator: { open_id: openId },
        token: 'c-1',
        action: { tag: 'button', value: { action } },
        context: { open_message_id: 'om_card', open_chat_id: 'oc_x' },
      });
    },
    /** The next calls of `route` (`POST /open-apis/im/v1/messages`) fail as given. */
    failNext(route: string, ...list: Array<{ status: number; retryAfter: number }>): void {
      failures.set(route, [...(failures.get(route) ?? []), ...list]);
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

export type FakeFeishu = Awaited<ReturnType<typeof startFakeFeishu>>;
