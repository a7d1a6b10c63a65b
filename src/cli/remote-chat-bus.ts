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
  return new RemoteChatBus(initial, relink);
}

type ApprovalCode = Extract<ApprovalAnswerResult, { ok: false }>['code'];

class RemoteChatBus implements ChannelBus {
  private readonly approvalListeners = new Set<(event: ApprovalEvent) => void>();
  private readonly outboundListeners = new Set<(message: OutboundMessage) => void>();
  private events: AbortController | undefined;
  /** Resolves once the events stream said `ready` (or failed): a request waits, so no early event is lost. */
  private ready: Promise<void> = Promise.resolve();

  constructor(
    private link: GatewayLink,
    private readonly relink: () => Promise<GatewayLink | undefined>,
  ) {}

  async request(
    message: InboundMessage,
    onEvent?: (event: AgentEvent) => void,
    signal?: AbortSignal,
  ): Promise<OutboundMessage> {
    for (let attempt = 0; ; attempt++) {
      let outcome: OutboundMessage | 'unauthorized';
      try {
        outcome = await this.send(message, onEvent, signal);
      } catch (error) {
        if (signal?.aborted) return failed(message, 'Stopped.');
        // Refused before anything was sent (the gateway is down or restarting): look it up once more.
        const refused = (error as { cause?: { code?: string } }).cause?.code === 'ECONNREFUSED';
        if (refused && attempt === 0 && (await this.refresh())) continue;
        return failed(
          message,
          `The gateway at ${this.link.url} stopped answering (${(error as Error).message}). Start it again with \`${wren()} start\`, then leave and run \`${wren()} chat\` again.`,
        );
      }
      if (outcome !== 'unauthorized') return outcome;
      if (attempt === 0 && (await this.refresh())) continue;
      return failed(
        message,
        `The gateway no longer accepts this chat (it was restarted); leave and run \`${wren()} chat\` again.`,
      );
    }
  }

  async answerApproval(answer: { id: string; choice: string }): Promise<ApprovalAnswerResult> {
    let response: Response;
    try {
      response = await fetch(`${this.link.url}/api/approvals/${encodeURIComponent(answer.id)}`, {
        method: 'POST',
        headers: { ...this.auth(), 'content-type': 'application/json' },
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
    const body = (await response.json().catch(() => ({}))) as { error?: { code?: string; message?: string } };
    return {
      ok: false,
      code: (body.error?.code as ApprovalCode) ?? 'not_found',
      message: body.error?.message ?? `the gateway answered ${response.status}`,
    };
  }

  subscribeApprovals(listener: (event: ApprovalEvent) => void): () => void {
    return this.subscribe(this.approvalListeners, listener);
  }

  subscribeOutbound(listener: (message: OutboundMessage) => void): () => void {
    return this.subscribe(this.outboundListeners, listener);
  }

  private subscribe<T>(listeners: Set<T>, listener: T): () => void {
    listeners.add(listener);
    this.listen();
    return () => {
      listeners.delete(listener);
      this.unlisten();
    };
  }

  private auth() {
    return { authorization: `Bearer ${this.link.token}` };
  }

  private listening(): boolean {
    return this.approvalListeners.size + this.outboundListeners.size > 0;
  }

  private onStreamEvent(event: ServerEvent): void {
    if (event.event === 'approval') {
      const request = JSON.parse(event.data) as Extract<
        ApprovalEvent,
        { type: 'approval-requested' }
      >['request'];
      for (const listener of this.approvalListeners) listener({ type: 'approval-requested', request });
    } else if (event.event === 'approval-resolved') {
      const resolved = JSON.parse(event.data) as ApprovalEvent;
      for (const listener of this.approvalListeners) listener(resolved);
    } else if (event.event === 'message') {
      for (const listener of this.outboundListeners) listener(outboundOf(JSON.parse(event.data)));
    }
  }

  private listen(): void {
    if (this.events || !this.listening()) return;
    const controller = new AbortController();
    this.events = controller;
    let isReady: () => void = () => {};
    this.ready = new Promise<void>((resolve) => {
      isReady = resolve;
    });
    void fetch(`${this.link.url}/api/events?channel=cli`, { headers: this.auth(), signal: controller.signal })
      .then((response) =>
        readEvents(
          response,
          (event) => (event.event === 'ready' ? isReady() : this.onStreamEvent(event)),
          controller.signal,
        ),
      )
      .catch(() => {})
      .finally(() => {
        isReady();
        // The stream ended on its own (the gateway stopped): the next request or relink reopens it.
        if (this.events === controller) this.events = undefined;
      });
  }

  private unlisten(): void {
    if (this.listening()) return;
    this.events?.abort();
    this.events = undefined;
  }

  /** Looks the gateway up again (it restarted: new address or token); true when there is one. */
  private async refresh(): Promise<boolean> {
    const next = await this.relink();
    if (!next) return false;
    this.link = next;
    this.events?.abort();
    this.events = undefined;
    this.listen();
    return true;
  }

  private async send(
    message: InboundMessage,
    onEvent: ((event: AgentEvent) => void) | undefined,
    signal: AbortSignal | undefined,
  ): Promise<OutboundMessage | 'unauthorized'> {
    this.listen();
    await this.ready;
    const response = await fetch(`${this.link.url}/api/chat`, {
      method: 'POST',
      headers: { ...this.auth(), 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({
        message: message.text,
        terminal: message.chatId === 'terminal',
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
  }
}

function failed(message: InboundMessage, text: string): OutboundMessage {
  return { ...replyBase(message), sessionId: message.sessionId ?? '', text, kind: 'error', usage: ZERO };
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
