import { EventSourceParserStream } from 'eventsource-parser/stream';
import type {
  AgentEvent,
  ApprovalAnswerResult,
  ApprovalEvent,
  InboundMessage,
  OutboundMessage,
} from '../bus/messages.js';
import type { ChannelBus } from '../channels/channel-bus.js';
import type { GatewayLink } from './gateway-client.js';
import { wren } from './wren-command.js';

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
 * `POST /api/chat` (the interactive terminal's conversation, or the one-shot run's own session); approvals
 * and what Wren sends on its own arrive on one `GET /api/events?channel=cli` stream, opened while someone
 * listens; answers go to `POST /api/approvals`. The same sessions, MCP servers and gate as the gateway's:
 * nothing runs in this process. When the gateway restarts (a new local token), the link is looked up again
 * through `gateway.json`; when it is gone, a message gets an error reply saying so, never a crash.
 */
export function createRemoteChatBus(
  initial: GatewayLink,
  relink: () => Promise<GatewayLink | undefined> = async () => undefined,
): ChannelBus {
  let link = initial;
  const auth = () => ({ authorization: `Bearer ${link.token}` });
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
      for (const listener of outboundListeners) listener(outboundOf(JSON.parse(event.data)));
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
    void fetch(`${link.url}/api/events?channel=cli`, { headers: auth(), signal: controller.signal })
      .then((response) =>
        readEvents(
          response,
          (event) => (event.event === 'ready' ? isReady() : onStreamEvent(event)),
          controller.signal,
        ),
      )
      .catch(() => {})
      .finally(() => {
        isReady();
        // The stream ended on its own (the gateway stopped): the next request or relink reopens it.
        if (events === controller) events = undefined;
      });
  };
  const unlisten = () => {
    if (approvalListeners.size + outboundListeners.size > 0) return;
    events?.abort();
    events = undefined;
  };
  /** Looks the gateway up again (it restarted: new address or token); true when there is one. */
  const refresh = async () => {
    const next = await relink();
    if (!next) return false;
    link = next;
    events?.abort();
    events = undefined;
    listen();
    return true;
  };
  const failed = (message: InboundMessage, text: string): OutboundMessage => ({
    ...replyBase(message),
    sessionId: message.sessionId ?? '',
    text,
    kind: 'error',
    usage: ZERO,
  });

  const send = async (
    message: InboundMessage,
    onEvent: ((event: AgentEvent) => void) | undefined,
    signal: AbortSignal | undefined,
  ): Promise<OutboundMessage | 'unauthorized'> => {
    listen();
    await ready;
    const terminal = message.chatId === 'terminal';
    const response = await fetch(`${link.url}/api/chat`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({
        message: message.text,
        terminal,
        interactive: message.interactive === true,
        ...(message.sessionId ? { session: message.sessionId } : {}),
      }),
      ...(signal ? { signal } : {}),
    });
    if (response.status === 401) return 'unauthorized';
    if (!response.ok) {
      const body = (await response.json().catch(() => ({}))) as { error?: { message?: string } };
      return failed(message, body.error?.message ?? `the gateway answered ${response.status}`);
    }
    let final: OutboundMessage | undefined;
    const base = { sessionId: message.sessionId ?? '', replyTo: message.id };
    await readEvents(
      response,
      (event) => {
        if (event.event === 'done' || event.event === 'error') {
          final = finalOf(message, event);
          return;
        }
        const converted = agentEvent(event, base);
        if (converted) onEvent?.(converted);
      },
      signal,
    );
    return final ?? failed(message, 'The gateway closed the connection before the reply was complete.');
  };

  return {
    async request(message, onEvent, signal) {
      for (let attempt = 0; ; attempt++) {
        let outcome: OutboundMessage | 'unauthorized';
        try {
          outcome = await send(message, onEvent, signal);
        } catch (error) {
          if (signal?.aborted) return failed(message, 'Stopped.');
          // Refused before anything was sent (the gateway is down or restarting): look it up once more.
          const refused = (error as { cause?: { code?: string } }).cause?.code === 'ECONNREFUSED';
          if (refused && attempt === 0 && (await refresh())) continue;
          return failed(
            message,
            `The gateway at ${link.url} stopped answering (${(error as Error).message}). Start it again with \`${wren()} start\`, then leave and run \`${wren()} chat\` again.`,
          );
        }
        if (outcome !== 'unauthorized') return outcome;
        if (attempt === 0 && (await refresh())) continue;
        return failed(
          message,
          `The gateway no longer accepts this chat (it was restarted); leave and run \`${wren()} chat\` again.`,
        );
      }
    },
    async answerApproval(answer) {
      let response: Response;
      try {
        response = await fetch(`${link.url}/api/approvals/${encodeURIComponent(answer.id)}`, {
          method: 'POST',
          headers: { ...auth(), 'content-type': 'application/json' },
          body: JSON.stringify({ answer: answer.choice }),
        });
      } catch (error) {
        return {
          ok: false,
          code: 'no_gate',
          message: `the gateway stopped answering (${(error as Error).message})`,
        };
      }
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

function replyBase(message: InboundMessage) {
  return { channel: message.channel, chatId: message.chatId, replyTo: message.id };
}

/** The `done`/`error` event of a chat stream as the reply. */
function finalOf(message: InboundMessage, event: ServerEvent): OutboundMessage {
  const data = JSON.parse(event.data) as Record<string, unknown>;
  return {
    ...replyBase(message),
    sessionId: String(data['session'] ?? ''),
    text: String(data['reply'] ?? ''),
    kind: (data['kind'] as OutboundMessage['kind']) ?? (event.event === 'error' ? 'error' : 'reply'),
    usage: (data['usage'] as OutboundMessage['usage']) ?? ZERO,
    ...(typeof data['notice'] === 'string' ? { notice: data['notice'] } : {}),
  };
}

/** A `message` event of /api/events as the terminal's OutboundMessage. */
function outboundOf(data: Record<string, unknown>): OutboundMessage {
  return {
    channel: String(data['channel'] ?? 'cli'),
    chatId: String(data['chat'] ?? 'terminal'),
    replyTo: String(data['replyTo'] ?? ''),
    sessionId: String(data['session'] ?? ''),
    text: String(data['text'] ?? ''),
    kind: (data['kind'] as OutboundMessage['kind']) ?? 'message',
    usage: ZERO,
  };
}
