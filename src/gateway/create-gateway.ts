import type { Server } from 'node:http';
import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { GatewayOptions } from './gateway-options.js';
import { mountRoutes } from './mount-routes.js';
import { problem } from './problem.js';

export { MAX_IMAGE_BASE64_CHARS, MAX_IMAGES, MAX_MESSAGE_CHARS } from './chat-routes.js';
export type { GatewayOptions } from './gateway-options.js';

/** The gateway app; `injectWebSocket(server)` attaches `/ws` once a Node server listens. */
export type GatewayApp = Hono & {
  injectWebSocket(server: Server): void;
  closeSockets(): void;
  /** Loads the lazy routes now (after start-up, so the first page that needs them does not wait). */
  warmUp(): Promise<void>;
};

/**
 * Builds the HTTP API as a Hono app (served by `serveGateway`, tested with `app.request`): starts the API's
 * channel, mounts every route group (mount-routes.ts) and answers what none matches with a 404 and what one
 * throws with a generic 500 (the error goes to `onError`, never to the client).
 */
export function createGateway(options: GatewayOptions): GatewayApp {
  const app = new Hono();
  void options.channel.start();
  const mounted = mountRoutes(app, options);

  app.notFound((c) => c.json(problem('not_found', `No route ${c.req.method} ${c.req.path}.`), 404));
  app.onError((error, c) => {
    if (error instanceof HTTPException) return error.getResponse();
    options.onError?.(error);
    return c.json(
      problem('internal', 'Something went wrong inside Wren; the details are in logs/wren.log.'),
      500,
    );
  });
  return Object.assign(app, mounted);
}
