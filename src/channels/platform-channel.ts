import type { MessageBus } from '../bus/message-bus.js';
import type {
  AgentEvent,
  ApprovalAnswerResult,
  ApprovalChoice,
  ApprovalEvent,
  ApprovalRequest,
  Attachment,
  InboundMessage,
  OutboundMessage,
} from '../bus/messages.js';
import { sleep } from '../llm/create-deadline.js';
import type { ImagePart } from '../llm/types.js';
import { describeApprovalText, parseApprovalReply, shortApprovalId } from './approval-text.js';
import type { ChannelState } from './channel.js';
import { type Addressing, type ChannelAccess, isAddressed, standingOf } from './channel-access.js';
import { ChannelBase } from './channel-base.js';
import type { ChannelLedger } from './channel-ledger.js';
import { defaultBackoff, retryDelay } from './retry.js';
import { SenderRateLimit } from './sender-rate-limit.js';
import { splitMessage } from './split-message.js';
import type { Transcribe } from './transcription.js';
import { type ProgressMode, TurnProgress } from './turn-progress.js';

/** One message as a platform delivered it, translated by the adapter. */
export interface PlatformMessage extends Addressing {
  /** The platform's message id: the de-duplication key within the chat. */
  platformId: string;
  senderId: string;
  /** Shown with pairing codes; never trusted for access. */
  senderName?: string;
  chatId: string;
  text: string;
  media?: ImagePart[];
  /** The text of the message this one replies to or quotes, as context for the model. */
  quote?: string;
  metadata?: Record<string, unknown>;
}

/**
 * What became of one platform message: `accepted` (on the bus), `duplicate` (seen before, even before a
 * restart), `blocked` (a stranger: zero tokens), `ignored` (a group message not addressed to Wren),
 * `limited` (over the sender's rate), `too_large`, `answered` (the owner's typed approval answer).
 */
export type ReceiveResult =
  | 'accepted'
  | 'duplicate'
  | 'blocked'
  | 'ignored'
  | 'limited'
  | 'too_large'
  | 'answered';

export interface PlatformChannelOptions {
  name: string;
  bus: MessageBus;
  /** Read per message, so a config edit applies at once. */
  access: () => ChannelAccess;
  ledger: ChannelLedger;
  /** Longest inbound text taken in (default 32,000 characters); longer gets a notice, no turn. */
  maxInboundChars?: number;
  /** Tool progress shown in the chat (default `hints`). */
  progress?: () => ProgressMode;
  /** Voice to text, when `channels.transcription` is configured (read per message). */
  transcribe?: () => Transcribe | undefined;
  /** Milliseconds before reconnect attempt `n` (default 1 s doubling to 60 s, ±20 %). */
  backoff?: (attempt: number) => number;
  clock?: () => number;
  onError?: (error: unknown) => void;
}

/**
 * The base of every chat-platform adapter: who may talk (owner, allow list, pairing, groups only when
 * addressed), de-duplication that survives restarts, per-sender rate limits and size caps, typed approval
 * answers, message splitting at the platform's limit, typing and tool progress, and reconnecting with
 * backoff. Adapters translate their platform: call `receive` for each message, implement `sendText`
 * (and optionally `sendFile`, `typing`, `postStatus`, button approvals), and run their connection through
 * `keepConnected`.
 */
export abstract class PlatformChannel extends ChannelBase {
  /** Longest text the platform takes in one message. */
  protected abstract readonly textLimit: number;
  protected readonly platform: PlatformChannelOptions;
  private readonly rates = new SenderRateLimit();
  private toldNoOwner = false;
  /** Approvals shown in chats, by short id. */
  private readonly presented = new Map<string, ApprovalRequest>();
  private progress: TurnProgress | undefined;

  constructor(options: PlatformChannelOptions) {
    super({ name: options.name, bus: options.bus, ...(options.onError ? { onError: options.onError } : {}) });
    this.platform = options;
  }

  /** Sends one piece of text (within `textLimit`) to a chat. */
  protected abstract sendText(chatId: string, text: string, options: { notice: boolean }): Promise<void>;
  /** Sends a file; default: its name and size as text. */
  protected async sendFile(chatId: string, file: Attachment): Promise<void> {
    await this.sendText(chatId, `📎 ${file.name} (${file.size} bytes)`, { notice: true });
  }
  /** Shows "typing…" for a few seconds (called again while a turn runs). */
  protected async typing(_chatId: string): Promise<void> {}
  /**
   * Posts or edits the one status message of a turn; returns its handle for the next edit. Default: none
   * (platforms without edits show no progress).
   */
  protected async postStatus(
    _chatId: string,
    _text: string,
    _handle?: string,
    _replyTo?: string,
  ): Promise<string | undefined> {
    return undefined;
  }

  protected now(): number {
    return this.platform.clock?.() ?? Date.now();
  }

