import { type Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { streamSSE } from 'hono/streaming';
import type { OutboundMessage } from '../bus/messages.js';
import type { HttpChannel } from '../channels/http/http-channel.js';
import { readChatCompletionRequest, WREN_MODEL } from './openai-chat-request.js';
import {
  type CompletionHeader,
  chatCompletion,
  completionChunk,
  finishReasonOf,
  newCompletion,
} from './openai-completion.js';
import { openAiError } from './openai-error.js';
import { deniedNote, type OpenAiApprovalMode, type OpenAiTurn, startOpenAiTurn } from './openai-turn.js';
import { pump } from './sse-pump.js';

/**
 * The largest request body: clients send the whole conversation each time (earlier images included), though
 * only its last message is read.
 */
export const MAX_OPENAI_BODY_BYTES = 64 * 1024 * 1024;

export interface OpenAiCompatibleOptions {
  channel: HttpChannel;
  /** `gateway.openai_compat.approvals`, read for each request (default `deny`). */
  approvals?: () => OpenAiApprovalMode;
  /** When the gateway started (ms): the `created` time of the `wren` model. */
  startedAt: number;
}

/** The answer of a client that went away: nobody reads it (nginx's "client closed request"). */
const CLIENT_GONE = 499;

/**
 * Wren as a model for OpenAI-compatible clients: `GET /v1/models` (one model, `wren`) and `POST
 * /v1/chat/completions` (JSON, or server-sent `chat.completion.chunk`s with `stream: true`). Each request is
 * one owner turn through the API's channel — memory, tools and the gate included — in the conversation the
 * `X-Wren-Session` header or `user` names. Errors are in OpenAI's shape. The caller registers these behind
 * the token check.
 */
export function openAiCompatibleRoutes(options: OpenAiCompatibleOptions): Hono {
  const app = new Hono();
  const model = {
    id: WREN_MODEL,
    object: 'model' as const,
    created: Math.floor(options.startedAt / 1000),
    owned_by: 'wren',
  };
  app.get('/v1/models', (c) => c.json({ object: 'list', data: [model] }));
  app.get('/v1/models/:id', (c) =>
    c.req.param('id') === WREN_MODEL
      ? c.json(model)
      : c.json(
          openAiError(404, {
            code: 'model_not_found',
            message: `The model "${c.req.param('id')}" does not exist here: this endpoint serves one model, "${WREN_MODEL}".`,
          }),
          404,
        ),
  );

  app.post(
    '/v1/chat/completions',
    bodyLimit({
      maxSize: MAX_OPENAI_BODY_BYTES,
      onError: (c) =>
        c.json(
          openAiError(413, {
            code: 'too_large',
            message: `The request body is larger than ${MAX_OPENAI_BODY_BYTES / 1024 / 1024} MiB.`,
          }),
          413,
        ),
    }),
  );
  app.post('/v1/chat/completions', async (c) => {
    let raw: unknown;
    try {
      raw = await c.req.json();
    } catch {
      return c.json(
        openAiError(400, {
          code: 'invalid_request_error',
          message:
            'The body must be JSON: {"model": "wren", "messages": [{"role": "user", "content": "…"}]}.',
        }),
        400,
      );
    }
    const read = readChatCompletionRequest(raw, c.req.header('x-wren-session'));
    if ('problem' in read) {
      const { status, ...problem } = read.problem;
      return c.json(openAiError(status, problem), status);
    }
    const { turn } = read;
    c.header('X-Wren-Session', turn.session);
    const run = startOpenAiTurn({
      channel: options.channel,
      turn,
      approvals: options.approvals?.() ?? 'deny',
      signal: c.req.raw.signal,
    });
    return turn.stream ? streamed(c, run, turn.includeUsage) : whole(c, run);
  });
  return app;
}

async function settled(reply: Promise<OutboundMessage>): Promise<OutboundMessage | undefined> {
  try {
    return await reply;
  } catch {
    return undefined;
  }
}

function modelError(c: Context, outbound: OutboundMessage) {
  return c.json(openAiError(502, { code: 'model_error', message: outbound.text }), 502);
}

async function whole(c: Context, run: OpenAiTurn): Promise<Response> {
  const outbound = await settled(run.reply);
  if (!outbound) return new Response(null, { status: CLIENT_GONE });
  if (outbound.kind === 'error') return modelError(c, outbound);
  return c.json(
    chatCompletion(newCompletion(), {
      content: outbound.text + deniedNote(run.denied()),
      finishReason: finishReasonOf(outbound.stopReason),
      usage: outbound.usage,
    }),
  );
}

/**
 * The stream opens at the reply's first text or tool call, so a turn whose model fails outright still gets a
 * plain `502`; a failure after that ends the stream with an `{"error": …}` event, which OpenAI's clients raise.
 */
async function streamed(c: Context, run: OpenAiTurn, includeUsage: boolean): Promise<Response> {
  await run.moving;
  const early = run.outcome;
  if (early === 'gone') return new Response(null, { status: CLIENT_GONE });
  if (early?.kind === 'error' && !run.streamed) return modelError(c, early);
  const header = newCompletion();
  const gone = c.req.raw.signal;
  return streamSSE(c, async (stream) => {
    const send = (chunk: object) => stream.writeSSE({ data: JSON.stringify(chunk) });
    const content = (text: string) => completionChunk(header, { delta: { content: text }, includeUsage });
    await send(completionChunk(header, { delta: { role: 'assistant', content: '' }, includeUsage }));
    await pump(
      stream,
      (push) => run.follow((text) => push({ event: '', data: JSON.stringify(content(text)) })),
      run.reply,
      gone,
    );
    const outbound = await settled(run.reply);
    if (!outbound || gone.aborted) return;
    if (outbound.kind === 'error') {
      await send(openAiError(502, { code: 'model_error', message: outbound.text }));
      return;
    }
    const tail =
      (run.streamed ? (outbound.notice ? `\n\n(${outbound.notice})` : '') : outbound.text) +
      deniedNote(run.denied());
    if (tail) await send(content(tail));
    await finish(send, header, { outbound, includeUsage });
    await stream.writeSSE({ data: '[DONE]' });
  });
}

async function finish(
  send: (chunk: object) => Promise<void>,
  header: CompletionHeader,
  end: { outbound: OutboundMessage; includeUsage: boolean },
): Promise<void> {
  await send(
    completionChunk(header, {
      delta: {},
      finishReason: finishReasonOf(end.outbound.stopReason),
      includeUsage: end.includeUsage,
    }),
  );
  if (end.includeUsage) await send(completionChunk(header, { usage: end.outbound.usage }));
}
