import * as z from 'zod';
import type { MessageBus } from '../bus/message-bus.js';
import type {
  ApprovalAnswerResult,
  ApprovalChoice,
  ApprovalRequest,
  InboundMessage,
  OutboundMessage,
} from '../bus/messages.js';
import type { ImagePart } from '../llm/types.js';

const id = z.string().trim().min(1);

/**
 * Who may talk to Wren on one channel, as each channel's config section spells it. Ids only, never display
 * names. An empty `allow_from` means nobody but the owner; `["*"]` means anyone.
 */
export const channelAccessSchema = z.strictObject({
  owner_ids: z.array(id).default([]),
  allow_from: z.array(id).default([]),
  /** Answer strangers once with their id and how to get added, instead of silence. */
  pairing: z.boolean().default(false),
});

export interface ChannelAccess {
  readonly ownerIds: readonly string[];
  readonly allowFrom: readonly string[];
  readonly pairing: boolean;
}

/** Maps a parsed access section to {@link ChannelAccess}. Pure. */
export function toChannelAccess(parsed: z.output<typeof channelAccessSchema>): ChannelAccess {
  return { ownerIds: parsed.owner_ids, allowFrom: parsed.allow_from, pairing: parsed.pairing };
}

/** One message as a platform delivered it. */
export interface PlatformMessage {
  /** The platform's message id: the de-duplication key within the chat. */
  platformId: string;
  senderId: string;
  chatId: string;
  text: string;
  media?: ImagePart[];
  metadata?: Record<string, unknown>;
}

/** What became of one platform message. */
export type ReceiveResult = 'accepted' | 'duplicate' | 'blocked';

export interface ChannelBaseOptions {
  /** The channel's name on the bus (`telegram`, `discord`…). */
  name: string;
  bus: MessageBus;
  /** Read per message, so a config reload applies at once. */
  access: () => ChannelAccess;
  /** How many recent platform ids are remembered for de-duplication (default 2048). */
  dedupeCapacity?: number;
  /** Delivery failures of `send` (logged by the caller). */
  onError?: (error: unknown) => void;
}

/**
 * What every channel inherits: the allow-list and owner check and inbound de-duplication, so no adapter can
 * forget them. A blocked sender's message never reaches the bus (zero model tokens) and gets no reply — or,
 * with `pairing`, one hint per sender naming their id. The owner's messages are marked `fromOwner` and
 * interactive; other allowed senders' are neither (their asks are denied at once, and the gate taints the
 * session). Adapters implement `start/stop/send`, call `receive` for every platform message and may
 * implement `presentApproval` to ask the owner inline.
 */
export abstract class ChannelBase {
  readonly name: string;
  private readonly seen = new Map<string, true>();
  private readonly hinted = new Set<string>();
  private detachers: Array<() => void> = [];

  constructor(protected readonly options: ChannelBaseOptions) {
    this.name = options.name;
  }

  abstract start(signal?: AbortSignal): Promise<void>;
  abstract stop(): Promise<void>;
  abstract send(message: OutboundMessage, signal?: AbortSignal): Promise<void>;
  /** Shows an approval request to the owner on this platform (optional capability). */
  presentApproval?(request: ApprovalRequest): Promise<void>;

  /** Routes this channel's outbound messages and approval requests to `send`/`presentApproval`. Idempotent. */
  attach(): void {
    if (this.detachers.length > 0) return;
    const failed = (error: unknown) => this.options.onError?.(error);
    this.detachers.push(
      this.options.bus.subscribeOutbound((message) => {
        if (message.channel === this.name) this.send(message).catch(failed);
      }),
      this.options.bus.subscribeApprovals((event) => {
        if (
          event.type === 'approval-requested' &&
          event.request.channel === this.name &&
          this.presentApproval
        ) {
          this.presentApproval(event.request).catch(failed);
        }
      }),
    );
  }

  detach(): void {
    for (const undo of this.detachers.splice(0)) undo();
  }

  /** Whether `senderId` is one of the owner's ids on this channel. */
  isOwner(senderId: string): boolean {
    return this.options.access().ownerIds.includes(senderId);
  }

  /**
   * Admits one platform message: drops repeats of a platform id, blocks senders who are neither the owner
   * nor on `allow_from`, and publishes the rest on the bus.
   */
  protected receive(message: PlatformMessage): ReceiveResult {
    const key = `${message.chatId}\u0000${message.platformId}`;
    if (this.seen.has(key)) return 'duplicate';
    this.remember(key);
    const access = this.options.access();
    const owner = access.ownerIds.includes(message.senderId);
    const allowed = owner || access.allowFrom.includes('*') || access.allowFrom.includes(message.senderId);
    if (!allowed) {
      if (access.pairing) this.hint(message);
      return 'blocked';
    }
    const inbound: InboundMessage = {
      id: `${this.name}:${message.chatId}:${message.platformId}`,
      channel: this.name,
      senderId: message.senderId,
      chatId: message.chatId,
      text: message.text,
      fromOwner: owner,
      interactive: owner,
      ...(message.media?.length ? { media: message.media } : {}),
      ...(message.metadata ? { metadata: message.metadata } : {}),
    };
    this.options.bus.publishInbound(inbound);
    return 'accepted';
  }

  /** Passes the owner's answer to the gate; anyone else's is refused. */
  protected answerApproval(
    senderId: string,
    approvalId: string,
    choice: ApprovalChoice,
  ): ApprovalAnswerResult {
    if (!this.isOwner(senderId)) {
      return { ok: false, code: 'not_allowed', message: 'Only the owner can answer approval requests.' };
    }
    return this.options.bus.answerApproval({ id: approvalId, choice, by: `${this.name}:${senderId}` });
  }

  private remember(key: string): void {
    this.seen.set(key, true);
    const capacity = this.options.dedupeCapacity ?? 2048;
    while (this.seen.size > capacity) this.seen.delete(this.seen.keys().next().value as string);
  }

  private hint(message: PlatformMessage): void {
    if (this.hinted.has(message.senderId)) return;
    this.hinted.add(message.senderId);
    const text = `This assistant only talks to people its owner has allowed. Your id on ${this.name} is ${message.senderId}; ask the owner to add it to allow_from.`;
    this.send({
      channel: this.name,
      chatId: message.chatId,
      replyTo: `${this.name}:${message.chatId}:${message.platformId}`,
      sessionId: '',
      text,
      kind: 'notice',
      usage: { inputTokens: 0, outputTokens: 0 },
    }).catch((error: unknown) => this.options.onError?.(error));
  }
}
