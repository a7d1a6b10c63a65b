import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { NodeWebSocket } from '@hono/node-ws';
import { Hono, type MiddlewareHandler } from 'hono';
import type { WSContext, WSEvents } from 'hono/ws';
import type { HttpChannel } from '../channels/http/http-channel.js';
import { approvalSse, messageEvent } from './gate-routes.js';
import { problem } from './problem.js';
import { sameOrigin } from './request-guard.js';

export interface LiveSocketOptions {
  channel: HttpChannel;
  /** When the next scheduled item is due (ms), for the `ready` frame; later changes arrive as `next-due`. */
  nextDue?: () => number | null;
  /** The signed-in browser behind a request (its session id), so signing out can close its sockets. */
  sessionOf?: (request: Request) => string | undefined;
}

/** Frames a socket may have queued before it is closed as too slow (a tab that stopped reading). */
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;

/**
 * One socket's handlers: on open it sends `ready` and forwards the API channel's events as frames (closing a
 * socket that buffers more than MAX_BUFFERED_BYTES) and files the socket under its signed-in browser in
 * `bySession`; on close or error it stops watching.
 */
function socketEvents(
  request: Request,
  options: LiveSocketOptions,
  bySession: Map<string, Set<WSContext>>,
): WSEvents {
  const session = options.sessionOf?.(request);
  let stop = () => {};
  return {
    onOpen(_event, socket) {
      if (session) {
        const set = bySession.get(session) ?? new Set();
        set.add(socket);
        bySession.set(session, set);
      }
      const send = (type: string, data: unknown) => {
        const raw = socket.raw as { bufferedAmount?: number } | undefined;
        if ((raw?.bufferedAmount ?? 0) > MAX_BUFFERED_BYTES) {
          socket.close(1013, 'too slow');
          return;
        }
        socket.send(JSON.stringify({ type, data }));
      };
      send('ready', { nextDue: options.nextDue?.() ?? null });
      stop = options.channel.watch('api', {
        approval: (event) => {
          const frame = approvalSse(event);
          send(frame.event, JSON.parse(frame.data));
        },
        schedule: (event) => send(event.type, event),
        message: (outbound) => send('message', messageEvent(outbound)),
        activity: (event) => send('activity', event),
      });
    },
    onClose(_event, socket) {
      stop();
      if (session) bySession.get(session)?.delete(socket);
    },
    onError() {
      stop();
    },
  };
}

/**
 * `GET /ws`: the web app's live feed. The request passes the same Host/Origin guard and the same auth (token, or
 * session cookie plus its key as the subprotocol `wren-key.<key>`) as the API, and its Origin must be this
 * very origin (port included), before it is upgraded; a refused upgrade is answered with the refusal's status.
 * Frames are JSON `{type, data}` with the /api/events names: `ready` {nextDue}, `approval`,
 * `approval-resolved`, `next-due`, `feed`, `message`, `activity`. The socket only listens: what a client sends
 * is ignored. The WebSocket library is loaded at the first upgrade, so a gateway nobody opens in a browser
 * never pays for it.
 * `app` is the gateway the sockets' upgrade requests go through (the one served).
 * @returns `routes` (the `/ws` sub-app, to mount), `inject(server)`, to be called with the Node server once it
 * listens, `closeSession(id)` and `closeAll()`.
 */
export function liveSocket(
  app: Hono,
  auth: MiddlewareHandler,
  options: LiveSocketOptions,
): { routes: Hono; inject(server: Server): void; closeSession(id: string): void; closeAll(): void } {
  const bySession = new Map<string, Set<WSContext>>();
  let library: Promise<NodeWebSocket> | undefined;
  let loaded: NodeWebSocket | undefined;
  const load = () => {
    library ??= import('@hono/node-ws').then((module) => {
      loaded = module.createNodeWebSocket({ app });
      return loaded;
    });
    return library;
  };

  const events = (c: { req: { raw: Request } }) => socketEvents(c.req.raw, options, bySession);

  const routes = new Hono();
  routes.get(
    '/ws',
    // Ports count: a page of another program on this host must not open the owner's live feed.
    (c, next) =>
      sameOrigin(c)
        ? next()
        : Promise.resolve(c.json(problem('forbidden_origin', 'Cross-origin WebSocket refused.'), 403)),
    auth,
    async (c, next) => {
      const socket = await load();
      return socket.upgradeWebSocket(events)(c, next);
    },
  );

  return {
    routes,
    inject(server) {
      // The first upgrade loads the library and hands the server to it; the upgrades that arrived meanwhile
      // are then replayed to its handler, in order.
      const waiting: Array<[IncomingMessage, Duplex, Buffer]> = [];
      const first = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
        waiting.push([request, socket, head]);
        if (waiting.length > 1) return;
        load().then(
          (ws) => {
            server.off('upgrade', first);
            ws.injectWebSocket(server);
            for (const args of waiting.splice(0)) server.emit('upgrade', ...args);
          },
          () => {
            for (const [, socket] of waiting.splice(0)) socket.destroy();
          },
        );
      };
      server.on('upgrade', first);
    },
    closeSession(id) {
      for (const socket of bySession.get(id) ?? []) socket.close(4001, 'signed out');
      bySession.delete(id);
    },
    closeAll() {
      for (const socket of loaded?.wss.clients ?? []) socket.terminate();
    },
  };
}
