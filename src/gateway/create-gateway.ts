import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { Readable } from 'node:stream';
import { Hono } from 'hono';
import { bearerAuth } from 'hono/bearer-auth';
import { bodyLimit } from 'hono/body-limit';
import { HTTPException } from 'hono/http-exception';
import { type SSEStreamingApi, streamSSE } from 'hono/streaming';
import { z } from 'zod';
import type { SessionStore } from '../agent/session-store.js';
import type { MessageBus } from '../bus/message-bus.js';
import type { AgentEvent, ApprovalEvent, OutboundMessage } from '../bus/messages.js';
import type { Gate } from '../gate/create-gate.js';
import { resolveWorkspacePath } from '../tools/workspace-path.js';

/** The largest chat message the API accepts, in characters. */
export const MAX_MESSAGE_CHARS = 1_000_000;

export interface GatewayOptions {
  bus: MessageBus;
  store: SessionStore;
  verifyToken: (token: string) => boolean;
  /** Facts for `GET /api/status` (models, turns in flight, usage). */
  status: () => Record<string, unknown>;
  version: string;
  startedAt: number;
  /** Unexpected failures (logged by the caller; the client gets a generic message). */
  onError?: (error: Error) => void;
  /** The approval gate: pending approvals, grants and the audit log. Without it those routes answer 503. */
  gate?: Pick<Gate, 'approvals' | 'grants' | 'audit'>;
  /** Background subagents: `GET /api/subagents`, `DELETE /api/subagents/:id`. */
  subagents?: { list(): unknown[]; cancel(id: string): boolean };
  /** Folders `GET /api/files/<path>` may serve from (the workspace first); without it the route answers 404. */
  fileRoots?: () => string[];
}

type SseMessage = { event: string; data: string };

const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;

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
  })
  .strict();

const answerBody = z.object({ answer: z.enum(['once', 'session', 'always', 'deny']) }).strict();

function problem(code: string, message: string) {
  return { error: { code, message } };
}

/**
 * Writes what `subscribe` delivers to an SSE stream until `finished` resolves or the client goes away.
 * Events are queued so a slow client never blocks the bus.
 */
