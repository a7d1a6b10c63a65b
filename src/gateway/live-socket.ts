import { createNodeWebSocket } from '@hono/node-ws';
import type { Hono, MiddlewareHandler } from 'hono';
import type { WSContext } from 'hono/ws';
import type { HttpChannel } from '../channels/http/http-channel.js';
import { approvalSse, messageEvent } from './gate-routes.js';

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
 * `GET /ws`: the web app's live feed. The request passes the same Host/Origin guard and the same auth (token or
 * session cookie) as the API before it is upgraded; a refused upgrade is answered with the refusal's status.
 * Frames are JSON `{type, data}` with the /api/events names: `ready` {nextDue}, `approval`,
 * `approval-resolved`, `next-due`, `feed`, `message`, `activity`. The socket only listens: what a client sends
 * is ignored.
 * @returns `inject(server)`, to be called with the Node server once it listens, and `closeSession(id)`.
 */
export function registerLiveSocket(
  app: Hono,
  auth: MiddlewareHandler,
  options: LiveSocketOptions,
): {
  inject: ReturnType<typeof createNodeWebSocket>['injectWebSocket'];
  closeSession(id: string): void;
  closeAll(): void;
} {
  const { injectWebSocket, upgradeWebSocket, wss } = createNodeWebSocket({ app });
  const bySession = new Map<string, Set<WSContext>>();

  app.get(
    '/ws',
    auth,
    upgradeWebSocket((c) => {
      const session = options.sessionOf?.(c.req.raw);
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
    }),
  );

  return {
    inject: injectWebSocket,
    closeSession(id) {
      for (const socket of bySession.get(id) ?? []) socket.close(4001, 'signed out');
      bySession.delete(id);
    },
    closeAll() {
      for (const socket of wss.clients) socket.terminate();
    },
  };
}
