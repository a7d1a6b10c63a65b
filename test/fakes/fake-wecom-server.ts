/**
 * A fake WeCom AI-bot long connection on 127.0.0.1 (the SDK's `wsUrl` points here), speaking its JSON frames:
 * `aibot_subscribe` (bot id + secret) answered with an errcode, `ping` acked, callbacks pushed as
 * `aibot_msg_callback`, and replies (`aibot_respond_msg`) and proactive sends (`aibot_send_msg`) recorded and
 * acked by `req_id`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';

export interface WecomFrame {
  cmd?: string;
  headers: { req_id: string };
  body?: Record<string, unknown>;
  at: number;
}

export async function startFakeWecom(options: { botId: string; secret: string }) {
  const frames: WecomFrame[] = [];
  const sockets = new Set<WebSocket>();
  let subscribes = 0;
  let next = 0;
  const server = createServer();
  const wss = new WebSocketServer({ server });
  wss.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('message', (data) => {
      const frame = JSON.parse(data.toString()) as WecomFrame;
      frames.push({ ...frame, at: Date.now() });
      const reply = (errcode: number, errmsg = 'ok') =>
        socket.send(JSON.stringify({ headers: { req_id: frame.headers.req_id }, errcode, errmsg }));
      if (frame.cmd === 'aibot_subscribe') {
        subscribes++;
        const ok = frame.body?.['bot_id'] === options.botId && frame.body?.['secret'] === options.secret;
        reply(ok ? 0 : 40001, ok ? 'ok' : 'invalid secret');
      } else {
        reply(0);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    wsUrl: `ws://127.0.0.1:${port}`,
    frames,
    subscribes: () => subscribes,
    /** Frames Wren sent with `cmd` (`aibot_respond_msg`, `aibot_send_msg`). */
    sent: (cmd: string) => frames.filter((frame) => frame.cmd === cmd),
    /** A text message from `userid` (in a group when `chatid` is given); returns the callback's req_id. */
    text(message: { userid: string; content: string; chatid?: string; msgid?: string }): string {
      const reqId = `callback-${++next}`;
      const frame = {
        cmd: 'aibot_msg_callback',
        headers: { req_id: reqId },
        body: {
          msgid: message.msgid ?? `msg-${next}`,
          aibotid: options.botId,
          chattype: message.chatid ? 'group' : 'single',
          ...(message.chatid ? { chatid: message.chatid } : {}),
          from: { userid: message.userid },
          msgtype: 'text',
          text: { content: message.content },
        },
      };
      for (const socket of sockets) socket.send(JSON.stringify(frame));
      return reqId;
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

export type FakeWecom = Awaited<ReturnType<typeof startFakeWecom>>;
