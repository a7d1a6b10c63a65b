import { randomUUID } from 'node:crypto';
import type { MessageBus } from '../../bus/message-bus.js';
import type {
  AgentEvent,
  ApprovalAnswerResult,
  ApprovalChoice,
  ApprovalEvent,
  OutboundMessage,
  ScheduleEvent,
} from '../../bus/messages.js';
import type { ImagePart } from '../../llm/types.js';
import { ChannelBase } from '../channel-base.js';
import { TERMINAL_CHAT } from '../terminal/terminal-channel.js';
import {
  type TurnChange,
  TurnRegistry,
  type TurnRegistryOptions,
  type TurnSnapshot,
} from './turn-registry.js';

/** One owner message as the API received it (already validated). */
export interface ApiChatInput {
  text: string;
  /** Continue this session; absent: a new one (or, for an attached terminal, the terminal's active one). */
  session?: string;
  media?: ImagePart[];
  /** An attached `wren chat`: speaks in the terminal's conversation (`cli:terminal`). */
  terminal?: boolean;
  /** Whether the caller can answer approvals while the turn waits (default true). */
  interactive?: boolean;
}

/** A message the API accepted: the session it runs in (when known before the answer) and the answer. */
export interface ApiTurn {
  session: string | undefined;
  reply: Promise<OutboundMessage>;
}

export type { TurnChange, TurnSegment, TurnSnapshot, TurnState } from './turn-registry.js';

type Watcher = (message: OutboundMessage) => void;

/**
 * The HTTP API as a channel (`api`): the bearer-token holder is the owner. Each `POST /api/chat` is a turn
 * whose answer comes back to that request; what Wren sends on its own goes to whoever watches `/api/events`
 * (the API's own messages, or — for an attached terminal — the `cli` channel's). The gateway never builds
 * messages or filters bus traffic itself: it asks this channel.
 */
export class HttpChannel extends ChannelBase {
  private readonly messages: MessageBus;
  private readonly watchers = new Map<string, Set<Watcher>>();
  /** The turns of API conversations in flight (and for a short while after), for clients that re-attach. */
  private readonly turns: TurnRegistry;
  private stopTracking: (() => void) | undefined;

  constructor(options: { bus: MessageBus; onError?: (error: unknown) => void; turns?: TurnRegistryOptions }) {
    super({ name: 'api', bus: options.bus, ...(options.onError ? { onError: options.onError } : {}) });
    this.messages = options.bus;
    this.turns = new TurnRegistry(options.turns);
  }

  async start(): Promise<void> {
    this.attach({ delivers: false, approvals: false });
    this.stopTracking ??= this.bus.subscribeApprovals((event) => this.turns.approval(event));
    this.setState('connected');
  }

  async stop(): Promise<void> {
    this.detach();
    this.stopTracking?.();
    this.stopTracking = undefined;
    this.setState('stopped');
  }

  /** The API's own messages and an attached terminal's: both reach their watchers through this face. */
  protected override owns(where: { channel: string; chatId: string }): boolean {
    return where.channel === this.name || (where.channel === 'cli' && where.chatId === TERMINAL_CHAT);
  }

  async send(message: OutboundMessage): Promise<void> {
    for (const watcher of this.watchers.get(message.channel) ?? []) watcher(message);
  }

