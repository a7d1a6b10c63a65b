import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One event the fake puts in a room's timeline. */
export interface FakeMatrixEvent {
  type: string;
  sender: string;
  content: Record<string, unknown>;
  event_id: string;
  origin_server_ts: number;
  state_key?: string;
}

export interface FakeMatrix {
  readonly url: string;
  /** Every request path the client made, in order. */
  readonly paths: string[];
  /** Messages the client sent (PUT /send), with their room; a repeated txn id is stored once. */
  readonly sent: Array<{ roomId: string; type: string; eventId: string; content: Record<string, unknown> }>;
  /** Rooms the client joined (POST /join), in order. */
  readonly joined: string[];
  /** Invites the bot into a new room `roomId` from `inviter` (shown in /sync under rooms.invite). */
  invite(inviter: string, roomId: string): void;
  /** Puts a message from `sender` into the DM room with `sender` (created on first use). */
  message(sender: string, content: Record<string, unknown>, eventId?: string): string;
  /** Puts a raw event into `sender`'s DM room, or into the room `roomId` when given. */
  raw(sender: string, event: Partial<FakeMatrixEvent>, roomId?: string): void;
  /** Stores bytes as media; returns their mxc:// address. */
  upload(bytes: Buffer): string;
  /** Ends every open long-poll connection abruptly. */
  dropConnections(): void;
  close(): Promise<void>;
}

/**
 * A homeserver on 127.0.0.1 speaking the parts of the Matrix client-server API matrix-js-sdk uses: versions,
 * login, whoami, pushrules, filters (a sync's timeline limit is applied, `limited` set as a server does),
 * capabilities, /sync (since tokens = positions in one event log, long poll up to `timeout`), /messages
 * backwards from a sync's prev_batch, send with idempotent txn ids, join, and media upload/download.
 */
