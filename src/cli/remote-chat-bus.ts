import { EventSourceParserStream } from 'eventsource-parser/stream';
import type { AgentEvent, ApprovalAnswerResult, ApprovalEvent, OutboundMessage } from '../bus/messages.js';
import type { ChatBus } from './chat-bus.js';
import type { GatewayLink } from './gateway-client.js';

interface ServerEvent {
  event?: string;
  data: string;
}

/** Reads a server-sent event stream until it ends or `signal` aborts; never throws for an abort. */
async function readEvents(
  response: Response,
  onEvent: (event: ServerEvent) => void,
  signal?: AbortSignal,
): Promise<void> {
  if (!response.body) return;
  const events = response.body
    .pipeThrough(new TextDecoderStream())
    .pipeThrough(new EventSourceParserStream());
  const reader = events.getReader();
  const stop = () => void reader.cancel().catch(() => {});
  signal?.addEventListener('abort', stop, { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      onEvent(value);
    }
  } catch (error) {
    if (!signal?.aborted) throw error;
  } finally {
    signal?.removeEventListener('abort', stop);
  }
}

const ZERO = { inputTokens: 0, outputTokens: 0 };

/** A gateway event (`delta`, `tool`, `turn-start` …) as the terminal's AgentEvent. */
function agentEvent(
  event: ServerEvent,
  base: { sessionId: string; replyTo: string },
): AgentEvent | undefined {
  const data = JSON.parse(event.data) as Record<string, unknown>;
  const where = { ...base, channel: 'cli', chatId: 'terminal' };
  if (event.event === 'delta') return { ...where, type: 'text-delta', text: String(data['text'] ?? '') };
  if (event.event === 'turn-start') return { ...where, type: 'turn-start' };
  if (event.event !== 'tool') return undefined;
  const callId = String(data['id'] ?? '');
  const name = String(data['name'] ?? '');
  return data['phase'] === 'start'
    ? { ...where, type: 'tool-call-start', callId, name, hint: String(data['hint'] ?? name) }
    : {
        ...where,
        type: 'tool-call-end',
        callId,
        name,
        isError: data['isError'] === true,
        preview: String(data['preview'] ?? ''),
      };
}

/**
 * The terminal chat's bus when `wren start` already runs for the home: each message is a streamed
 * `POST /api/chat` on the terminal's conversation; approvals and what Wren sends on its own arrive on one
 * `GET /api/events?channel=cli` stream, opened while someone listens; answers go to `POST /api/approvals`.
 * The same sessions, MCP servers and gate as the gateway's: nothing runs in this process.
 */
export function createRemoteChatBus(link: GatewayLink): ChatBus {
  const headers = { authorization: `Bearer ${link.token}` };
  const approvalListeners = new Set<(event: ApprovalEvent) => void>();
  const outboundListeners = new Set<(message: OutboundMessage) => void>();
  let events: AbortController | undefined;
  /** Resolves once the events stream said `ready` (or failed): a request waits, so no early event is lost. */
  let ready: Promise<void> = Promise.resolve();

  const onStreamEvent = (event: ServerEvent) => {
    if (event.event === 'approval') {
      const request = JSON.parse(event.data) as Extract<
        ApprovalEvent,
        { type: 'approval-requested' }
      >['request'];
      for (const listener of approvalListeners) listener({ type: 'approval-requested', request });
    } else if (event.event === 'approval-resolved') {
      const resolved = JSON.parse(event.data) as ApprovalEvent;
      for (const listener of approvalListeners) listener(resolved);
    } else if (event.event === 'message') {
      const data = JSON.parse(event.data) as Record<string, unknown>;
      const message: OutboundMessage = {
        channel: String(data['channel'] ?? 'cli'),
        chatId: String(data['chat'] ?? 'terminal'),
        replyTo: String(data['replyTo'] ?? ''),
        sessionId: String(data['session'] ?? ''),
        text: String(data['text'] ?? ''),
        kind: (data['kind'] as OutboundMessage['kind']) ?? 'message',
        usage: ZERO,
      };
      for (const listener of outboundListeners) listener(message);
    }
  };
  const listen = () => {
    if (events || approvalListeners.size + outboundListeners.size === 0) return;
    const controller = new AbortController();
    events = controller;
    let isReady: () => void = () => {};
    ready = new Promise<void>((resolve) => {
      isReady = resolve;
    });
    void fetch(`${link.url}/api/events?channel=cli`, { headers, signal: controller.signal })
      .then((response) =>
        readEvents(
          response,
          (event) => (event.event === 'ready' ? isReady() : onStreamEvent(event)),
          controller.signal,
        ),
      )
      .catch(() => {})
      .finally(() => isReady());
  };
  const unlisten = () => {
    if (approvalListeners.size + outboundListeners.size > 0) return;
    events?.abort();
    events = undefined;
  };

  return {
    async request(message, onEvent, signal) {
      await ready;
      const response = await fetch(`${link.url}/api/chat`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({
          message: message.text,
          terminal: true,
          interactive: message.interactive === true,
          ...(message.sessionId ? { session: message.sessionId } : {}),
        }),
        ...(signal ? { signal } : {}),
      });
      const base = { sessionId: message.sessionId ?? '', replyTo: message.id };
      if (!response.ok) {
        const body = (await response.json().catch(() => ({}))) as { error?: { message?: string } };
        const text = body.error?.message ?? `the gateway answered ${response.status}`;
        return { channel: 'cli', chatId: 'terminal', ...base, text, kind: 'error', usage: ZERO };
      }
      let final: OutboundMessage | undefined;
      await readEvents(
        response,
        (event) => {
          if (event.event === 'done' || event.event === 'error') {
            const data = JSON.parse(event.data) as Record<string, unknown>;
            final = {
              channel: 'cli',
              chatId: 'terminal',
              replyTo: message.id,
              sessionId: String(data['session'] ?? ''),
              text: String(data['reply'] ?? ''),
              kind:
                (data['kind'] as OutboundMessage['kind']) ?? (event.event === 'error' ? 'error' : 'reply'),
              usage: (data['usage'] as OutboundMessage['usage']) ?? ZERO,
              ...(typeof data['notice'] === 'string' ? { notice: data['notice'] } : {}),
            };
            return;
          }
          const converted = agentEvent(event, base);
          if (converted) onEvent?.(converted);
        },
        signal,
      );
      return (
        final ?? {
          channel: 'cli',
          chatId: 'terminal',
          ...base,
          text: 'The gateway closed the connection before the reply was complete.',
          kind: 'error',
          usage: ZERO,
        }
      );
    },
    async answerApproval(answer) {
      const response = await fetch(`${link.url}/api/approvals/${encodeURIComponent(answer.id)}`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ answer: answer.choice }),
      });
      if (response.ok) return { ok: true };
      const body = (await response.json().catch(() => ({}))) as {
        error?: { code?: string; message?: string };
      };
      return {
        ok: false,
        code: (body.error?.code as Extract<ApprovalAnswerResult, { ok: false }>['code']) ?? 'not_found',
        message: body.error?.message ?? `the gateway answered ${response.status}`,
      };
    },
    subscribeApprovals(listener) {
      approvalListeners.add(listener);
      listen();
      return () => {
        approvalListeners.delete(listener);
        unlisten();
      };
    },
    subscribeOutbound(listener) {
      outboundListeners.add(listener);
      listen();
      return () => {
        outboundListeners.delete(listener);
        unlisten();
      };
    },
  };
}
