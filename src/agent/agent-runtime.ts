import type { MessageBus } from '../bus/message-bus.js';
import type { AgentEvent, InboundMessage, OutboundMessage } from '../bus/messages.js';
import { sessionKeyOf } from '../bus/messages.js';
import { estimateMessageTokens, estimateTokens } from '../llm/token-estimate.js';
import type { ChatMessage, ChatModel, Usage } from '../llm/types.js';
import { Semaphore } from '../util/semaphore.js';
import type { ContextBuilder } from './context-builder.js';
import { type LoopEvent, runTurn, type TurnResult } from './run-turn.js';
import type { SessionRecord, SessionStore } from './session-store.js';
import { capText } from './tool-output.js';
import type { BeforeToolCall, ToolRegistry } from './tool-registry.js';

export interface AgentSettings {
  maxRounds: number;
  maxConcurrency: number;
  maxToolResultChars: number;
  repeatLimit: number;
  historyReserveTokens: number;
}

export interface AgentRuntimeOptions {
  bus: MessageBus;
  store: SessionStore;
  model: ChatModel;
  registry: ToolRegistry;
  context: ContextBuilder;
  workspace: string;
  /** Read at every turn, so config reloads apply to the next turn. */
  settings: () => AgentSettings;
  beforeToolCall?: BeforeToolCall;
  /** Called after every turn that used the model (persist usage, metrics). */
  onTurnEnd?: (info: { session: SessionRecord; usage: Usage; endpoint?: string; result: TurnResult }) => void;
  onError?: (error: unknown) => void;
}

interface Lane {
  tail: Promise<void>;
  running?: AbortController;
  pending: number;
}

const HELP = [
  'Commands:',
  '  /new   start a fresh session (the old one stays stored)',
  '  /stop  cancel the running reply',
  '  /help  this list',
].join('\n');

const ZERO: Usage = { inputTokens: 0, outputTokens: 0 };

/**
 * Turns inbound messages into replies. Turns of one conversation run one after another (a second message
 * queues behind the first); different conversations run concurrently up to `maxConcurrency`. `/stop` acts at
 * once on the running turn. Every inbound message gets exactly one outbound message.
 */
export class AgentRuntime {
  private readonly lanes = new Map<string, Lane>();
  private readonly semaphore: Semaphore;
  private detach: (() => void) | undefined;
  private closing = false;

  constructor(private readonly options: AgentRuntimeOptions) {
    this.semaphore = new Semaphore(options.settings().maxConcurrency);
  }

  start(): void {
    this.detach = this.options.bus.consumeInbound((message) => this.accept(message));
  }

  /** Turns running or queued right now. */
  inFlight(): number {
    let count = 0;
    for (const lane of this.lanes.values()) count += lane.pending;
    return count;
  }

