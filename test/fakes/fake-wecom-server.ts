/**
 * A fake WeCom AI-bot long connection on 127.0.0.1 (the SDK's `wsUrl` points here), speaking its JSON frames:
 * `aibot_subscribe` (bot id + secret) answered with an errcode, `ping` acked, callbacks pushed as
 * `aibot_msg_callback`, and replies (`aibot_respond_msg`) and proactive sends (`aibot_send_msg`) recorded and
 * acked by `req_id`.
 */
import { createCipheriv, randomBytes } from 'node:crypto';
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
  let downloads = 0;
  let next = 0;
  const files = new Map<string, { bytes: Buffer; name: string }>();
  // Files are served encrypted, as WeCom does: AES-256-CBC, IV = the key's first 16 bytes, PKCS#7 to 32 bytes.
  const server = createServer((request, response) => {
    const file = files.get(request.url ?? '');
    if (!file) return void response.writeHead(404).end();
    downloads++;
    response
      .writeHead(200, { 'content-disposition': `attachment; filename="${encodeURIComponent(file.name)}"` })
      .end(file.bytes);
  });
  const encrypt = (plain: Buffer) => {
    const key = randomBytes(32);
    const pad = 32 - (plain.length % 32);
    const cipher = createCipheriv('aes-256-cbc', key, key.subarray(0, 16));
    cipher.setAutoPadding(false);
    const bytes = Buffer.concat([
      cipher.update(Buffer.concat([plain, Buffer.alloc(pad, pad)])),
      cipher.final(),
    ]);
    return { bytes, aeskey: key.toString('base64') };
  };
  const wss = new WebSocketServer({ server });
  wss.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('message', (data) => {
      const frame = JSON.parse(data.toString()) as WecomFrame;
      frames.push({ ...frame, at: Date.now() });
      const reply = (errcode: number, errmsg = 'ok', body?: Record<string, unknown>) =>
        socket.send(
          JSON.stringify({
            headers: { req_id: frame.headers.req_id },
            errcode,
            errmsg,
            ...(body ? { body } : {}),
          }),
        );
      if (frame.cmd === 'aibot_subscribe') {
        subscribes++;
        const ok = frame.body?.['bot_id'] === options.botId && frame.body?.['secret'] === options.secret;
        reply(ok ? 0 : 40001, ok ? 'ok' : 'invalid secret');
      } else if (frame.cmd === 'aibot_upload_media_init') {
        reply(0, 'ok', { upload_id: `upload-${++next}` });
      } else if (frame.cmd === 'aibot_upload_media_finish') {
        reply(0, 'ok', { media_id: `media-${++next}`, type: 'file' });
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
    /** An image (`kind: 'image'`) or file message from `userid`, its bytes served encrypted; returns its req_id. */
    attachment(message: { userid: string; kind: 'image' | 'file'; bytes: Buffer; name?: string }): string {
      const { bytes, aeskey } = encrypt(message.bytes);
      const path = `/files/${++next}`;
      files.set(path, { bytes, name: message.name ?? 'file' });
      const reqId = `callback-${++next}`;
      const frame = {
        cmd: 'aibot_msg_callback',
        headers: { req_id: reqId },
        body: {
          msgid: `msg-${next}`,
          aibotid: options.botId,
          chattype: 'single',
          from: { userid: message.userid },
          msgtype: message.kind,
          [message.kind]: { url: `http://127.0.0.1:${port}${path}`, aeskey },
        },
      };
      for (const socket of sockets) socket.send(JSON.stringify(frame));
      return reqId;
    },
    /** How many encrypted files were fetched. */
    downloads: () => downloads,
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
