import { type Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { streamSSE } from 'hono/streaming';
import { z } from 'zod';
import type { HttpChannel } from '../channels/http/http-channel.js';
import { answerSse, chatEventSse } from './chat-events.js';
import { approvalSse } from './gate-routes.js';
import { problem } from './problem.js';
import { SESSION_ID } from './session-id.js';
import { pump, type SseMessage } from './sse-pump.js';

/** The largest chat message the API accepts, in characters. */
export const MAX_MESSAGE_CHARS = 1_000_000;

export { SESSION_ID } from './session-id.js';

/** Images per message and base64 characters per image the API accepts. */
export const MAX_IMAGES = 4;
export const MAX_IMAGE_BASE64_CHARS = 7_000_000;

const image = z
  .object({
    data: z
      .string()
      .min(1)
      .max(MAX_IMAGE_BASE64_CHARS)
      .regex(/^[A-Za-z0-9+/]+=*$/, 'data must be base64 without a data: prefix'),
    mediaType: z.enum(['image/png', 'image/jpeg', 'image/gif', 'image/webp']),
  })
  .strict();

const chatBody = z
  .object({
    message: z.string().min(1, 'message must not be empty').max(MAX_MESSAGE_CHARS),
    session: z.string().regex(SESSION_ID, 'session must be 1-128 letters, digits, _ . : -').optional(),
    images: z.array(image).max(MAX_IMAGES).optional(),
    /**
     * The terminal's conversation (`wren chat` attached to this gateway): channel `cli`, chat `terminal`, so
     * it continues the same active session as `wren chat` without a gateway.
     */
    terminal: z.boolean().optional(),
    /** Whether the caller can answer approvals while the turn waits (default true; `wren chat -m` cannot). */
    interactive: z.boolean().optional(),
    /**
     * The turn goes on when this request goes away (a reloaded tab): it is read back through
     * `GET /api/sessions/:id/turn` and stopped with `DELETE /api/sessions/:id/turn`. Default false: going away
     * cancels the turn.
     */
    keepRunning: z.boolean().optional(),
  })
  .strict();

/** The chat body as the channel's input, or the answer to a body that is not one (400, 413 for a long message). */
async function readChatBody(
  c: Context,
): Promise<{ input: Parameters<HttpChannel['ask']>[0]; keepRunning: boolean | undefined } | Response> {
  let raw: unknown;
  try {
    raw = await c.req.json();
  } catch {
    return c.json(
      problem('bad_request', 'The body must be JSON: {"message": "...", "session": "optional id"}.'),
      400,
    );
  }
  const parsed = chatBody.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.join('.') || 'body';
    const tooLong = issue?.code === 'too_big' && where === 'message';
    return c.json(
      problem(tooLong ? 'too_large' : 'bad_request', `${where}: ${issue?.message}`),
      tooLong ? 413 : 400,
    );
  }
  const { terminal, session, interactive, images, keepRunning } = parsed.data;
  const input = {
    text: parsed.data.message,
    ...(session ? { session } : {}),
    ...(terminal ? { terminal } : {}),
    ...(interactive !== undefined ? { interactive } : {}),
    ...(images ? { media: images.map((item) => ({ type: 'image' as const, ...item })) } : {}),
  };
  return { input, keepRunning };
}

/**
 * `POST /api/chat`: one owner message into the session (new when none is named); the answer as JSON, or as
 * server-sent events (deltas, tool progress, approvals of this session, then `done`/`error`) when the client
 * accepts `text/event-stream`. A client that goes away cancels its turn, unless it sent `keepRunning: true`:
 * then the request only watches a turn that runs to its end (see turn-routes.ts, mounted beside these). The HTTP
 * channel builds the owner's message and keeps its answer off /api/events.
 */
export function chatRoutes(channel: HttpChannel, redact: (text: string) => string = (text) => text): Hono {
  const app = new Hono();
  app.post(
    '/api/chat',
    bodyLimit({
      maxSize: MAX_MESSAGE_CHARS * 4 + MAX_IMAGES * MAX_IMAGE_BASE64_CHARS + 4096,
      onError: (c) => c.json(problem('too_large', 'The request body is too large.'), 413),
    }),
  );

  app.post('/api/chat', async (c) => {
    const read = await readChatBody(c);
    if (read instanceof Response) return read;
    const { input, keepRunning } = read;
    if (c.req.header('accept')?.includes('text/event-stream')) {
      return streamSSE(c, async (stream) => {
        const gone = new AbortController();
        stream.onAbort(() => gone.abort(new Error('client disconnected')));
        const early: SseMessage[] = [];
        let forward: (message: SseMessage) => void = (message) => early.push(message);
        const turn = channel.ask(
          input,
          (event) => forward(chatEventSse(event, redact)),
          keepRunning ? undefined : gone.signal,
        );
        // A turn that outlives this request must not keep feeding its dead stream's queue.
        gone.signal.addEventListener('abort', () => (forward = () => {}), { once: true });
        const named = turn.session;
        const reply = turn.reply;
        reply.catch(() => {});
        await pump(
          stream,
          (push) => {
            for (const message of early.splice(0)) push(message);
            forward = push;
            return channel.watchApprovalsOf(named ? { session: named } : { terminal: true }, (event) =>
              push(approvalSse(event)),
            );
          },
          reply,
          gone.signal,
        );
        if (gone.signal.aborted) return;
        await stream.writeSSE(answerSse(await reply, named));
      });
    }
    const turn = channel.ask(input, undefined, keepRunning ? undefined : c.req.raw.signal);
    turn.reply.catch(() => {});
    const outbound = await turn.reply;
    const ran = outbound.sessionId || turn.session;
    if (outbound.kind === 'error') {
      return c.json({ ...problem('model_error', outbound.text), session: ran }, 502);
    }
    return c.json({ reply: outbound.text, session: ran, usage: outbound.usage });
  });
  return app;
}