  /**
   * Stops taking messages, lets in-flight turns finish for up to `graceMs`, then cancels the rest and waits
   * for them to wind down. Resolves when no turn is running.
   */
  async stop(graceMs: number): Promise<void> {
    this.closing = true;
    const all = () => Promise.allSettled([...this.lanes.values()].map((lane) => lane.tail));
    let timer: NodeJS.Timeout | undefined;
    const timedOut = await Promise.race([
      all().then(() => false),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(true), graceMs);
      }),
    ]);
    clearTimeout(timer);
    if (timedOut) {
      for (const lane of this.lanes.values()) lane.running?.abort(new Error('Wren is shutting down'));
      await all();
    }
    this.detach?.();
  }

  private accept(message: InboundMessage): void {
    const laneKey = message.sessionId ?? sessionKeyOf(message);
    const command = message.text.trim().toLowerCase();
    if (command === '/stop') {
      this.stopLane(laneKey, message);
      return;
    }
    if (command === '/help') {
      this.reply(message, '', HELP, 'notice');
      return;
    }
    if (this.closing) {
      this.reply(message, '', 'Wren is shutting down; send this again later.', 'error');
      return;
    }
    this.semaphore.setLimit(this.options.settings().maxConcurrency);
    let lane = this.lanes.get(laneKey);
    if (!lane) {
      lane = { tail: Promise.resolve(), pending: 0 };
      this.lanes.set(laneKey, lane);
    }
    const current = lane;
    current.pending++;
    current.tail = current.tail
      .then(() => this.semaphore.run(() => this.handle(message, current)))
      .catch((error: unknown) => {
        this.options.onError?.(error);
        this.reply(message, message.sessionId ?? '', `Internal error: ${(error as Error).message}`, 'error');
      })
      .finally(() => {
        current.pending--;
        if (current.pending === 0 && this.lanes.get(laneKey) === current) this.lanes.delete(laneKey);
      });
  }

  private stopLane(laneKey: string, message: InboundMessage): void {
    const running = this.lanes.get(laneKey)?.running;
    if (running) running.abort(new Error('stopped by the user'));
    this.reply(
      message,
      message.sessionId ?? '',
      running ? 'Stopping the running reply.' : 'Nothing is running.',
      'notice',
    );
  }

  private async resolveSession(message: InboundMessage): Promise<SessionRecord> {
    const { store } = this.options;
    const init = { channel: message.channel, chatId: message.chatId };
    if (!message.sessionId) return store.activeSession(sessionKeyOf(message), init);
    const existing = await store.getSession(message.sessionId);
    return existing ?? store.createSession(sessionKeyOf(message), { ...init, id: message.sessionId });
  }

  private async handle(message: InboundMessage, lane: Lane): Promise<void> {
    if (message.text.trim().toLowerCase() === '/new') {
      const fresh = await this.options.store.createSession(sessionKeyOf(message), {
        channel: message.channel,
        chatId: message.chatId,
      });
      return this.reply(message, fresh.id, 'Started a new session.', 'notice');
    }
    const session = await this.resolveSession(message);
    const controller = new AbortController();
    lane.running = controller;
    let outbound: Omit<OutboundMessage, 'channel' | 'chatId' | 'replyTo'>;
    try {
      outbound = await this.runSessionTurn(message, session, controller.signal);
    } finally {
      lane.running = undefined;
    }
    this.options.bus.publishOutbound({
      ...outbound,
      channel: message.channel,
      chatId: message.chatId,
      replyTo: message.id,
    });
  }

  /** Runs and stores one turn; returns the answer for the caller to publish once the lane is free. */
  private async runSessionTurn(
    message: InboundMessage,
    session: SessionRecord,
    signal: AbortSignal,
  ): Promise<Omit<OutboundMessage, 'channel' | 'chatId' | 'replyTo'>> {
    const { bus, store, model, registry, context, workspace } = this.options;
    const settings = this.options.settings();
    const base = {
      sessionId: session.id,
      replyTo: message.id,
      channel: message.channel,
      chatId: message.chatId,
    };
    const emit = (event: AgentEvent) => bus.publishEvent(event);
    emit({ ...base, type: 'turn-start' });

    const system = context.system();
    const userMessage: ChatMessage = message.media?.length
      ? { role: 'user', content: [{ type: 'text', text: message.text }, ...message.media] }
      : { role: 'user', content: message.text };
    const limits = model.limits();
    const fixed =
      estimateTokens(system.map((block) => block.text).join('\n')) +
      estimateTokens(JSON.stringify(registry.definitions())) +
      estimateMessageTokens(userMessage) +
      64;
    const budget = limits.contextWindow - limits.maxOutputTokens - settings.historyReserveTokens - fixed;
    const history = budget > 0 ? await store.recentMessages(session.id, budget) : [];
    const note = context.runtimeNote(message.channel);
    const requestUser = withNote(
      userMessage,
      note,
      Math.max(256, (budget + estimateMessageTokens(userMessage)) * 3),
    );

    const result = await runTurn({
      model,
      registry,
      system,
      messages: [...history.map((stored) => stored.message), requestUser],
      toolContext: {
        sessionId: session.id,
        channel: message.channel,
        chatId: message.chatId,
        workspace,
        progress: () => {},
      },
      maxRounds: settings.maxRounds,
      repeatLimit: settings.repeatLimit,
      maxToolResultChars: settings.maxToolResultChars,
      maxOutputTokens: limits.maxOutputTokens,
      ...(this.options.beforeToolCall ? { beforeToolCall: this.options.beforeToolCall } : {}),
      onEvent: (event) => emit(toAgentEvent(base, event)),
      signal,
    });

    const failedEmpty = result.stopReason === 'error' && result.produced.length === 0;
    if (!failedEmpty) {
      await store.appendMessages(session.id, [
        { message: userMessage, tokens: estimateMessageTokens(userMessage) },
        ...result.produced.map((item) => ({
          message: item.message,
          tokens: estimateMessageTokens(item.message),
          ...(item.details === undefined ? {} : { details: item.details }),
        })),
      ]);
    }
    this.options.onTurnEnd?.({
      session,
      usage: result.usage,
      ...(result.endpoint ? { endpoint: result.endpoint } : {}),
      result,
    });
    emit({ ...base, type: 'turn-end', stopReason: result.stopReason, usage: result.usage });
    const outcome = describeOutcome(result);
    return {
      sessionId: session.id,
      text: outcome.text,
      kind: outcome.kind,
      usage: result.usage,
      stopReason: result.stopReason,
      ...(outcome.notice ? { notice: outcome.notice } : {}),
    };
  }

  private reply(
    message: InboundMessage,
    sessionId: string,
    text: string,
    kind: OutboundMessage['kind'],
  ): void {
    this.options.bus.publishOutbound({
      channel: message.channel,
      chatId: message.chatId,
      replyTo: message.id,
      sessionId,
      text,
      kind,
      usage: ZERO,
    });
  }
}

