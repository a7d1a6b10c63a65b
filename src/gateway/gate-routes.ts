import { type Handler, Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { z } from 'zod';
import type { ApprovalEvent, OutboundMessage } from '../bus/messages.js';
import type { HttpChannel } from '../channels/http/http-channel.js';
import type { Gate } from '../gate/create-gate.js';
import { grantServiceOver } from '../services/grant-service.js';
import type * as Api from './api-types.js';
import { problem } from './problem.js';
import { pump, type SseMessage } from './sse-pump.js';

const answerBody = z.object({ answer: z.enum(['once', 'session', 'always', 'deny']) }).strict();

export interface GateRouteOptions {
  /** The API's channel: answers without a gate in this process, and the /api/events stream. */
  channel: HttpChannel;
  /** The approval gate: pending approvals, grants and the audit log. Without it those routes answer 503. */
  gate?: Pick<Gate, 'approvals' | 'grants' | 'audit'>;
}

/** An outbound message as /api/events shows it; attachments become download links. */
export function messageEvent(outbound: OutboundMessage) {
  return {
    session: outbound.sessionId,
    channel: outbound.channel,
    chat: outbound.chatId,
    replyTo: outbound.replyTo,
    text: outbound.text,
    kind: outbound.kind,
    attachments: (outbound.attachments ?? []).map((file) => ({
      name: file.name,
      size: file.size,
      url: `/api/files/${file.name.split('/').map(encodeURIComponent).join('/')}`,
    })),
  };
}

export function approvalSse(event: ApprovalEvent): SseMessage {
  return event.type === 'approval-requested'
    ? { event: 'approval', data: JSON.stringify(event.request) }
    : { event: 'approval-resolved', data: JSON.stringify(event) };
}

/**
 * `GET /api/events`: approvals, schedule changes, what Wren sends on its own and every conversation's activity
 * as server-sent events. `?channel=cli`: a terminal attached to this gateway (`wren chat`) receives what Wren
 * sends the terminal on its own; without it, what it sends on the API channel.
 */
function eventStream(http: GateRouteOptions['channel']): Handler {
  return (c) => {
    const channel = c.req.query('channel') === 'cli' ? 'cli' : 'api';
    return streamSSE(c, async (stream) => {
      const gone = new AbortController();
      stream.onAbort(() => gone.abort(new Error('client disconnected')));
      await stream.writeSSE({ event: 'ready', data: '{}' });
      await pump(
        stream,
        (push) =>
          http.watch(channel, {
            approval: (event) => push(approvalSse(event)),
            // When the scheduler next wakes, and new feed entries: a web app shows them live.
            schedule: (event) => push({ event: event.type, data: JSON.stringify(event) }),
            // What Wren sends on its own (the message/send_file tools, reminders, subagent reports).
            message: (outbound) => push({ event: 'message', data: JSON.stringify(messageEvent(outbound)) }),
            // Every conversation's turns (Telegram, Slack … included), so a web app can follow them live.
            activity: (event) => push({ event: 'activity', data: JSON.stringify(event) }),
          }),
        new Promise(() => {}),
        gone.signal,
      );
    });
  };
}

/** Pending approvals, answers, grants, the audit log and the approval event stream. */
export function gateRoutes(options: GateRouteOptions): Hono {
  const app = new Hono();
  const noGate = problem('no_gate', 'The approval gate is not running in this process.');

  app.get('/api/approvals', (c) =>
    options.gate
      ? c.json({ pending: options.gate.approvals.pending() } satisfies Api.ApprovalList)
      : c.json(noGate, 503),
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
      : await options.channel.answer(answer.id, answer.choice);
    if (result.ok) return c.json({ ok: true });
    const status = result.code === 'not_found' ? 404 : result.code === 'no_gate' ? 503 : 409;
    return c.json(problem(result.code, result.message), status);
  });

  // The grant rules run over the gate of this process (its grants and audit log are the home's).
  const grants = options.gate ? grantServiceOver(options.gate) : undefined;
  app.get('/api/grants', (c) =>
    grants ? c.json({ grants: grants.list() } satisfies Api.GrantList) : c.json(noGate, 503),
  );

  app.delete('/api/grants/:id', (c) => {
    if (!grants) return c.json(noGate, 503);
    const id = c.req.param('id');
    const revoked = grants.revoke(id);
    return revoked.ok
      ? c.json({ revoked: id } satisfies Api.Revoked)
      : c.json(problem('not_found', revoked.error), 404);
  });

  app.get('/api/audit', (c) => {
    if (!grants) return c.json(noGate, 503);
    const number = (name: string) => {
      const text = c.req.query(name);
      return text !== undefined && /^\d+$/.test(text) ? Number(text) : undefined;
    };
    const limit = number('limit');
    const before = number('before');
    const sessionId = c.req.query('session');
    const entries = grants.audit({
      ...(limit !== undefined ? { limit } : {}),
      ...(before !== undefined ? { beforeId: before } : {}),
      ...(sessionId ? { sessionId } : {}),
    });
    return c.json({ entries });
  });

  app.get('/api/events', eventStream(options.channel));
  return app;
}