async function pump(
  stream: SSEStreamingApi,
  subscribe: (push: (message: SseMessage) => void) => () => void,
  finished: Promise<unknown>,
  gone: AbortSignal,
): Promise<void> {
  const queue: SseMessage[] = [];
  let wake: (() => void) | undefined;
  let done = false;
  const unsubscribe = subscribe((message) => {
    queue.push(message);
    wake?.();
  });
  const stop = () => {
    done = true;
    wake?.();
  };
  void finished.finally(stop).catch(() => {});
  gone.addEventListener('abort', stop, { once: true });
  try {
    while ((!done || queue.length > 0) && !gone.aborted) {
      const next = queue.shift();
      if (next) {
        await stream.writeSSE(next);
        continue;
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
      wake = undefined;
    }
  } finally {
    unsubscribe();
    gone.removeEventListener('abort', stop);
  }
}

/** An outbound message as /api/events shows it; attachments become download links. */
function messageEvent(outbound: OutboundMessage) {
  return {
    session: outbound.sessionId,
    text: outbound.text,
    kind: outbound.kind,
    attachments: (outbound.attachments ?? []).map((file) => ({
      name: file.name,
      size: file.size,
      url: `/api/files/${file.name.split('/').map(encodeURIComponent).join('/')}`,
    })),
  };
}

function approvalSse(event: ApprovalEvent): SseMessage {
  return event.type === 'approval-requested'
    ? { event: 'approval', data: JSON.stringify(event.request) }
    : { event: 'approval-resolved', data: JSON.stringify(event) };
}

function approvalSessionOf(event: ApprovalEvent): string {
  return event.type === 'approval-requested' ? event.request.sessionId : event.sessionId;
}

/** Builds the HTTP API as a Hono app (served by `startGateway`, tested with `app.request`). */
export function createGateway(options: GatewayOptions): Hono {
  const app = new Hono();
  /** Ids of /api/chat requests still waiting for their answer (their answers are not pushed on /api/events). */
  const inFlight = new Set<string>();
  const requestId = () => {
    const id = randomUUID();
    inFlight.add(id);
    return id;
  };
  options.bus.subscribeOutbound((outbound) => {
    if (inFlight.has(outbound.replyTo)) queueMicrotask(() => inFlight.delete(outbound.replyTo));
  });

  app.get('/api/health', (c) =>
    c.json({
      ok: true,
      version: options.version,
      uptimeSeconds: Math.round((Date.now() - options.startedAt) / 1000),
    }),
  );

  app.use(
    '/api/*',
    bearerAuth({
      verifyToken: (token) => options.verifyToken(token),
      noAuthenticationHeader: {
        message: problem('unauthorized', 'Send the gateway token as "Authorization: Bearer <token>".'),
      },
      invalidToken: {
        message: problem(
          'unauthorized',
          'The gateway token is wrong. `wren token --rotate` makes a new one.',
        ),
      },
      invalidAuthenticationHeader: {
        message: problem('unauthorized', 'Use "Authorization: Bearer <token>".'),
      },
    }),
  );

  app.get('/api/status', (c) => c.json(options.status()));

  app.get('/api/sessions', async (c) => c.json({ sessions: await options.store.listSessions(100) }));

  app.get('/api/sessions/:id/messages', async (c) => {
    const id = c.req.param('id');
    if (!(await options.store.getSession(id))) return c.json(problem('not_found', `No session ${id}.`), 404);
    const messages = await options.store.recentMessages(id, Number.MAX_SAFE_INTEGER);
    return c.json({ session: id, messages });
  });

  app.post(
    '/api/chat',
    bodyLimit({
      maxSize: MAX_MESSAGE_CHARS * 4 + MAX_IMAGES * MAX_IMAGE_BASE64_CHARS + 4096,
      onError: (c) => c.json(problem('too_large', 'The request body is too large.'), 413),
    }),
  );

  app.post('/api/chat', async (c) => {
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
    const session = parsed.data.session ?? randomUUID();
    const inbound = {
      id: requestId(),
      channel: 'api',
      senderId: 'owner',
      fromOwner: true,
      chatId: session,
      sessionId: session,
      // The token holder can answer approvals through /api/approvals while the turn waits.
      interactive: true,
      text: parsed.data.message,
      ...(parsed.data.images
        ? { media: parsed.data.images.map((item) => ({ type: 'image' as const, ...item })) }
        : {}),
    };
    if (c.req.header('accept')?.includes('text/event-stream')) {
      return streamSSE(c, async (stream) => {
        const gone = new AbortController();
        stream.onAbort(() => gone.abort(new Error('client disconnected')));
        const early: SseMessage[] = [];
        let forward: (message: SseMessage) => void = (message) => early.push(message);
        const reply = options.bus.request(inbound, (event) => forward(toSse(event)), gone.signal);
        reply.catch(() => {});
        await pump(
          stream,
          (push) => {
            for (const message of early.splice(0)) push(message);
            forward = push;
            return options.bus.subscribeApprovals((event) => {
              if (approvalSessionOf(event) === session) push(approvalSse(event));
            });
          },
          reply,
          gone.signal,
        );
        if (gone.signal.aborted) return;
        const outbound = await reply;
        await stream.writeSSE({
          event: outbound.kind === 'error' ? 'error' : 'done',
          data: JSON.stringify({ reply: outbound.text, session, usage: outbound.usage, kind: outbound.kind }),
        });
      });
    }
    const outbound = await options.bus.request(inbound, undefined, c.req.raw.signal);
    if (outbound.kind === 'error') {
      return c.json({ ...problem('model_error', outbound.text), session }, 502);
    }
    return c.json({ reply: outbound.text, session, usage: outbound.usage });
  });

  registerGateRoutes(app, options, (id) => inFlight.has(id));

  app.get('/api/subagents', (c) => c.json({ subagents: options.subagents?.list() ?? [] }));
  app.delete('/api/subagents/:id', (c) => {
    const id = c.req.param('id');
    return options.subagents?.cancel(id)
      ? c.json({ cancelled: id })
      : c.json(problem('not_found', `No running subagent ${id}.`), 404);
  });

  app.get('/api/files/*', async (c) => {
    const roots = options.fileRoots?.();
    const relative = decodeURIComponent(c.req.path.slice('/api/files/'.length));
    if (!roots || !relative) return c.json(problem('not_found', 'No such file.'), 404);
    let path: string;
    try {
      path = await resolveWorkspacePath(roots, relative);
    } catch (error) {
      return c.json(problem('forbidden', (error as Error).message), 403);
    }
    const info = await stat(path).catch(() => undefined);
    if (!info?.isFile()) return c.json(problem('not_found', `No file at ${relative}.`), 404);
    const stream = Readable.toWeb(createReadStream(path)) as ReadableStream<Uint8Array>;
    return new Response(stream, {
      headers: {
        'content-type': 'application/octet-stream',
        'content-length': String(info.size),
        'content-disposition': `attachment; filename="${basename(path).replace(/["\\\r\n]/g, '_')}"`,
      },
    });
  });

  app.notFound((c) => c.json(problem('not_found', `No route ${c.req.method} ${c.req.path}.`), 404));
  app.onError((error, c) =>
    error instanceof HTTPException
      ? error.getResponse()
      : c.json(problem('internal', error.message || 'internal error'), 500),
  );
  return app;
}

function toSse(event: AgentEvent): { event: string; data: string } {
  switch (event.type) {
    case 'text-delta':
      return { event: 'delta', data: JSON.stringify({ text: event.text }) };
    case 'tool-call-start':
      return {
        event: 'tool',
        data: JSON.stringify({ phase: 'start', id: event.callId, name: event.name, hint: event.hint }),
      };
    case 'tool-call-end':
      return {
        event: 'tool',
        data: JSON.stringify({
          phase: 'end',
          id: event.callId,
          name: event.name,
          isError: event.isError,
          preview: event.preview,
        }),
      };
    default:
      return { event: event.type, data: JSON.stringify({ session: event.sessionId }) };
  }
}

/** Pending approvals, answers, grants, the audit log and the approval event stream. */
function registerGateRoutes(
  app: Hono,
  options: GatewayOptions,
  isPending: (requestId: string) => boolean,
): void {
  const noGate = problem('no_gate', 'The approval gate is not running in this process.');

  app.get('/api/approvals', (c) =>
    options.gate ? c.json({ pending: options.gate.approvals.pending() }) : c.json(noGate, 503),
  );

  app.post('/api/approvals/:id', async (c) => {
    let raw: unknown;
    try {
      raw = await c.req.json();
    } catch {
      raw = undefined;
    }
    const parsed = answerBody.safeParse(raw);
    if (!parsed.success) {
      return c.json(
        problem('bad_request', 'The body must be {"answer": "once" | "session" | "always" | "deny"}.'),
        400,
      );
    }
    const answer = { id: c.req.param('id'), choice: parsed.data.answer, by: 'api' };
    const result = options.gate
      ? options.gate.approvals.answer(answer.id, answer.choice, answer.by)
      : options.bus.answerApproval(answer);
    if (result.ok) return c.json({ ok: true });
    const status = result.code === 'not_found' ? 404 : result.code === 'no_gate' ? 503 : 409;
    return c.json(problem(result.code, result.message), status);
  });

  app.get('/api/grants', (c) =>
    options.gate ? c.json({ grants: options.gate.grants.list() }) : c.json(noGate, 503),
  );

  app.delete('/api/grants/:id', (c) => {
    if (!options.gate) return c.json(noGate, 503);
    const id = c.req.param('id');
    return options.gate.grants.revoke(id)
      ? c.json({ revoked: id })
      : c.json(problem('not_found', `No grant ${id} in force.`), 404);
  });

  app.get('/api/audit', (c) => {
    if (!options.gate) return c.json(noGate, 503);
    const number = (name: string) => {
      const text = c.req.query(name);
      return text !== undefined && /^\d+$/.test(text) ? Number(text) : undefined;
    };
    const limit = number('limit');
    const before = number('before');
    const sessionId = c.req.query('session');
    const entries = options.gate.audit.list({
      ...(limit !== undefined ? { limit } : {}),
      ...(before !== undefined ? { beforeId: before } : {}),
      ...(sessionId ? { sessionId } : {}),
    });
    return c.json({ entries });
  });

  app.get('/api/events', (c) =>
    streamSSE(c, async (stream) => {
      const gone = new AbortController();
      stream.onAbort(() => gone.abort(new Error('client disconnected')));
      await stream.writeSSE({ event: 'ready', data: '{}' });
      await pump(
        stream,
        (push) => {
          const stopApprovals = options.bus.subscribeApprovals((event) => push(approvalSse(event)));
          // Messages Wren sends on its own on the API channel (the message/send_file tools, subagent reports).
          const stopMessages = options.bus.subscribeOutbound((outbound) => {
            if (outbound.channel !== 'api' || isPending(outbound.replyTo)) return;
            push({ event: 'message', data: JSON.stringify(messageEvent(outbound)) });
          }, 'api');
          return () => {
            stopApprovals();
            stopMessages();
          };
        },
        new Promise(() => {}),
        gone.signal,
      );
    }),
  );
}
