import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { Hono } from 'hono';

export interface RunningGateway {
  host: string;
  port: number;
  /** Stops accepting connections and ends idle keep-alive ones; resolves when the listener is closed. */
  close(): Promise<void>;
}

/** Listens on `host:port` (port 0 picks a free one). Rejects with a clear message when the port is taken. */
export function serveGateway(
  app: Hono & { injectWebSocket?: (server: Server) => void; closeSockets?: () => void },
  host: string,
  port: number,
): Promise<RunningGateway> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, hostname: host, port }) as Server;
    app.injectWebSocket?.(server);
    server.once('error', (error: NodeJS.ErrnoException) => {
      const hint =
        error.code === 'EADDRINUSE'
          ? `port ${port} on ${host} is already in use: stop the other program or choose another with --port or gateway.port`
          : error.message;
      reject(new Error(`The gateway could not listen: ${hint}.`));
    });
    server.once('listening', () => {
      const address = server.address() as AddressInfo;
      resolve({
        host,
        port: address.port,
        close: () =>
          new Promise<void>((done) => {
            app.closeSockets?.();
            server.close(() => done());
            server.closeIdleConnections();
          }),
      });
    });
  });
}
