import { randomUUID } from 'node:crypto';
import type {
  AgentEvent,
  ApprovalAnswerResult,
  ApprovalChoice,
  ApprovalEvent,
  ApprovalRequest,
  InboundMessage,
  OutboundMessage,
} from '../bus/messages.js';
import type { Channel, ChannelLink, ChannelState, ChannelStatus } from './channel.js';
import type { ChannelBus } from './channel-bus.js';

export interface ChannelBaseOptions {
  /** The channel's name on the bus (`cli`, `api`, `telegram`…). */
  name: string;
  bus: ChannelBus;
  /** Failures of `send`/`presentApproval` (logged by the caller; the turn is not affected). */
  onError?: (error: unknown) => void;
}

/** What an owner message may carry besides its text. */
export interface OwnerMessageOptions {
  sessionId?: string;
  /** Whether approvals can be asked while the turn waits (default true). */
  interactive?: boolean;
  media?: InboundMessage['media'];
  metadata?: Record<string, unknown>;
  /** Speak on another channel's conversation (the HTTP API carrying an attached terminal's lines). */
  channel?: string;
}

/**
 * What every face shares: building the messages it publishes, telling answers it awaits from messages Wren
 * sends on its own, routing its outbound messages and approval requests to `send`/`presentApproval`, and
 * letting only the owner answer approvals. Faces where the person is authenticated by the face itself (the
 * terminal: the process owner; the HTTP API: the token holder) speak with `ownerMessage`; chat platforms go
 * through PlatformChannel's allow-list instead.
 */
export abstract class ChannelBase implements Channel {
  readonly name: string;
  protected readonly bus: ChannelBus;
  /** Inbound ids whose answers come back through `request` rather than `send`. */
  private readonly awaited = new Set<string>();
  private detachers: Array<() => void> = [];
  private current: ChannelStatus;

  constructor(protected readonly options: ChannelBaseOptions) {
    this.name = options.name;
    this.bus = options.bus;
    this.current = { name: options.name, state: 'stopped', since: Date.now() };
  }

  abstract start(signal?: AbortSignal): Promise<void>;
  abstract stop(): Promise<void>;
  abstract send(message: OutboundMessage, signal?: AbortSignal): Promise<void>;
  presentApproval?(request: ApprovalRequest): Promise<void>;
  approvalResolved?(event: Extract<ApprovalEvent, { type: 'approval-resolved' }>): Promise<void>;

  status(): ChannelStatus {
    return { ...this.current };
  }

  /** `link`: only with `linking`, the QR or code to show (a new one replaces the old at the same state). */
  protected setState(state: ChannelState, detail?: string, link?: ChannelLink): void {
    if (this.current.state === state && this.current.detail === detail && this.current.link === link) return;
    const was = this.current.state;
    this.current = {
      name: this.name,
      state,
      ...(detail ? { detail } : {}),
      since: state === was ? this.current.since : Date.now(),
      ...(link && state === 'linking' ? { link } : {}),
    };
    // Approvals that waited through a restart are asked here once this face can show them.
    if (state === 'connected' && was !== 'connected') this.bus.replayApprovals?.(this.name);
  }

  /** Whether an outbound message or approval belongs to this face (default: its channel name). */
  protected owns(where: { channel: string; chatId: string }): boolean {
    return where.channel === this.name;
  }

  /**
   * Routes this face's outbound messages (other than answers it awaits through `request`) to `send` and its
   * approval traffic to `presentApproval`/`approvalResolved`. `delivers`: whether this face shows what Wren
   * sends on its own (the bus then counts it as connected). Idempotent.
   */
  protected attach(options: { delivers: boolean; approvals: boolean }): void {
    if (this.detachers.length > 0) return;
    const failed = (error: unknown) => this.options.onError?.(error);
    this.detachers.push(
      this.bus.subscribeOutbound(
        (message) => {
          if (!this.owns(message) || this.awaited.has(message.replyTo)) return;
          // Returned, so `bus.deliver` can tell a scheduled delivery failed (it is then retried).
          return this.send(message).catch((error: unknown) => {
            failed(error);
            throw error;
          });
        },
        options.delivers ? this.name : undefined,
      ),
    );
    if (options.approvals) {
      this.detachers.push(
        this.bus.subscribeApprovals((event) => {
          if (event.type === 'approval-requested') {
            if (this.owns(event.request)) this.presentApproval?.(event.request).catch(failed);
          } else if (this.owns(event)) {
            this.approvalResolved?.(event).catch(failed);
          }
        }),
      );
    }
  }

  protected detach(): void {
    for (const undo of this.detachers.splice(0)) undo();
  }

  /** An owner message of this face, with a fresh id (the face authenticated the owner itself). */
  protected ownerMessage(chatId: string, text: string, options: OwnerMessageOptions = {}): InboundMessage {
    return {
      id: randomUUID(),
      channel: options.channel ?? this.name,
      senderId: 'owner',
      fromOwner: true,
      chatId,
      text,
      interactive: options.interactive ?? true,
      ...(options.sessionId ? { sessionId: options.sessionId } : {}),
      ...(options.media?.length ? { media: options.media } : {}),
      ...(options.metadata ? { metadata: options.metadata } : {}),
    };
  }

  /** Publishes `message` and resolves with its answer (see MessageBus.request); never routed to `send`. */
  protected request(
    message: InboundMessage,
    onEvent?: (event: AgentEvent) => void,
    signal?: AbortSignal,
  ): Promise<OutboundMessage> {
    this.awaited.add(message.id);
    const done = () => queueMicrotask(() => this.awaited.delete(message.id));
    const answer = this.bus.request(message, onEvent, signal);
    answer.then(done, done);
    return answer;
  }

  /** Whether `inboundId` is a message of this face whose answer is still awaited. */
  isAwaited(inboundId: string): boolean {
    return this.awaited.has(inboundId);
  }

  /**
   * Passes an answer to the gate when `fromOwner` (the face checked who answered); anyone else's is refused.
   * `by` names who answered for the audit log.
   */
  protected async answerApproval(
    fromOwner: boolean,
    by: string,
    approvalId: string,
    choice: ApprovalChoice,
  ): Promise<ApprovalAnswerResult> {
    if (!fromOwner) {
      return { ok: false, code: 'not_allowed', message: 'Only the owner can answer approval requests.' };
    }
    return this.bus.answerApproval({ id: approvalId, choice, by });
  }
}
