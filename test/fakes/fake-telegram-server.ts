/**
 * A fake Telegram Bot API on 127.0.0.1 for channel tests, speaking the real wire format (grammY's `apiRoot`
 * points here): `POST /bot<token>/<method>` with JSON or multipart bodies, `{ok, result}` answers, errors as
 * `{ok: false, error_code, description, parameters: {retry_after}}`, long-polled `getUpdates`, and file
 * downloads at `/file/bot<token>/<path>` (counted: `fileRequests()`).
 *
 * ```ts
 * const telegram = await startFakeTelegram({ token: '123:abc' });
 * telegram.pushMessage({ from: 42, text: 'hi' });   // an update from user 42 in their DM
 * await telegram.waitFor((call) => call.method === 'sendMessage');
 * telegram.failNext('sendMessage', { status: 429, retryAfter: 1 });
 * telegram.disconnect();                            // drops every open connection (getUpdates fails)
 * ```
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export const BOT = { id: 999_000, is_bot: true, first_name: 'Wren', username: 'WrenTestBot' };

export interface ApiCall {
  method: string;
  /** The JSON body, or for multipart bodies the text fields. */
  body: Record<string, unknown>;
  /** Raw byte length of the body (multipart uploads). */
  bytes: number;
  at: number;
}

interface Failure {
  status: number;
  description?: string;
  retryAfter?: number;
}

export interface FakeMessage {
  from: number;
  /** The sender's first name (default `User<id>`). */
  firstName?: string;
  /** Default: the sender's DM (chat id = user id). */
  chat?: number;
  chatType?: 'private' | 'group' | 'supergroup';
  text?: string;
  caption?: string;
  messageId?: number;
  entities?: Array<{ type: string; offset: number; length: number }>;
  replyTo?: { messageId: number; fromBot: boolean; text: string };
  photo?: { fileId: string; size: number };
  document?: { fileId: string; name: string; size: number };
  voice?: { fileId: string; seconds: number; size: number };
}

