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
import type { ImagePart } from '../llm/types.js';
import {
  describeApprovalText,
  describeResolution,
  parseApprovalReply,
  shortApprovalId,
} from './approval-text.js';
import type { ChannelLink, ChannelState } from './channel.js';
import { type Addressing, type ChannelAccess, isAddressed, standingOf } from './channel-access.js';
import { ChannelBase } from './channel-base.js';
import { type PlatformFile, refusedFilesNotice, takeInFiles } from './inbound-files.js';
import { keepConnected } from './keep-connected.js';
import { pairingOfferText, pairingRequestText } from './pairing-notice.js';
import { DEFAULT_MAX_FILE_BYTES, type PlatformChannelOptions } from './platform-options.js';
import { SdkMissingError, sdkImporter, sdkLoader } from './platform-sdk.js';
import { retrying } from './retry.js';
import { SenderRateLimit } from './sender-rate-limit.js';
import { splitMessage } from './split-message.js';
import { TurnProgress } from './turn-progress.js';

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
  /**
   * Files that came with the message, not yet downloaded: the base fetches them only for an admitted
   * sender within their rate, and only those whose declared size is within the cap.
   */
  files?: PlatformFile[];
  /** The text of the message this one replies to or quotes, as context for the model. */
  quote?: string;
  /** Where the quote costs a platform call to read: made only for an admitted message. */
  loadQuote?: () => Promise<string | undefined>;
  metadata?: Record<string, unknown>;
}

/**
 * What became of one platform message: `accepted` (on the bus), `duplicate` (seen before, even before a
 * restart), `blocked` (a stranger: zero tokens), `ignored` (a group message not addressed to Wren),
 * `limited` (over the sender's rate), `too_large` (text over the cap, or only files over the file cap),
 * `answered` (the owner's typed approval answer).
 */
export type ReceiveResult =
  | 'accepted'
  | 'duplicate'
  | 'blocked'
  | 'ignored'
  | 'limited'
  | 'too_large'
  | 'answered';

/**
 * The base of every chat-platform adapter: who may talk (owner, allow list, pairing, groups only when
 * addressed), de-duplication that survives restarts, per-sender rate limits and size caps, typed approval
 * answers, message splitting at the platform's limit, typing and tool progress, and reconnecting with
 * backoff. Adapters translate their platform: call `receive` for each message, implement `sendText`
 * (and optionally `sendFile`, `typing`, `postStatus`, button approvals through `showApproval` and
 * `closeApproval`), and run their connection through `keepConnected`. `Shown` is what an adapter keeps of
 * an approval message it sent (to take its buttons away once answered).
 */
export abstract class PlatformChannel<Shown = never> extends ChannelBase {
  /** Longest text the platform takes in one message. */
  protected abstract readonly textLimit: number;
  protected readonly platform: PlatformChannelOptions;
  private readonly rates = new SenderRateLimit();
  private toldNoOwner = false;
  /** Approvals shown in chats, by short id. */
  private readonly presented = new Map<string, ApprovalRequest>();
  /** The platform message each approval was shown in, by approval id (until it is answered). */
  private readonly approvalMessages = new Map<string, Shown>();
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

  /**
   * The platform SDK package `pkg` (see platform-sdk.ts). When it is not installed the channel shows
   * `failed: … run \`wren channels add NAME\`` and the error is thrown on, ending the start.
   */
  protected requireSdk<T>(pkg: string): T {
    try {
      return (this.platform.sdk ?? sdkLoader(this.name))<T>(pkg);
    } catch (error) {
      if (error instanceof SdkMissingError) this.setState('failed', error.message);
      throw error;
    }
  }