  /** Starts routing replies, approvals and progress of this channel; adapters call it when they start. */
  protected attachPlatform(): void {
    // Counted as delivering only while connected (see setState): a failed or reconnecting channel makes
    // scheduled deliveries wait instead of vanishing into a dead connection.
    this.attach({ delivers: false, approvals: true });
    this.progress ??= new TurnProgress({
      mode: () => this.platform.progress?.() ?? 'hints',
      typing: (chatId) => this.typing(chatId),
      post: (chatId, text, handle, replyTo) => this.postStatus(chatId, text, handle, replyTo),
      onError: (error) => this.platform.onError?.(error),
    });
    const progress = this.progress;
    const stop = this.platform.bus.subscribeEvents((event: AgentEvent) => {
      if (event.channel === this.name) progress.onEvent(event);
    });
    const detachPlatform = () => {
      stop();
      progress.close();
    };
    this.onDetach(detachPlatform);
  }

  private readonly undoers: Array<() => void> = [];
  private onDetach(undo: () => void): void {
    this.undoers.push(undo);
  }

  protected detachPlatform(): void {
    this.detach();
    for (const undo of this.undoers.splice(0)) undo();
  }

  /**
   * The owner's direct chat: on platforms where a DM's chat id is the user id (Telegram, and by default),
   * the first owner id. Adapters where it differs override.
   */
  ownerChat(): string | undefined {
    return this.platform.access().owner[0];
  }

  private unannounce: (() => void) | undefined;

  protected override setState(state: ChannelState, detail?: string): void {
    super.setState(state, detail);
    if (state === 'connected') this.unannounce ??= this.platform.bus.announceDelivery(this.name);
    else if (this.unannounce) {
      this.unannounce();
      this.unannounce = undefined;
    }
  }

  /** Whether `senderId` is one of the owner's ids on this channel. */
  isOwner(senderId: string): boolean {
    return this.platform.access().owner.includes(senderId);
  }

  /** Admits one platform message (see ReceiveResult). Never throws for a bad message. */
  protected receive(message: PlatformMessage): ReceiveResult {
    const now = this.now();
    if (!this.platform.ledger.firstSeen(this.name, message.chatId, message.platformId, now))
      return 'duplicate';
    const access = this.platform.access();
    if (!isAddressed(access, message.chatId, message)) return 'ignored';
    const standing = standingOf(
      access,
      message.senderId,
      this.platform.ledger.isPaired(this.name, message.senderId),
    );
    if (standing === 'stranger') {
      if (access.pairing && !message.group) this.offerPairing(message, now);
      else if (access.owner.length === 0 && !this.toldNoOwner) {
        // Setting up, the owner's own first message lands here: say (once, in the log) what to write.
        this.toldNoOwner = true;
        this.platform.onError?.(
          new Error(
            `${this.name} has no owner set, so a message from ${message.senderId} was ignored; if that was you, add owner: ["${message.senderId}"] under channels.${this.name}`,
          ),
        );
      }
      return 'blocked';
    }
    const rate = this.rates.admit(message.senderId, access.rateLimit, now);
    if (rate !== 'ok') {
      if (rate === 'first-over')
        this.notice(
          message.chatId,
          `Slow down: at most ${access.rateLimit} messages a minute. The rest were dropped.`,
        );
      return 'limited';
    }
    const cap = this.platform.maxInboundChars ?? 32_000;
    if (message.text.length > cap) {
      this.notice(
        message.chatId,
        `That message is ${message.text.length.toLocaleString('en')} characters; the most Wren takes in one message is ${cap.toLocaleString('en')}. Send it as a file instead.`,
      );
      return 'too_large';
    }
    const owner = standing === 'owner';
    const reply = owner ? parseApprovalReply(message.text) : undefined;
    if (reply && this.presented.has(reply.shortId)) {
      void this.answerPresented(message.senderId, reply.shortId, reply.choice).then((result) => {
        this.notice(
          message.chatId,
          result.ok
            ? `${reply.choice === 'deny' ? 'Denied' : `Approved (${reply.choice})`}.`
            : result.message,
        );
      });
      return 'answered';
    }
    const text = message.quote
      ? `[replying to: ${message.quote.slice(0, 2000)}]\n\n${message.text}`
      : message.text;
    const inbound: InboundMessage = {
      id: `${this.name}:${message.chatId}:${message.platformId}`,
      channel: this.name,
      senderId: message.senderId,
      chatId: message.chatId,
      text,
      fromOwner: owner,
      interactive: owner,
      ...(message.media?.length ? { media: message.media } : {}),
      ...(message.metadata ? { metadata: message.metadata } : {}),
    };
    this.platform.bus.publishInbound(inbound);
    return 'accepted';
  }