export async function startFakeTelegram(options: { token: string }) {
  const calls: ApiCall[] = [];
  const updates: Array<Record<string, unknown>> = [];
  const failures = new Map<string, Failure[]>();
  const files = new Map<string, Buffer>();
  /** Paths asked for at the file endpoint, in order (served or not). */
  const fileRequests: string[] = [];
  const waiters = new Set<() => void>();
  const sockets = new Set<Socket>();
  let nextUpdate = 1;
  let nextMessage = 1000;
  let refusing = false;

  const notify = () => {
    for (const wake of [...waiters]) wake();
  };

  const reply = (response: ServerResponse, status: number, body: unknown) => {
    response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };

  const readBody = async (request: IncomingMessage) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const type = request.headers['content-type'] ?? '';
    if (type.includes('application/json'))
      return { body: JSON.parse(raw.toString() || '{}'), bytes: raw.length };
    const body: Record<string, unknown> = {};
    // multipart: keep the plain text fields (chat_id, caption…); file parts are only counted.
    for (const match of raw.toString('latin1').matchAll(/name="([^"]+)"\r\n\r\n([^\r]*)\r\n/g))
      body[match[1]!] = match[2];
    return { body, bytes: raw.length };
  };

  const longPoll = async (offset: number, timeoutSeconds: number, request: IncomingMessage) => {
    const pending = () => updates.filter((update) => (update['update_id'] as number) >= offset);
    if (pending().length === 0 && timeoutSeconds > 0) {
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          waiters.delete(done);
          resolve();
        };
        const timer = setTimeout(done, Math.min(timeoutSeconds, 2) * 1000);
        waiters.add(done);
        request.once('close', done);
      });
    }
    return pending();
  };

  const server = createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? '/', 'http://x');
      const file = /^\/file\/bot([^/]+)\/(.+)$/.exec(url.pathname);
      if (file) {
        fileRequests.push(file[2]!);
        notify();
        const bytes = file[1] === options.token ? files.get(file[2]!) : undefined;
        if (!bytes) return void response.writeHead(404).end();
        return void response.writeHead(200, { 'content-length': bytes.length }).end(bytes);
      }
      const match = /^\/bot([^/]+)\/(\w+)$/.exec(url.pathname);
      if (!match) return reply(response, 404, { ok: false, error_code: 404, description: 'Not Found' });
      const { body, bytes } = await readBody(request);
      if (match[1] !== options.token)
        return reply(response, 401, { ok: false, error_code: 401, description: 'Unauthorized' });
      const method = match[2]!;
      calls.push({ method, body, bytes, at: Date.now() });
      notify();
      const failure = failures.get(method)?.shift();
      if (failure) {
        return reply(response, failure.status, {
          ok: false,
          error_code: failure.status,
          description:
            failure.description ??
            (failure.status === 429
              ? `Too Many Requests: retry after ${failure.retryAfter}`
              : 'Internal Server Error'),
          ...(failure.retryAfter !== undefined ? { parameters: { retry_after: failure.retryAfter } } : {}),
        });
      }
      const ok = (result: unknown) => reply(response, 200, { ok: true, result });
      const message = () => ({
        message_id: nextMessage++,
        date: Math.floor(Date.now() / 1000),
        chat: { id: Number(body['chat_id']), type: 'private' },
        from: BOT,
        text: body['text'],
      });
      switch (method) {
        case 'getMe':
          return ok(BOT);
        case 'getUpdates':
          return ok(await longPoll(Number(body['offset'] ?? 0), Number(body['timeout'] ?? 0), request));
        case 'sendMessage':
        case 'sendDocument':
        case 'sendPhoto':
          return ok(message());
        case 'editMessageText':
          return ok({ ...message(), message_id: Number(body['message_id']) });
        case 'getFile':
          return ok({
            file_id: body['file_id'],
            file_unique_id: 'u',
            file_path: `files/${String(body['file_id'])}`,
            ...(files.has(`files/${String(body['file_id'])}`)
              ? { file_size: files.get(`files/${String(body['file_id'])}`)!.length }
              : {}),
          });
        default:
          return ok(true);
      }
    })().catch((error: unknown) => {
      if (!response.headersSent)
        reply(response, 500, { ok: false, error_code: 500, description: String(error) });
    });
  });
  server.on('connection', (socket) => {
    if (refusing) {
      socket.destroy();
      return;
    }
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  const push = (update: Record<string, unknown>) => {
    const id = nextUpdate++;
    updates.push({ update_id: id, ...update });
    notify();
    return id;
  };

  return {
    apiRoot: `http://127.0.0.1:${port}`,
    calls,
    /** Calls of one method, in order. */
    sent: (method = 'sendMessage') => calls.filter((call) => call.method === method),
    /** Queues an incoming message; returns its message id. */
    pushMessage(message: FakeMessage): number {
      const messageId = message.messageId ?? nextMessage++;
      const chat = message.chat ?? message.from;
      push({
        message: {
          message_id: messageId,
          date: Math.floor(Date.now() / 1000),
          chat: { id: chat, type: message.chatType ?? 'private' },
          from: { id: message.from, is_bot: false, first_name: message.firstName ?? `User${message.from}` },
          ...(message.text !== undefined ? { text: message.text } : {}),
          ...(message.caption !== undefined ? { caption: message.caption } : {}),
          ...(message.entities ? { entities: message.entities } : {}),
          ...(message.replyTo
            ? {
                reply_to_message: {
                  message_id: message.replyTo.messageId,
                  date: 0,
                  chat: { id: chat, type: message.chatType ?? 'private' },
                  from: message.replyTo.fromBot ? BOT : { id: 1, is_bot: false, first_name: 'Other' },
                  text: message.replyTo.text,
                },
              }
            : {}),
          ...(message.photo
            ? {
                photo: [
                  {
                    file_id: message.photo.fileId,
                    file_unique_id: 'p',
                    width: 10,
                    height: 10,
                    file_size: message.photo.size,
                  },
                ],
              }
            : {}),
          ...(message.voice
            ? {
                voice: {
                  file_id: message.voice.fileId,
                  file_unique_id: 'v',
                  duration: message.voice.seconds,
                  mime_type: 'audio/ogg',
                  file_size: message.voice.size,
                },
              }
            : {}),
          ...(message.document
            ? {
                document: {
                  file_id: message.document.fileId,
                  file_unique_id: 'd',
                  file_name: message.document.name,
                  file_size: message.document.size,
                },
              }
            : {}),
        },
      });
      return messageId;
    },
    /** Queues a button press (`callback_query`) by `from` on a message with `data`. */
    pushButton(from: number, data: string, chat = from): number {
      return push({
        callback_query: {
          id: `cb${nextUpdate}`,
          from: { id: from, is_bot: false, first_name: `User${from}` },
          chat_instance: 'ci',
          data,
          message: {
            message_id: 1,
            date: 0,
            chat: { id: chat, type: 'private' },
            from: BOT,
            text: 'question',
          },
        },
      });
    },
    /** Queues the update that carried message `messageId` again (a redelivery), under a new update id. */
    redeliver(messageId: number): void {
      const original = updates.find(
        (update) => (update['message'] as { message_id?: number } | undefined)?.message_id === messageId,
      );
      if (!original) throw new Error(`no update with message ${messageId}`);
      const { update_id: _, ...rest } = original;
      push(rest);
    },
    /** File paths downloaded (or tried) at `/file/bot<token>/…`, in order. */
    fileRequests: () => [...fileRequests],
    addFile(fileId: string, bytes: Buffer): void {
      files.set(`files/${fileId}`, bytes);
    },
    /** The next calls of `method` fail as given (in order). */
    failNext(method: string, ...list: Failure[]): void {
      failures.set(method, [...(failures.get(method) ?? []), ...list]);
    },
    /** Drops every open connection; with `refuseMs`, new ones are cut at once for that long. */
    disconnect(refuseMs = 0): void {
      refusing = refuseMs > 0;
      for (const socket of sockets) socket.destroy();
      if (refuseMs > 0) setTimeout(() => (refusing = false), refuseMs);
    },
    /** Resolves once a call matching `check` arrived (default timeout 10 s). */
    async waitFor(check: (call: ApiCall) => boolean, timeoutMs = 10_000): Promise<ApiCall> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = calls.find(check);
        if (found) return found;
        if (Date.now() > deadline)
          throw new Error(
            `no matching Telegram call in ${timeoutMs} ms; calls: ${calls.map((call) => call.method).join(', ')}`,
          );
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, 50);
          function done() {
            clearTimeout(timer);
            waiters.delete(done);
            resolve();
          }
          waiters.add(done);
        });
      }
    },
    close(): Promise<void> {
      for (const wake of [...waiters]) wake();
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

export type FakeTelegram = Awaited<ReturnType<typeof startFakeTelegram>>;