  /** As requireSdk, for an ESM-only SDK package (imported, so asynchronous). */
  protected async importSdk<T>(pkg: string): Promise<T> {
    try {
      return await (this.platform.importSdk ?? sdkImporter(this.name))<T>(pkg);
    } catch (error) {
      if (error instanceof SdkMissingError) this.setState('failed', error.message);
      throw error;
    }
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

  protected override setState(state: ChannelState, detail?: string, link?: ChannelLink): void {
    super.setState(state, detail, link);
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

  /**
   * Admits one platform message (see ReceiveResult), in a fixed order: de-duplication, addressed at all,
   * who the sender is (a stranger gets at most the pairing flow), their rate, the size caps, and only then
   * any download of its files. Never throws for a bad message.
   */
  protected async receive(message: PlatformMessage): Promise<ReceiveResult> {
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
      this.turnAway(message, access, now);
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
    const content = await this.admittedContent(message);
    if (!content) return 'too_large';
    const { text, media } = content;
    const inbound: InboundMessage = {
      id: `${this.name}:${message.chatId}:${message.platformId}`,
      channel: this.name,
      senderId: message.senderId,
      chatId: message.chatId,
      text,
      fromOwner: owner,
      interactive: owner,
      ...(media.length ? { media } : {}),
      ...(message.metadata ? { metadata: message.metadata } : {}),
    };
    this.platform.bus.publishInbound(inbound);
    return 'accepted';
  }

  /**
   * The words and images of an admitted message: its files downloaded (those declared over the cap never
   * are, and the sender is told) and its quote read. Undefined when it was nothing but refused files.
   */
  private async admittedContent(message: PlatformMessage) {
    const maxBytes = this.platform.maxFileBytes?.() ?? DEFAULT_MAX_FILE_BYTES;
    const files = await takeInFiles(message.files ?? [], {
      maxBytes,
      workspace: this.platform.workspace?.(),
      transcribe: this.platform.transcribe?.(),
      onError: (error) => this.platform.onError?.(error),
    });
    if (files.refused.length) {
      this.notice(message.chatId, refusedFilesNotice(files.refused, maxBytes));
      // Nothing but refused files: the sender was told, and there is nothing to start a turn with.
      if (files.refused.length === message.files?.length && !message.text.trim() && !message.media?.length)
        return undefined;
    }
    const quote = message.quote ?? (await message.loadQuote?.().catch(() => undefined));
    const quoted = quote ? `[replying to: ${quote.slice(0, 2000)}]\n\n${message.text}` : message.text;
    return {
      text: [quoted, ...files.notes].filter(Boolean).join('\n'),
      media: [...(message.media ?? []), ...files.media],
    };
  }

  /** Splits the text at the platform's limit, then sends the attachments. */
  async send(message: OutboundMessage): Promise<void> {
    const text = message.text.trim() ? message.text : message.attachments?.length ? '' : '(empty reply)';
    const notice = message.kind === 'notice' || message.kind === 'error';
    for (const piece of text ? splitMessage(text, this.textLimit) : [])
      await this.sendText(message.chatId, piece, { notice });
    for (const file of message.attachments ?? []) await this.sendFile(message.chatId, file);
  }

  /**
   * Shows an approval (remembered first, so a typed answer or a button press finds it) and keeps the message
   * it was shown in, to take its buttons away once it is answered.
   */
  override async presentApproval(request: ApprovalRequest): Promise<void> {
    this.presented.set(shortApprovalId(request.id), request);
    const shown = await this.showApproval(request);
    if (shown !== undefined) this.approvalMessages.set(request.id, shown);
  }

  /** Forgets an answered approval and, once, replaces its message by the outcome (no buttons left). */
  override async approvalResolved(event: Extract<ApprovalEvent, { type: 'approval-resolved' }>) {
    if (!event.id) return;
    this.presented.delete(shortApprovalId(event.id));
    const shown = this.approvalMessages.get(event.id);
    if (shown === undefined) return;
    this.approvalMessages.delete(event.id);
    await this.closeApproval(shown, describeResolution(event));
  }

  /**
   * Sends the question; returns what `closeApproval` needs to edit that message later, or undefined when
   * there is nothing to take back. Default: a question answered by typing (`once ab12cd`).
   */
  protected async showApproval(request: ApprovalRequest): Promise<Shown | undefined> {
    await this.sendText(request.chatId, describeApprovalText(request, false), { notice: true });
    return undefined;
  }

  /** Replaces a shown approval by `outcome` without its buttons: a late press then has nothing to act on. */
  protected async closeApproval(_shown: Shown, _outcome: string): Promise<void> {}

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
   * Runs one platform API call, retrying a 429 or 5xx answer after the platform's `Retry-After` (else 1 s,
   * 2 s, 4 s …), at most `attempts` times. For SDKs that do not retry on their own.
   */
  protected retrying<T>(call: () => Promise<T>, attempts = 4): Promise<T> {
    return retrying(call, attempts);
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
  protected keepConnected(
    signal: AbortSignal,
    session: (signal: AbortSignal, connected: () => void) => Promise<void>,
    fatal: (error: unknown) => string | undefined,
  ): Promise<void> {
    return keepConnected({
      signal,
      session,
      fatal,
      setState: (state, detail) => this.setState(state, detail),
      ...(this.platform.backoff ? { backoff: this.platform.backoff } : {}),
      ...(this.platform.onError ? { onError: this.platform.onError } : {}),
    });
  }

  /** A stranger: the pairing flow when it is on (direct chats only), else nothing, ever. */
  private turnAway(message: PlatformMessage, access: ChannelAccess, now: number): void {
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
  }

  /**
   * Gives a stranger a pairing code and tells the owner in their own chat. Both happen once per code, when
   * it is made; with at most 3 codes pending per channel, a flood of strangers reaches the owner at most
   * 3 times an hour.
   */
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
    if (asked.kind !== 'new') return;
    const { code } = asked.pairing;
    this.notice(message.chatId, pairingOfferText(code));
    const ownerChat = this.ownerChat();
    if (ownerChat && ownerChat !== message.chatId)
      this.notice(
        ownerChat,
        pairingRequestText({
          channel: this.name,
          senderId: message.senderId,
          senderName: message.senderName ?? '',
          code,
        }),
      );
  }
}
