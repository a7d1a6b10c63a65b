import type { MessageBus } from '../bus/message-bus.js';
import type { AgentEvent, InboundMessage, OutboundMessage } from '../bus/messages.js';
import { sessionKeyOf } from '../bus/messages.js';
import { estimateMessageTokens } from '../llm/token-estimate.js';
import type { ChatMessage, ChatModel, Usage } from '../llm/types.js';
import { Semaphore } from '../util/semaphore.js';
import type { ContextBuilder } from './context-builder.js';
import { TurnPreparation } from './prepare-turn.js';
import { runTurn, type TurnResult } from './run-turn.js';
import type { SessionRecord, SessionStore } from './session-store.js';
import { helpText, parseCommand, type RuntimeCommand, unknownCommandReply } from './slash-commands.js';
import type { AfterToolCall, BeforeToolCall, ToolRegistry } from './tool-registry.js';
import { describeOutcome, toAgentEvent } from './turn-outcome.js';

export type { RuntimeCommand } from './slash-commands.js';

export interface AgentSettings {
  maxRounds: number;
  maxConcurrency: number;
  /** Tool calls of one response that run at once (default 4). */
  maxParallelTools?: number;
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
  /** The workspace folder; read at every turn so a config reload that moves it applies. */
  workspace: () => string;
  /** Read at every turn, so config reloads apply to the next turn. */
  settings: () => AgentSettings;
  beforeToolCall?: BeforeToolCall;
  afterToolCall?: AfterToolCall;
  /**
   * Called when a turn starts, before its message is stored (e.g. to mark a session that a non-owner wrote
   * in as untrusted, so nothing from it is consolidated into the owner's memory).
   */
  onTurnStart?: (info: { session: SessionRecord; message: InboundMessage }) => void;
  /** Called after every turn that used the model (persist usage, metrics). */
  onTurnEnd?: (info: { session: SessionRecord; usage: Usage; endpoint?: string; result: TurnResult }) => void;
  onError?: (error: unknown) => void;
  /** Extra slash commands by name without the slash (e.g. `memory`). */
  commands?: Record<string, RuntimeCommand>;
  /** Runs before `/new` replaces the active session (e.g. to consolidate it); a failure does not block /new. */
  beforeNewSession?: (old: SessionRecord) => Promise<void>;
}

/** The turns of one session: they run one after another. */
interface Lane {
  tail: Promise<void>;
  pending: number;
  /** The turn whose time it is (running, or waiting for a concurrency slot): what `/stop` cancels. */
  head?: AbortController;
}

const ZERO: Usage = { inputTokens: 0, outputTokens: 0 };
const SHUTTING_DOWN = 'Wren is shutting down; send this again later.';

/**
 * Turns inbound messages into replies. Every message is first routed, in arrival order per conversation, to
 * its session; turns of one session then run one after another (a second message queues behind the first),
 * and different sessions run concurrently up to `maxConcurrency`. `/stop` cancels the session's current turn
 * (running or waiting for a slot); `bus.cancel(id)` drops or cancels one message's turn. Every inbound message
 * gets exactly one outbound message.
 */
export class AgentRuntime {
  /** Per routing key (`sessionId` or `channel:chatId`): the chain that resolves sessions in arrival order. */
  private readonly routes = new Map<string, Promise<void>>();
  private readonly lanes = new Map<string, Lane>();
  /** Controllers of turns queued or running, by inbound message id. */
  private readonly tickets = new Map<string, AbortController>();
  private readonly semaphore: Semaphore;
  /** The system prompt and tool schemas rarely change between turns: tokenize them again only when they do. */
  private readonly preparation: TurnPreparation;
  private readonly detach: Array<() => void> = [];
  private closing = false;

  constructor(private readonly options: AgentRuntimeOptions) {
    this.semaphore = new Semaphore(options.settings().maxConcurrency);
    this.preparation = new TurnPreparation({
      store: options.store,
      model: options.model,
      registry: options.registry,
      context: () => this.options.context,
    });
  }

  start(): void {
    this.detach.push(this.options.bus.consumeInbound((message) => this.accept(message)));
    this.detach.push(
      this.options.bus.subscribeCancel((id) => this.tickets.get(id)?.abort(new Error('cancelled'))),
    );
  }

  /** Turns running or queued right now. */
  inFlight(): number {
    return this.tickets.size;
  }