  /** Splits the text at the platform's limit, then sends the attachments. */
  async send(message: OutboundMessage): Promise<void> {
    const text = message.text.trim() ? message.text : message.attachments?.length ? '' : '(empty reply)';
    const notice = message.kind === 'notice' || message.kind === 'error';
    for (const piece of text ? splitMessage(text, this.textLimit) : [])
      await this.sendText(message.chatId, piece, { notice });
    for (const file of message.attachments ?? []) await this.sendFile(message.chatId, file);
  }

  /** Asks in the chat with a typed answer; adapters with buttons override (and call rememberApproval). */
  override async presentApproval(request: ApprovalRequest): Promise<void> {
    this.rememberApproval(request);
    await this.sendText(request.chatId, describeApprovalText(request, false), { notice: true });
  }

  override async approvalResolved(event: Extract<ApprovalEvent, { type: 'approval-resolved' }>) {
    if (event.id) this.presented.delete(shortApprovalId(event.id));
  }

  protected rememberApproval(request: ApprovalRequest): void {
    this.presented.set(shortApprovalId(request.id), request);
  }

  /**
   * The answer of `senderId` to an approval shown here (by its short id): only the owner's counts, and only
   * for an approval still pending; the gate takes the first answer from any face.
   */
  protected answerPresented(
    senderId: string,
    shortId: string,
    choice: ApprovalChoice,
  ): Promise<ApprovalAnswerResult> {
    const request = this.presented.get(shortId);
    if (!request)
      return Promise.resolve({
        ok: false,
        code: 'not_found',
        message: 'That approval is no longer pending.',
      });
    return this.answerApproval(this.isOwner(senderId), `${this.name}:${senderId}`, request.id, choice);
  }

  /**
   * The words of a voice message: the configured transcription endpoint's, or a note saying there is none
   * (or that it failed) so the model knows a voice message came.
   */
  protected async voiceText(what: string, download: () => Promise<Uint8Array>): Promise<string> {
    const transcribe = this.platform.transcribe?.();
    if (!transcribe)
      return `[${what}; no transcription is configured (channels.transcription), so its words are unknown]`;
    try {
      const words = await transcribe(await download());
      return words ? `[${what}, transcribed] ${words}` : `[${what} with no words in it]`;
    } catch (error) {
      this.platform.onError?.(error);
      return `[${what}; transcribing it failed]`;
    }
  }

  /**
   * Runs one platform API call, retrying a 429 or 5xx answer after the platform's `Retry-After` (else 1 s,
   * 2 s, 4 s …), at most `attempts` times. For SDKs that do not retry on their own.
   */
  protected async retrying<T>(call: () => Promise<T>, attempts = 4): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await call();
      } catch (error) {
        const wait = retryDelay(error, attempt);
        if (wait === undefined || attempt >= attempts) throw error;
        await new Promise((resolve) => setTimeout(resolve, wait).unref());
      }
    }
  }

  /** A short message from Wren itself (not a model reply); failures only logged. */
  protected notice(chatId: string, text: string): void {
    this.sendText(chatId, text, { notice: true }).catch((error: unknown) => this.platform.onError?.(error));
  }

  /**
   * Runs `session` (one connection: resolves or throws when it ends, calls `connected` once it is up) until
   * `signal` aborts, reconnecting with backoff. `fatal` names errors retrying cannot fix (a revoked token):
   * the channel then shows `failed: <reason>` and stops trying.
   */
  protected async keepConnected(
    signal: AbortSignal,
    session: (signal: AbortSignal, connected: () => void) => Promise<void>,
    fatal: (error: unknown) => string | undefined,
  ): Promise<void> {
    let attempt = 0;
    let reason: string | undefined;
    this.setState('starting');
    while (!signal.aborted) {
      try {
        await session(signal, () => {
          attempt = 0;
          reason = undefined;
          this.setState('connected');
        });
        reason = 'the connection closed';
      } catch (error) {
        if (signal.aborted) break;
        const fatalReason = fatal(error);
        if (fatalReason) {
          this.setState('failed', fatalReason);
          this.platform.onError?.(error);
          return;
        }
        reason = error instanceof Error ? error.message : String(error);
      }
      if (signal.aborted) break;
      attempt++;
      this.setState('reconnecting', reason);
      // An abort ends the wait early; the loop then sees the signal and stops.
      await sleep((this.platform.backoff ?? defaultBackoff)(attempt), signal).catch(() => {});
    }
    this.setState('stopped');
  }

  private offerPairing(message: PlatformMessage, now: number): void {
    const asked = this.platform.ledger.askPairing(
      {
        channel: this.name,
        senderId: message.senderId,
        chatId: message.chatId,
        senderName: message.senderName ?? '',
      },
      now,
    );
    // A sender with a pending code is told once (when it is made), not at every message.
    if (asked.kind !== 'new') return;
    this.notice(
      message.chatId,
      `This assistant only talks to people its owner allowed. Your pairing code is ${asked.pairing.code} (valid for an hour): ask the owner to run \`wren pairing approve ${asked.pairing.code}\`.`,
    );
  }
}
