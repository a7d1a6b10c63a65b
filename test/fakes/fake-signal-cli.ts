/**
 * A fake signal-cli daemon on 127.0.0.1 speaking its JSON-RPC 2.0 (signal-cli-jsonrpc(5)) in both modes:
 * `--http` (POST /api/v1/rpc, Server-Sent Events with ids on GET /api/v1/events that honour `Last-Event-ID`
 * and replay every kept event for an unknown id, GET /api/v1/check) and `--tcp` (one JSON object per line,
 * `receive` notifications pushed to every connection). Calls are recorded and answered like the daemon:
 * `send` with a timestamp, `getAttachment` with base64 `data`, unknown methods with error -32601.
 *
 * ```ts
 * const signal = await startFakeSignalCli({ account: '+15550100001' });
 * signal.message({ from: OWNER, text: 'hi' });                  // a DM envelope on the event stream
 * await signal.waitFor((call) => call.method === 'send');
 * ```
 */
import { randomUUID } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import { type AddressInfo, createServer as createTcpServer, type Socket } from 'node:net';

export interface SignalPerson {
  number?: string;
  uuid: string;
  name?: string;
}

export interface SignalCall {
  method: string;
  params: Record<string, unknown>;
  transport: 'http' | 'tcp';
  /** For `send`: the timestamp it was answered with (what a reaction to that message points at). */
  sentAt?: number;
}

interface KeptEvent {
  id: string;
  data: string;
}