  /**
   * Stops taking messages (queued turns that have not started are answered "shutting down"), lets running
   * turns finish for up to `graceMs`, then cancels them. Resolves when no turn is running.
   */
  async stop(graceMs: number): Promise<void> {
    this.closing = true;
    const settled = () =>
      Promise.allSettled([...this.routes.values(), ...[...this.lanes.values()].map((lane) => lane.tail)]);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = await Promise.race([
      settled().then(() => false),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(true), graceMs);
      }),
    ]);
    clearTimeout(timer);
    if (timedOut) {
      for (const controller of this.tickets.values()) controller.abort(new Error('Wren is shutting down'));
      await settled();
    }
    for (const undo of this.detach.splice(0)) undo();
  }

  private accept(message: InboundMessage): void {
    const command = message.text.trim().toLowerCase();
    if (command === '/help') {
      this.reply(
        message,
        message.sessionId ?? '',
        helpText(message.fromOwner ? (this.options.commands ?? {}) : {}, message.channel),
        'notice',
      );
      return;
    }
    // Subagent reports and other machine-made messages are never commands.
    const unknown =
      message.spawnDepth === undefined || message.spawnDepth === 0
        ? unknownCommandReply(message.text, this.knownCommands())
        : undefined;
    if (unknown) {
      this.reply(message, message.sessionId ?? '', unknown, 'notice');
      return;
    }
    if (command === '/exit' || command === '/quit') {
      // The terminal chat handles these itself; anywhere else there is nothing to leave.
      this.reply(
        message,
        message.sessionId ?? '',
        `${command} leaves the terminal chat; here there is nothing to leave.`,
        'notice',
      );
      return;
    }
    if (this.closing) {
      this.reply(message, message.sessionId ?? '', SHUTTING_DOWN, 'error');
      return;
    }
    const controller = new AbortController();
    if (command !== '/stop' && command !== '/new') this.tickets.set(message.id, controller);
    const routingKey = message.sessionId ?? sessionKeyOf(message);
    const previous = this.routes.get(routingKey) ?? Promise.resolve();
    const next = previous
      .then(() => this.route(message, command, controller))
      .catch((error: unknown) => this.fail(message, error));
    this.routes.set(routingKey, next);
    void next.finally(() => {
      if (this.routes.get(routingKey) === next) this.routes.delete(routingKey);
    });
  }

  /** Stage one, in arrival order per routing key: find the session, then act or queue the turn. */
  private async route(message: InboundMessage, command: string, controller: AbortController): Promise<void> {
    const { store } = this.options;
    const init = { channel: message.channel, chatId: message.chatId };
    if (command === '/new') {
      const old = await this.resolveSession(message);
      await this.options.beforeNewSession?.(old).catch((error: unknown) => this.options.onError?.(error));
      const fresh = await store.createSession(sessionKeyOf(message), init);
      this.reply(message, fresh.id, `Started a new session (${fresh.id}).`, 'notice');
      return;
    }
    const session = await this.resolveSession(message);
    if (command === '/stop') {
      const head = this.lanes.get(session.id)?.head;
      head?.abort(new Error('stopped by the user'));
      this.reply(message, session.id, head ? 'Stopping the running reply.' : 'Nothing is running.', 'notice');
      return;
    }
    this.enqueue(message, session, controller);
  }

  private enqueue(message: InboundMessage, session: SessionRecord, controller: AbortController): void {
    let lane = this.lanes.get(session.id);
    if (!lane) {
      lane = { tail: Promise.resolve(), pending: 0 };
      this.lanes.set(session.id, lane);
    }
    const current = lane;
    current.pending++;
    current.tail = current.tail
      .then(() => this.runQueued(message, session, controller, current))
      .catch((error: unknown) => this.fail(message, error, session.id))
      .finally(() => {
        current.pending--;
        this.tickets.delete(message.id);
        if (current.pending === 0 && this.lanes.get(session.id) === current) this.lanes.delete(session.id);
      });
  }

  private async runQueued(
    message: InboundMessage,
    session: SessionRecord,
    controller: AbortController,
    lane: Lane,
  ): Promise<void> {
    if (this.closing) return this.reply(message, session.id, SHUTTING_DOWN, 'error');
    if (controller.signal.aborted) return this.reply(message, session.id, 'Stopped.', 'notice');
    const plugged = this.pluggedCommand(message.text);
    if (plugged && message.fromOwner !== true) {
      return this.reply(message, session.id, 'That command is only available to the owner.', 'notice');
    }
    if (plugged) {
      const text = await plugged.command.run(plugged.args, { message, session, signal: controller.signal });
      return this.reply(message, session.id, text, 'notice');
    }
    lane.head = controller;
    try {
      this.semaphore.setLimit(this.options.settings().maxConcurrency);
      const outbound = await this.semaphore.run(
        () => this.runSessionTurn(message, session, controller.signal),
        controller.signal,
        undefined,
      );
      if (!outbound) return this.reply(message, session.id, 'Stopped.', 'notice');
      this.options.bus.publishOutbound({
        ...outbound,
        channel: message.channel,
        chatId: message.chatId,
        replyTo: message.id,
      });
    } finally {
      lane.head = undefined;
    }
  }

  /** Built-ins, plugged commands, and what faces handle before a message reaches the bus (`/exit`). */
  private knownCommands(): Set<string> {
    return new Set(['help', 'new', 'stop', 'exit', 'quit', ...Object.keys(this.options.commands ?? {})]);
  }

  private pluggedCommand(text: string): { command: RuntimeCommand; args: string } | undefined {
    const parsed = parseCommand(text);
    const command = parsed ? this.options.commands?.[parsed.name] : undefined;
    return command && parsed ? { command, args: parsed.args } : undefined;
  }

  private fail(message: InboundMessage, error: unknown, sessionId = ''): void {
    this.options.onError?.(error);
    this.reply(
      message,
      sessionId,
      'Something went wrong inside Wren; the details are in logs/wren.log.',
      'error',
    );
  }

  private async resolveSession(message: InboundMessage): Promise<SessionRecord> {
    const { store } = this.options;
    const init = { channel: message.channel, chatId: message.chatId };
    if (!message.sessionId) return store.activeSession(sessionKeyOf(message), init);
    const existing = await store.getSession(message.sessionId);
    return existing ?? store.createSession(sessionKeyOf(message), { ...init, id: message.sessionId });
  }

  /** Runs and stores one turn; returns the answer for the caller to publish once the lane is free. */
  private async runSessionTurn(
    message: InboundMessage,
    session: SessionRecord,
    signal: AbortSignal,
  ): Promise<Omit<OutboundMessage, 'channel' | 'chatId' | 'replyTo'>> {
    const { bus, store, model, registry, workspace } = this.options;
    const settings = this.options.settings();
    const base = {
      sessionId: session.id,
      replyTo: message.id,
      channel: message.channel,
      chatId: message.chatId,
    };
    const emit = (event: AgentEvent) => bus.publishEvent(event);
    emit({ ...base, type: 'turn-start' });
    this.options.onTurnStart?.({ session, message });

    const { system, userMessage, history, requestUser, limits } = await this.preparation.prepare(
      message,
      session,
      settings.historyReserveTokens,
    );
    // Stored before the model is asked, and each message of the turn as it happens (see runTurn's persist):
    // a turn killed mid-way leaves a history that shows what it already did.
    const persist = (item: { message: ChatMessage; details?: unknown }) =>
      store.appendMessages(session.id, [
        {
          message: item.message,
          tokens: estimateMessageTokens(item.message),
          ...(item.details === undefined ? {} : { details: item.details }),
        },
      ]);
    await persist({ message: userMessage });
    const result = await runTurn({
      model,
      registry,
      system,
      messages: [...history, requestUser],
      persist,
      toolContext: {
        sessionId: session.id,
        channel: message.channel,
        chatId: message.chatId,
        senderId: message.senderId,
        isOwner: message.fromOwner === true,
        interactive: message.interactive === true,
        workspace: workspace(),
        spawnDepth: message.spawnDepth ?? 0,
      },
      maxRounds: settings.maxRounds,
      ...(settings.maxParallelTools ? { maxParallelTools: settings.maxParallelTools } : {}),
      repeatLimit: settings.repeatLimit,
      maxToolResultChars: settings.maxToolResultChars,
      maxOutputTokens: limits.maxOutputTokens,
      maxInputTokens: limits.contextWindow - limits.maxOutputTokens,
      ...(this.options.beforeToolCall ? { beforeToolCall: this.options.beforeToolCall } : {}),
      ...(this.options.afterToolCall ? { afterToolCall: this.options.afterToolCall } : {}),
      onEvent: (event) => emit(toAgentEvent(base, event)),
      signal,
    });

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