  /**
   * One owner message; `onEvent` gets the turn's progress. Aborting `signal` (the client went away) cancels
   * the turn; without a signal it runs to its end whoever listens. A turn of an API conversation (not the
   * attached terminal's) is kept in the turn registry while it runs, so `turnOf`/`watchTurn` can show it to
   * a client that was not watching.
   */
  ask(input: ApiChatInput, onEventOf?: (event: AgentEvent) => void, signal?: AbortSignal): ApiTurn {
    const session = input.session ?? (input.terminal ? undefined : randomUUID());
    const message = this.ownerMessage(input.terminal ? TERMINAL_CHAT : (session ?? ''), input.text, {
      // The token holder can answer approvals through /api/approvals while the turn waits.
      interactive: input.interactive ?? true,
      ...(session ? { sessionId: session } : {}),
      ...(input.media ? { media: input.media } : {}),
      ...(input.terminal ? { channel: 'cli' } : {}),
    });
    if (!session) return { session, reply: this.request(message, onEventOf, signal) };
    const id = message.id;
    this.turns.begin(id, session, input.text);
    const onEvent = (event: AgentEvent) => {
      this.turns.record(id, event);
      onEventOf?.(event);
    };
    const reply = this.request(message, onEvent, signal);
    reply.then(
      (outbound) => this.turns.end(id, outbound),
      () => this.turns.end(id, 'stopped'),
    );
    return { session, reply };
  }

  /** `session`'s turn in flight, or the one that ended a short while ago; undefined when there is none. */
  turnOf(session: string): TurnSnapshot | undefined {
    return this.turns.current(session);
  }

  /** `session`'s current turn and, while it runs, its changes from that moment on (see TurnRegistry.watch). */
  watchTurn(
    session: string,
    listener: (change: TurnChange) => void,
  ): { snapshot: TurnSnapshot; stop: () => void } | undefined {
    return this.turns.watch(session, listener);
  }

  /**
   * Cancels `session`'s running API turn (the web app's Stop): the turn ends `stopped` with the runtime's
   * answer. False when none runs.
   */
  stopTurn(session: string): boolean {
    const id = this.turns.runningId(session);
    if (!id) return false;
    this.messages.cancel(id);
    return true;
  }

  /** Approval traffic of one API conversation (its session), or of the attached terminal's. */
  watchApprovalsOf(
    scope: { session: string } | { terminal: true },
    listener: (event: ApprovalEvent) => void,
  ): () => void {
    return this.bus.subscribeApprovals((event) => {
      const where = event.type === 'approval-requested' ? event.request : event;
      const mine =
        'session' in scope
          ? where.sessionId === scope.session
          : where.channel === 'cli' && where.chatId === TERMINAL_CHAT;
      if (mine) listener(event);
    });
  }

  /**
   * What an open `/api/events` stream shows: every approval (the token holder is the owner), the
   * scheduler's news, and what Wren sends on its own on `channel` (`api`, or `cli` for an attached
   * terminal) — which counts that channel as connected while the stream is open.
   */
  watch(
    channel: 'api' | 'cli',
    listeners: {
      message: Watcher;
      approval: (event: ApprovalEvent) => void;
      schedule: (event: ScheduleEvent) => void;
      /** A turn started or ended in any conversation, on any channel (a web app refreshes that session). */
      activity?: (event: { phase: 'start' | 'end'; session: string; channel: string; chat: string }) => void;
    },
  ): () => void {
    const set = this.watchers.get(channel) ?? new Set<Watcher>();
    this.watchers.set(channel, set);
    set.add(listeners.message);
    const unannounce = this.messages.announceDelivery(channel);
    const stopApprovals = this.bus.subscribeApprovals(listeners.approval);
    const stopSchedule = this.messages.subscribeSchedule(listeners.schedule);
    const activity = listeners.activity;
    const stopActivity = activity
      ? this.messages.subscribeEvents((event) => {
          if (event.type !== 'turn-start' && event.type !== 'turn-end') return;
          activity({
            phase: event.type === 'turn-start' ? 'start' : 'end',
            session: event.sessionId,
            channel: event.channel,
            chat: event.chatId,
          });
        })
      : () => {};
    return () => {
      set.delete(listeners.message);
      unannounce();
      stopApprovals();
      stopSchedule();
      stopActivity();
    };
  }

  /** The token holder's answer (without a gate in this process the bus says so). */
  answer(approvalId: string, choice: ApprovalChoice): Promise<ApprovalAnswerResult> {
    return this.answerApproval(true, 'api', approvalId, choice);
  }
}