/** Puts the runtime note in front of the user's text and caps text that could not fit the window anyway. */
function withNote(message: ChatMessage, note: string, maxChars: number): ChatMessage {
  if (message.role !== 'user') return message;
  const shorten = (text: string) =>
    text.length > maxChars
      ? `${capText(text, maxChars)}\n[This message was too long for the model's context window and was shortened.]`
      : text;
  if (typeof message.content === 'string')
    return { role: 'user', content: `${note}\n${shorten(message.content)}` };
  return {
    role: 'user',
    content: message.content.map((part, index) =>
      index === 0 && part.type === 'text' ? { type: 'text', text: `${note}\n${shorten(part.text)}` } : part,
    ),
  };
}

function toAgentEvent(
  base: { sessionId: string; replyTo: string; channel: string; chatId: string },
  event: LoopEvent,
): AgentEvent {
  switch (event.type) {
    case 'text-delta':
      return { ...base, type: 'text-delta', text: event.text };
    case 'tool-call-start':
      return {
        ...base,
        type: 'tool-call-start',
        callId: event.call.id,
        name: event.call.name,
        hint: event.hint,
      };
    case 'tool-call-end':
      return {
        ...base,
        type: 'tool-call-end',
        callId: event.call.id,
        name: event.call.name,
        isError: event.result.isError === true,
        preview: event.result.content.slice(0, 300),
      };
  }
}

function describeOutcome(result: TurnResult): {
  text: string;
  kind: OutboundMessage['kind'];
  notice?: string;
} {
  if (result.stopReason === 'aborted') {
    return {
      text: result.reply ? `${result.reply}\n\n(stopped)` : 'Stopped.',
      kind: 'notice',
      notice: 'stopped',
    };
  }
  if (result.stopReason === 'error') {
    return { text: result.errorMessage ?? 'The model request failed.', kind: 'error' };
  }
  const notices: string[] = [];
  if (result.stopReason === 'length')
    notices.push('The reply hit the output token limit and may be cut short.');
  if (result.notice) notices.push(result.notice);
  const notice = notices.join(' ');
  const text = (result.reply || '(no reply)') + (notice ? `\n\n(${notice})` : '');
  return notice ? { text, kind: 'reply', notice } : { text, kind: 'reply' };
}