export async function startFakeSignalCli(options: { account: string; accountUuid?: string }) {
  const calls: SignalCall[] = [];
  const kept: KeptEvent[] = [];
  const streams = new Set<ServerResponse>();
  const sockets = new Set<Socket>();
  const attachments = new Map<string, Buffer>();
  let eventCounter = 0;
  let streamsOpened = 0;
  let clock = 1_760_000_000_000;
  let downloads = 0;
  const accountUuid = options.accountUuid ?? 'a0000000-0000-4000-8000-000000000001';

  const answer = (method: string, params: Record<string, unknown>) => {
    if (method === 'send') return { result: { timestamp: ++clock, results: [] } };
    if (method === 'getAttachment') {
      const bytes = attachments.get(String(params['id']));
      if (!bytes)
        return { error: { code: -1, message: `Could not find attachment with ID: ${params['id']}` } };
      downloads++;
      return { result: { data: bytes.toString('base64') } };
    }
    if (method === 'version') return { result: { version: '0.13.22' } };
    if (method === 'listGroups') return { result: [] };
    if (['sendTyping', 'sendReceipt', 'sendReaction'].includes(method)) return { result: {} };
    return { error: { code: -32601, message: 'Method not implemented' } };
  };

  const handle = (raw: string, transport: 'http' | 'tcp') => {
    let request: { id?: unknown; method?: unknown; params?: Record<string, unknown> };
    try {
      request = JSON.parse(raw);
    } catch {
      return { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } };
    }
    const method = String(request.method ?? '');
    const params = request.params ?? {};
    const answered = answer(method, params);
    const sentAt = method === 'send' ? (answered.result as { timestamp: number }).timestamp : undefined;
    calls.push({ method, params, transport, ...(sentAt ? { sentAt } : {}) });
    return { jsonrpc: '2.0', id: request.id ?? null, ...answered };
  };

  const writeEvent = (response: ServerResponse, event: KeptEvent) =>
    response.write(`id:${event.id}\nevent:receive\ndata:${event.data.split('\n').join('\ndata:')}\n\n`);

  const server = createServer((request, response) => {
    if (request.method === 'POST' && request.url === '/api/v1/rpc') {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = JSON.stringify(handle(Buffer.concat(chunks).toString(), 'http'));
        response.writeHead(200, { 'content-type': 'application/json' }).end(body);
      });
      return;
    }
    if (request.method === 'GET' && request.url === '/api/v1/check')
      return void response.writeHead(200).end();
    if (request.method === 'GET' && request.url?.startsWith('/api/v1/events')) {
      streamsOpened++;
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      response.write(': connected\n\n');
      const last = request.headers['last-event-id'];
      if (typeof last === 'string') {
        const index = kept.findIndex((event) => event.id === last);
        for (const event of index >= 0 ? kept.slice(index + 1) : kept) writeEvent(response, event);
      }
      streams.add(response);
      response.on('close', () => streams.delete(response));
      return;
    }
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

  const tcp = createTcpServer((socket) => {
    sockets.add(socket);
    streamsOpened++;
    let buffer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      let newline = buffer.indexOf('\n');
      while (newline >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        if (line.trim()) socket.write(`${JSON.stringify(handle(line, 'tcp'))}\n`);
        newline = buffer.indexOf('\n');
      }
    });
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));

  /** Pushes raw event data (a receive notification's params, or anything) to every listener. */
  const pushRaw = (data: string) => {
    const event = { id: String(++eventCounter), data };
    kept.push(event);
    if (kept.length > 1000) kept.shift();
    for (const stream of streams) writeEvent(stream, event);
    const line = data.includes('\n') ? undefined : `{"jsonrpc":"2.0","method":"receive","params":${data}}\n`;
    for (const socket of sockets) socket.write(line ?? `${data.replace(/\n/g, ' ')}\n`);
    return event.id;
  };

  const envelopeOf = (from: SignalPerson, body: Record<string, unknown>, timestamp = ++clock) => ({
    envelope: {
      source: from.number ?? from.uuid,
      sourceNumber: from.number ?? null,
      sourceUuid: from.uuid,
      sourceName: from.name ?? 'Someone',
      sourceDevice: 1,
      timestamp,
      serverReceivedTimestamp: timestamp + 5,
      ...body,
    },
    account: options.account,
  });

  const fake = {
    httpUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    tcpUrl: `tcp://127.0.0.1:${(tcp.address() as AddressInfo).port}`,
    accountUuid,
    calls: (method?: string) => calls.filter((call) => !method || call.method === method),
    /** Texts sent to a person (by number or uuid) or a group id. */
    textsTo: (chat: string) =>
      calls
        .filter((call) => call.method === 'send')
        .filter((call) =>
          call.params['groupId'] !== undefined
            ? call.params['groupId'] === chat
            : (call.params['recipient'] as string[] | undefined)?.includes(chat),
        )
        .map((call) => String(call.params['message'] ?? '')),
    downloads: () => downloads,
    /** Event streams (HTTP) or sockets (TCP) opened so far. */
    streamsOpened: () => streamsOpened,
    listeners: () => streams.size + sockets.size,
    pushRaw,
    /** A data message; returns its envelope timestamp (what reactions and receipts point at). */
    message(input: {
      from: SignalPerson;
      text?: string;
      groupId?: string;
      attachments?: Array<{ bytes: Buffer; contentType: string; filename?: string; size?: number }>;
      mentions?: Array<{ number?: string; uuid: string; start: number; length: number }>;
      quote?: { id: number; author: SignalPerson; text?: string };
      timestamp?: number;
    }): { timestamp: number; eventId: string; data: string } {
      const timestamp = input.timestamp ?? ++clock;
      const files = (input.attachments ?? []).map((file) => {
        const id = `${randomUUID()}.bin`;
        attachments.set(id, file.bytes);
        return {
          contentType: file.contentType,
          filename: file.filename ?? null,
          id,
          size: file.size ?? file.bytes.length,
        };
      });
      const data = JSON.stringify(
        envelopeOf(
          input.from,
          {
            dataMessage: {
              timestamp,
              message: input.text ?? null,
              expiresInSeconds: 0,
              viewOnce: false,
              ...(input.mentions ? { mentions: input.mentions.map((m) => ({ name: m.number, ...m })) } : {}),
              ...(files.length ? { attachments: files } : {}),
              ...(input.groupId
                ? { groupInfo: { groupId: input.groupId, groupName: 'Team', revision: 3, type: 'DELIVER' } }
                : {}),
              ...(input.quote
                ? {
                    quote: {
                      id: input.quote.id,
                      author: input.quote.author.number,
                      authorNumber: input.quote.author.number,
                      authorUuid: input.quote.author.uuid,
                      text: input.quote.text ?? '',
                      attachments: [],
                    },
                  }
                : {}),
            },
          },
          timestamp,
        ),
      );
      return { timestamp, eventId: pushRaw(data), data };
    },
    /** A reaction by `from` to the message `targetTimestamp` sent by the account. */
    reaction(from: SignalPerson, emoji: string, targetTimestamp: number, isRemove = false) {
      const reaction = {
        emoji,
        targetAuthor: options.account,
        targetAuthorNumber: options.account,
        targetAuthorUuid: accountUuid,
        targetSentTimestamp: targetTimestamp,
        isRemove,
      };
      return pushRaw(JSON.stringify(envelopeOf(from, { dataMessage: { timestamp: ++clock, reaction } })));
    },
    /** "Note to Self" typed on the account's phone: a sync message sent to its own number. */
    noteToSelf(text: string) {
      const me = { number: options.account, uuid: accountUuid, name: 'Me' };
      const sentMessage = {
        destination: options.account,
        destinationNumber: options.account,
        destinationUuid: accountUuid,
        timestamp: ++clock,
        message: text,
        expiresInSeconds: 0,
        viewOnce: false,
      };
      return pushRaw(JSON.stringify(envelopeOf(me, { syncMessage: { sentMessage } })));
    },
    /** The same event again under a new id (the daemon redelivering after its own restart). */
    redeliver(data: string) {
      return pushRaw(data);
    },
    /** Drops every event stream and socket (the daemon went away); clients must reconnect. */
    dropConnections() {
      for (const stream of streams) stream.destroy();
      for (const socket of sockets) socket.destroy();
    },
    async waitFor(check: (call: SignalCall) => boolean, timeoutMs = 10_000): Promise<SignalCall> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = calls.find(check);
        if (found) return found;
        if (Date.now() > deadline) throw new Error('the fake signal-cli never saw that call');
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    async close() {
      fake.dropConnections();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await new Promise<void>((resolve) => tcp.close(() => resolve()));
    },
  };
  return fake;
}

export type FakeSignalCli = Awaited<ReturnType<typeof startFakeSignalCli>>;
