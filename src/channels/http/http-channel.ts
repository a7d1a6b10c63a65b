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

  constructor(options: { bus: MessageBus; onError?: (error: unknown) => void }) {
    super({ name: 'api', ...options });
    this.messages = options.bus;
  }

  async start(): Promise<void> {
    this.attach({ delivers: false, approvals: false });
    this.setState('connected');
  }

  async stop(): Promise<void> {
    this.detach();
    this.setState('stopped');
  }

  /** The API's own messages and an attached terminal's: both reach their watchers through this face. */
  protected override owns(where: { channel: string; chatId: string }): boolean {
    return where.channel === this.name || (where.channel === 'cli' && where.chatId === TERMINAL_CHAT);
  }

  async send(message: OutboundMessage): Promise<void> {
    for (const watcher of this.watchers.get(message.channel) ?? []) watcher(message);
  }

  /** One owner message; `onEvent` gets the turn's progress. `signal`: the client went away (cancels). */
  ask(input: ApiChatInput, onEvent?: (event: AgentEvent) => void, signal?: AbortSignal): ApiTurn {
    const session = input.session ?? (input.terminal ? undefined : randomUUID());
    const message = this.ownerMessage(input.terminal ? TERMINAL_CHAT : (session ?? ''), input.text, {
      // The token holder can answer approvals through /api/approvals while the turn waits.
      interactive: input.interactive ?? true,
      ...(session ? { sessionId: session } : {}),
      ...(input.media ? { media: input.media } : {}),
      ...(input.terminal ? { channel: 'cli' } : {}),
    });
    return { session, reply: this.request(message, onEvent, signal) };
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
