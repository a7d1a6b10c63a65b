import { timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';

/** The largest click body read (Mattermost's are well under 2 KB). */
const MAX_BODY_BYTES = 64 * 1024;

export interface ActionServerOptions {
  host: string;
  port: number;
  /** The path Mattermost posts to (that of `actions.url`). */
  path: string;
  /** Put in every button's context by Wren; a click without it is refused (anyone may reach the port). */
  secret: string;
  /** One click by `userId` on the button whose `action` Wren set; its answer is shown to that user only. */
  onClick: (userId: string, action: string) => Promise<string | undefined>;
  onError: (error: unknown) => void;
}

/**
 * The HTTP listener for interactive message buttons: Mattermost's server posts each click as JSON
 * (`user_id`, `post_id`, the `context` Wren put on the button). Only clicks carrying the secret are acted
 * on; the answer is `{ephemeral_text}` (shown to the clicker) or `{}`. Resolves once listening.
 */
export async function startActionServer(options: ActionServerOptions): Promise<Server> {
  const expected = Buffer.from(options.secret);
  const server = createServer((request, response) => {
    const reply = (status: number, body: unknown) =>
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (request.method !== 'POST' || (request.url ?? '').split('?')[0] !== options.path)
      return void reply(404, {});
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) request.destroy();
      else chunks.push(chunk);
    });
    request.on('end', () => {
      void (async () => {
        let body: { user_id?: unknown; context?: { action?: unknown; secret?: unknown } | null };
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          return reply(400, {});
        }
        const secret = Buffer.from(String(body?.context?.secret ?? ''));
        const action = body?.context?.action;
        if (secret.length !== expected.length || !timingSafeEqual(secret, expected)) return reply(403, {});
        if (typeof body.user_id !== 'string' || typeof action !== 'string') return reply(400, {});
        const text = await options.onClick(body.user_id, action);
        reply(200, text ? { ephemeral_text: text } : {});
      })().catch((error: unknown) => {
        options.onError(error);
        if (!response.headersSent) reply(500, {});
      });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  return server;
}