export async function startFakeMatrix(options: { token: string; userId: string }): Promise<FakeMatrix> {
  const log: Array<{ roomId: string; event: FakeMatrixEvent; invite?: true }> = [];
  const invites = new Map<string, string>();
  const joined: string[] = [];
  const rooms = new Map<string, string[]>();
  const txns = new Map<string, string>();
  const filters = new Map<string, string>();
  const media = new Map<string, Buffer>();
  const waiting = new Set<() => void>();
  const sockets = new Set<import('node:net').Socket>();
  const paths: string[] = [];
  const sent: FakeMatrix['sent'] = [];
  let counter = 0;

  const wake = () => {
    for (const resolve of [...waiting]) resolve();
  };
  const roomFor = (sender: string) => {
    const roomId = `!dm-${sender.replace(/[^a-z0-9]/gi, '')}:fake`;
    if (!rooms.has(roomId)) rooms.set(roomId, [options.userId, sender]);
    return roomId;
  };
  const push = (roomId: string, event: Partial<FakeMatrixEvent>) => {
    log.push({
      roomId,
      event: {
        type: 'm.room.message',
        sender: '@nobody:fake',
        content: {},
        event_id: `$e${++counter}`,
        origin_server_ts: Date.now(),
        ...event,
      },
    });
    wake();
  };
  const stateOf = (roomId: string): FakeMatrixEvent[] => {
    const members = rooms.get(roomId) ?? [];
    return [
      {
        type: 'm.room.create',
        sender: members[1] ?? options.userId,
        state_key: '',
        content: {},
        event_id: `$c-${roomId}`,
        origin_server_ts: 1,
      },
      ...members.map((member) => ({
        type: 'm.room.member',
        sender: member,
        state_key: member,
        content: { membership: 'join' },
        event_id: `$m-${roomId}-${member}`,
        origin_server_ts: 1,
      })),
    ];
  };

  /** The stripped state of an invite: the room's creation and the bot's membership, sent by the inviter. */
  const inviteState = (roomId: string, inviter: string) =>
    [
      { type: 'm.room.create', sender: inviter, state_key: '', content: {} },
      { type: 'm.room.member', sender: inviter, state_key: inviter, content: { membership: 'join' } },
      {
        type: 'm.room.member',
        sender: inviter,
        state_key: options.userId,
        content: { membership: 'invite' },
      },
    ].map((event) => ({
      ...event,
      event_id: `$i-${roomId}-${event.state_key}`,
      origin_server_ts: Date.now(),
    }));

  /** The timeline limit of a sync's filter (an id from POST /filter, or inline JSON), as a server applies it. */
  const timelineLimit = (url: URL): number => {
    const filter = url.searchParams.get('filter') ?? '';
    const body = filters.get(filter) ?? (filter.startsWith('{') ? filter : '{}');
    const limit = (JSON.parse(body) as { room?: { timeline?: { limit?: unknown } } }).room?.timeline?.limit;
    return typeof limit === 'number' && limit > 0 ? limit : Number.POSITIVE_INFINITY;
  };

  /** GET /messages backwards from `p<log index>`: the room's earlier events, newest first. */
  const messages = (roomId: string, url: URL, response: ServerResponse) => {
    const from = Number((url.searchParams.get('from') ?? `p${log.length}`).slice(1));
    const limit = Math.min(Number(url.searchParams.get('limit') ?? '10'), 100);
    const earlier = log
      .map((entry, index) => ({ entry, index }))
      .filter(({ entry, index }) => index < from && entry.roomId === roomId && !entry.invite);
    const page = earlier.slice(-limit).reverse();
    const oldest = page.at(-1)?.index;
    json(response, 200, {
      chunk: page.map(({ entry }) => entry.event),
      start: `p${from}`,
      ...(oldest !== undefined && earlier.length > page.length ? { end: `p${oldest}` } : {}),
    });
  };

  const sync = async (url: URL, response: ServerResponse) => {
    const since = Number(url.searchParams.get('since') ?? '0');
    const timeout = Math.min(Number(url.searchParams.get('timeout') ?? '0'), 30_000);
    if (since >= log.length && timeout > 0) {
      await new Promise<void>((resolve) => {
        const done = () => {
          waiting.delete(done);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(done, timeout);
        waiting.add(done);
      });
    }
    if (response.destroyed) return;
    const join: Record<string, unknown> = {};
    const limit = timelineLimit(url);
    for (const roomId of rooms.keys()) {
      const all = log
        .map((entry, index) => ({ entry, index }))
        .slice(since)
        .filter(({ entry }) => entry.roomId === roomId && !entry.invite);
      if (since > 0 && all.length === 0) continue;
      // As a homeserver does: at most `limit` events, `limited` when older ones were left for /messages.
      const shown = all.slice(-limit);
      join[roomId] = {
        state: { events: since === 0 ? stateOf(roomId) : [] },
        timeline: {
          events: shown.map(({ entry }) => entry.event),
          limited: shown.length < all.length,
          prev_batch: `p${shown[0]?.index ?? log.length}`,
        },
        ephemeral: { events: [] },
        account_data: { events: [] },
        unread_notifications: {},
        summary: since === 0 ? { 'm.joined_member_count': rooms.get(roomId)!.length } : {},
      };
    }
    const invite: Record<string, unknown> = {};
    for (const entry of log.slice(since).filter((item) => item.invite))
      invite[entry.roomId] = { invite_state: { events: inviteState(entry.roomId, entry.event.sender) } };
    json(response, 200, {
      next_batch: String(log.length),
      rooms: { join, invite, leave: {} },
      account_data: { events: [] },
    });
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://fake');
    const path = url.pathname;
    paths.push(`${request.method} ${path}`);
    const body = await readBody(request);
    if (path === '/_matrix/client/versions')
      return json(response, 200, { versions: ['v1.11'], unstable_features: {} });
    if (path === '/_matrix/client/v3/login' && request.method === 'POST')
      return json(response, 200, { access_token: options.token, user_id: options.userId, device_id: 'WREN' });
    const auth = request.headers.authorization ?? `Bearer ${url.searchParams.get('access_token') ?? ''}`;
    if (auth !== `Bearer ${options.token}`)
      return json(response, 401, { errcode: 'M_UNKNOWN_TOKEN', error: 'bad token' });
    if (path === '/_matrix/client/v3/account/whoami')
      return json(response, 200, { user_id: options.userId, device_id: 'WREN' });
    if (path === '/_matrix/client/v3/pushrules/') return json(response, 200, { global: {} });
    if (path === '/_matrix/client/v3/capabilities') return json(response, 200, { capabilities: {} });
    if (/\/user\/[^/]+\/filter$/.test(path)) {
      const id = String(filters.size + 1);
      filters.set(id, body.toString() || '{}');
      return json(response, 200, { filter_id: id });
    }
    const savedFilter = /\/user\/[^/]+\/filter\/([^/]+)$/.exec(path);
    if (savedFilter) {
      const saved = filters.get(decodeURIComponent(savedFilter[1]!));
      return saved
        ? json(response, 200, JSON.parse(saved))
        : json(response, 404, { errcode: 'M_NOT_FOUND', error: 'no such filter' });
    }
    const history = /^\/_matrix\/client\/v3\/rooms\/([^/]+)\/messages$/.exec(path);
    if (history && request.method === 'GET') return messages(decodeURIComponent(history[1]!), url, response);
    if (path === '/_matrix/client/v3/sync') return sync(url, response);
    const send = /^\/_matrix\/client\/v3\/rooms\/([^/]+)\/send\/([^/]+)\/([^/]+)$/.exec(path);
    if (send && request.method === 'PUT') {
      const [, room, type, txn] = send.map((part) => decodeURIComponent(part ?? ''));
      const key = `${room}|${txn}`;
      if (!txns.has(key)) {
        const eventId = `$s${++counter}`;
        txns.set(key, eventId);
        sent.push({ roomId: room!, type: type!, eventId, content: JSON.parse(body.toString() || '{}') });
      }
      return json(response, 200, { event_id: txns.get(key) });
    }
    if (/^\/_matrix\/client\/v3\/rooms\/[^/]+\/typing\/[^/]+$/.test(path) && request.method === 'PUT')
      return json(response, 200, {});
    const joinRoom = /^\/_matrix\/client\/v3\/(?:rooms\/([^/]+)\/join|join\/([^/]+))$/.exec(path);
    if (joinRoom && request.method === 'POST') {
      const roomId = decodeURIComponent(joinRoom[1] ?? joinRoom[2] ?? '');
      joined.push(roomId);
      const inviter = invites.get(roomId);
      if (inviter && !rooms.has(roomId)) rooms.set(roomId, [options.userId, inviter]);
      return json(response, 200, { room_id: roomId });
    }
    if (path === '/_matrix/media/v3/upload') {
      const id = `m${++counter}`;
      media.set(id, body);
      return json(response, 200, { content_uri: `mxc://fake/${id}` });
    }
    const download =
      /^\/_matrix\/(?:client\/v1|media\/v3)\/media\/download\/fake\/([^/]+)|^\/_matrix\/(?:client\/v1\/media|media\/v3)\/download\/fake\/([^/]+)/.exec(
        path,
      );
    const bytes = download ? media.get(download[1] ?? download[2] ?? '') : undefined;
    if (bytes) {
      response.writeHead(200, { 'content-type': 'application/octet-stream' });
      return response.end(bytes);
    }
    return json(response, 404, { errcode: 'M_UNRECOGNIZED', error: 'not here' });
  };

  const server = createServer((request, response) => {
    handle(request, response).catch(() => json(response, 500, { errcode: 'M_UNKNOWN' }));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    paths,
    sent,
    joined,
    invite(inviter, roomId) {
      invites.set(roomId, inviter);
      log.push({
        roomId,
        invite: true,
        event: {
          type: 'invite',
          sender: inviter,
          content: {},
          event_id: `$v${++counter}`,
          origin_server_ts: 0,
        },
      });
      wake();
    },
    message(sender, content, eventId) {
      const id = eventId ?? `$e${++counter}`;
      push(roomFor(sender), { sender, content, event_id: id });
      return id;
    },
    raw(sender, event, roomId) {
      push(roomId ?? roomFor(sender), { sender, ...event });
    },
    dropConnections() {
      for (const socket of sockets) socket.destroy();
    },
    upload(bytes: Buffer) {
      const id = `m${++counter}`;
      media.set(id, bytes);
      return `mxc://fake/${id}`;
    },
    async close() {
      wake();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function json(response: ServerResponse, status: number, body: unknown): void {
  if (response.headersSent || response.destroyed) return;
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
