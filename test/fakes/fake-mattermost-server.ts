/**
 * A fake Mattermost on 127.0.0.1 for channel tests, speaking the REST API v4 (bearer tokens, AppError
 * bodies `{id, message, status_code}`, 429 with `Retry-After`) — `/users/me`, `/posts`, `/posts/{id}/patch`,
 * `/channels/direct`, `/files` (multipart upload) and `/files/{id}` — and the WebSocket at
 * `/api/v4/websocket` (`authentication_challenge` answered by `seq_reply`, then `hello`, then `posted`
 * events with a JSON-encoded `post` and `seq` counting up per connection). A click on an interactive
 * button is relayed like the real server does: a POST of `{user_id, post_id, context}` to the action's
 * integration URL.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';

export const MM_BOT = { id: 'botuser0000000000000000001', username: 'wren' };

export interface MattermostCall {
  method: string;
  path: string;
  body: Record<string, unknown>;
  token: string;
  at: number;
  /** The id of the post a `POST /posts` created. */
  postId?: string;
}

let counter = 0;
/** A 26-character Mattermost id. */
export const mmId = (prefix: string) => `${prefix}${String(++counter).padStart(26 - prefix.length, '0')}`;

async function readRaw(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function startFakeMattermost(options: { token: string }) {
  const calls: MattermostCall[] = [];
  const failures = new Map<string, Array<{ status: number; retryAfter?: number }>>();
  const sockets = new Set<WebSocket>();
  const socketFrames: Array<Record<string, unknown>> = [];
  const posts = new Map<string, Record<string, unknown>>();
  const files = new Map<string, { name: string; bytes: Buffer; mime: string }>();
  const fileRequests: string[] = [];
  const uploads: Array<{ name: string; bytes: Buffer; channelId: string }> = [];
  const directs = new Map<string, string>();
  const seqs = new WeakMap<WebSocket, number>();
  let connections = 0;
  let lastEvent: string | undefined;

  const server = createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? '/', 'http://x');
      const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
        response
          .writeHead(status, { 'content-type': 'application/json', ...headers })
          .end(JSON.stringify(body));
      // Mattermost takes `Bearer` or `Token` in any case (Client4 sends `BEARER`).
      const token = (request.headers.authorization ?? '').replace(/^(bearer|token) /i, '');
      const raw = await readRaw(request);
      const type = request.headers['content-type'] ?? '';
      let body: Record<string, unknown> = {};
      if (type.includes('json') && raw.length) body = JSON.parse(raw.toString());
      const key = `${request.method} ${url.pathname}`;
      const call: MattermostCall = {
        method: request.method ?? '',
        path: url.pathname,
        body,
        token,
        at: Date.now(),
      };
      calls.push(call);
      if (token !== options.token)
        return json(401, {
          id: 'api.context.session_expired.app_error',
          message: 'Invalid or expired session, please login again.',
          status_code: 401,
        });
      const failure = [...failures.entries()].find(([pattern]) => key.startsWith(pattern))?.[1].shift();
      if (failure)
        return json(
          failure.status,
          { id: 'fake.failure', message: 'try later', status_code: failure.status },
          failure.retryAfter !== undefined ? { 'retry-after': String(failure.retryAfter) } : {},
        );
      const fileId = /^\/api\/v4\/files\/(\w+)$/.exec(url.pathname)?.[1];
      const patched = /^\/api\/v4\/posts\/(\w+)\/patch$/.exec(url.pathname)?.[1];
      if (request.method === 'GET' && url.pathname === '/api/v4/users/me')
        return json(200, { id: MM_BOT.id, username: MM_BOT.username, is_bot: true, roles: 'system_user' });
      if (request.method === 'GET' && fileId) {
        fileRequests.push(fileId);
        const file = files.get(fileId);
        if (!file)
          return json(404, { id: 'app.file_info.get.app_error', message: 'not found', status_code: 404 });
        return void response
          .writeHead(200, { 'content-type': file.mime, 'content-length': file.bytes.length })
          .end(file.bytes);
      }
      const channelPosts = /^\/api\/v4\/channels\/(\w+)\/posts$/.exec(url.pathname)?.[1];
      if (request.method === 'GET' && channelPosts) {
        const since = Number(url.searchParams.get('since') ?? 0);
        const found = [...posts.values()].filter(
          (post) =>
            post['channel_id'] === channelPosts && Number(post['update_at'] ?? post['create_at']) > since,
        );
        return json(200, {
          order: found.map((post) => post['id']).reverse(),
          posts: Object.fromEntries(found.map((post) => [post['id'], post])),
          next_post_id: '',
          prev_post_id: '',
        });
      }
      if (request.method === 'POST' && url.pathname === '/api/v4/channels/direct') {
        const ids = (JSON.parse(raw.toString()) as string[]).slice().sort();
        const id = directs.get(ids.join()) ?? mmId('dm');
        directs.set(ids.join(), id);
        return json(201, { id, type: 'D', name: ids.join('__') });
      }
      if (request.method === 'POST' && url.pathname === '/api/v4/posts') {
        const post = {
          ...body,
          id: mmId('p'),
          user_id: MM_BOT.id,
          create_at: Date.now(),
          root_id: body['root_id'] ?? '',
        };
        posts.set(post.id, post);
        call.postId = post.id;
        return json(201, post);
      }
      if (request.method === 'PUT' && patched) {
        const post = { ...(posts.get(patched) ?? { id: patched }), ...body };
        posts.set(patched, post);
        return json(200, post);
      }
      if (request.method === 'POST' && url.pathname === '/api/v4/files') {
        const form = await new Response(raw, { headers: { 'content-type': type } }).formData();
        const file = form.get('files') as File;
        const bytes = Buffer.from(await file.arrayBuffer());
        const id = mmId('f');
        uploads.push({ name: file.name, bytes, channelId: String(form.get('channel_id')) });
        files.set(id, { name: file.name, bytes, mime: 'application/octet-stream' });
        return json(201, { file_infos: [{ id, name: file.name, size: bytes.length }], client_ids: [] });
      }
      return json(404, { id: 'api.context.404.app_error', message: 'not found', status_code: 404 });
    })().catch(() => response.writeHead(500).end());
  });
  const wss = new WebSocketServer({ server, path: '/api/v4/websocket' });
  wss.on('connection', (socket) => {
    connections++;
    socket.on('message', (data) => {
      const frame = JSON.parse(data.toString()) as {
        seq: number;
        action: string;
        data?: Record<string, unknown>;
      };
      socketFrames.push(frame);
      if (frame.action === 'authentication_challenge') {
        if (frame.data?.['token'] !== options.token) return socket.close(1008, 'auth');
        socket.send(JSON.stringify({ status: 'OK', seq_reply: frame.seq }));
        sockets.add(socket);
        seqs.set(socket, 1);
        socket.send(
          JSON.stringify({
            event: 'hello',
            data: { connection_id: `c${connections}`, server_version: '11.9.0' },
            broadcast: {},
            seq: 0,
          }),
        );
      } else
        socket.send(
          JSON.stringify({
            status: 'OK',
            seq_reply: frame.seq,
            data: frame.action === 'ping' ? { text: 'pong' } : {},
          }),
        );
    });
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  /** Sends one event to every authenticated socket, numbered in each socket's own sequence. */
  const event = (name: string, data: Record<string, unknown>, broadcast: Record<string, unknown> = {}) => {
    for (const socket of sockets) {
      const seq = seqs.get(socket) ?? 1;
      seqs.set(socket, seq + 1);
      const frame = JSON.stringify({ event: name, data, broadcast, seq });
      if (name === 'posted') lastEvent = JSON.stringify({ event: name, data, broadcast });
      socket.send(frame);
    }
  };

  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    socketFrames,
    connections: () => connections,
    openSockets: () => sockets.size,
    uploads: () => uploads,
    fileRequests: () => [...fileRequests],
    post: (id: string) => posts.get(id),
    /** Serves `bytes` as an uploaded file; returns the info to attach to a post. */
    file(name: string, bytes: Buffer, mime: string, size = bytes.length) {
      const id = mmId('f');
      files.set(id, { name, bytes, mime });
      return { id, name, mime_type: mime, size };
    },
    /** A user's post: a DM (`channelType` D) or in a channel; returns the post id. */
    message(input: {
      user: string;
      channel: string;
      text: string;
      channelType?: 'D' | 'O' | 'P' | 'G';
      id?: string;
      rootId?: string;
      files?: Array<{ id: string; name: string; mime_type: string; size: number }>;
      mentions?: string[];
      props?: Record<string, unknown>;
      type?: string;
      /** Posted while no WebSocket is open: kept (readable through the REST API), no event. */
      offline?: boolean;
    }): string {
      const id = input.id ?? mmId('p');
      const post = {
        id,
        create_at: Date.now(),
        update_at: Date.now(),
        user_id: input.user,
        channel_id: input.channel,
        root_id: input.rootId ?? '',
        message: input.text,
        type: input.type ?? '',
        props: input.props ?? {},
        file_ids: (input.files ?? []).map((file) => file.id),
        metadata: input.files ? { files: input.files } : {},
      };
      posts.set(id, post);
      if (input.offline) return id;
      event(
        'posted',
        {
          channel_type: input.channelType ?? 'D',
          channel_name: 'x',
          sender_name: `@user-${input.user.slice(-4)}`,
          post: JSON.stringify(post),
          ...(input.mentions ? { mentions: JSON.stringify(input.mentions) } : {}),
        },
        { channel_id: input.channel },
      );
      return id;
    },
    /** Any event, hostile ones too. */
    event,
    /** A raw text frame on every socket (not even JSON, if so wanted). */
    frame(text: string): void {
      for (const socket of sockets) socket.send(text);
    },
    /** The last `posted` event again, with the next sequence number (as after a resumed connection). */
    redeliver(): void {
      if (!lastEvent) throw new Error('nothing was posted yet');
      const { data, broadcast } = JSON.parse(lastEvent) as {
        data: Record<string, unknown>;
        broadcast: Record<string, unknown>;
      };
      event('posted', data, broadcast);
    },
    /** A click on the button `actionId` of Wren's post `postId`, relayed as the real server does. */
    async click(
      user: string,
      postId: string,
      actionId: string,
    ): Promise<{ status: number; body: Record<string, unknown> }> {
      const post = posts.get(postId);
      const attachments = ((post?.['props'] as { attachments?: unknown[] } | undefined)?.attachments ??
        []) as Array<{
        actions?: Array<{ id: string; integration: { url: string; context: unknown } }>;
      }>;
      const action = attachments.flatMap((item) => item.actions ?? []).find((item) => item.id === actionId);
      if (!action) throw new Error(`post ${postId} has no button ${actionId}`);
      const response = await fetch(action.integration.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          user_id: user,
          user_name: user,
          channel_id: post?.['channel_id'],
          post_id: postId,
          trigger_id: 't',
          type: '',
          context: action.integration.context,
        }),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    },
    failNext(prefix: string, ...list: Array<{ status: number; retryAfter?: number }>): void {
      failures.set(prefix, [...(failures.get(prefix) ?? []), ...list]);
    },
    /** Drops every WebSocket (the client must reconnect). */
    disconnect(): void {
      for (const socket of sockets) socket.terminate();
    },
    created: () => calls.filter((call) => call.method === 'POST' && call.path === '/api/v4/posts'),
    async waitFor(check: (call: MattermostCall) => boolean, timeoutMs = 10_000): Promise<MattermostCall> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = calls.find(check);
        if (found) return found;
        if (Date.now() > deadline)
          throw new Error(
            `no matching Mattermost call in ${timeoutMs} ms: ${calls.map((call) => `${call.method} ${call.path}`).join(', ')}`,
          );
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    close(): Promise<void> {
      for (const socket of sockets) socket.terminate();
      wss.close();
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

export type FakeMattermost = Awaited<ReturnType<typeof startFakeMattermost>>;
