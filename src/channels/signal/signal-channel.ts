import { readFile } from 'node:fs/promises';
import type { ApprovalRequest, Attachment } from '../../bus/messages.js';
import { FileTooLargeError } from '../fetch-capped.js';
import { imageType } from '../image-type.js';
import type { PlatformFile } from '../inbound-files.js';
import { PlatformChannel, type PlatformMessage } from '../platform-channel.js';
import { type AdapterOptions, platformOptions } from '../platform-options.js';
import { createSignalRpc } from './create-signal-rpc.js';
import { SignalApprovals } from './signal-approvals.js';
import type { SignalConfig } from './signal-config.js';
import {
  isAccount,
  parseEnvelope,
  type SignalAddress,
  type SignalAttachment,
  type SignalInbound,
  textWithMentions,
} from './signal-envelope.js';
import { type SignalRpc, SignalRpcError } from './signal-rpc.js';

export type SignalChannelOptions = AdapterOptions<SignalConfig>;

/** A direct chat's id is the person's number or UUID; anything else is a group's base64 id. */
const PERSON = /^(\+\d{6,15}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;

/** How long sending a file may take (the daemon uploads it before it answers). */
const UPLOAD_TIMEOUT_MS = 180_000;

/**
 * Signal through signal-cli's JSON-RPC daemon (no SDK: see signal-rpc.ts). Direct messages, and groups
 * listed in `groups` when Wren is @mentioned or replied to; typing while a turn runs; approvals answered
 * by a reaction (👍 once, ❤️ for this chat, 👎 deny) or a number; images to the model, files saved; files
 * out as attachments. Every message is taken once: its envelope timestamp and sender go through the
 * channel ledger, and the event stream resumes after the last event handled, also after a restart.
 */
export class SignalChannel extends PlatformChannel<number> {
  protected readonly textLimit = 2000;
  private readonly adapter: SignalChannelOptions;
  private readonly controller = new AbortController();
  private readonly approvals = new SignalApprovals();
  private rpc: SignalRpc | undefined;
  private running: Promise<void> | undefined;
  /** Events are handled one at a time, in the order the daemon sent them. */
  private queue: Promise<void> = Promise.resolve();
  /** The account's own UUID, once an envelope showed it (mentions may name only the UUID). */
  private ownUuid: string | undefined;
  /** Timestamps of messages Wren sent: a note to self that is one of them is Wren's own. */
  private readonly sent = new Set<number>();

  constructor(options: SignalChannelOptions) {
    super(platformOptions('signal', options));
    this.adapter = options;
  }

  async start(signal?: AbortSignal): Promise<void> {
    signal?.addEventListener('abort', () => this.controller.abort(), { once: true });
    const config = this.adapter.config();
    const rpc = createSignalRpc({ url: config.url, ...(config.token ? { token: config.token } : {}) });
    this.rpc = rpc;
    this.attachPlatform();
    this.running = this.keepConnected(
      this.controller.signal,
      (session, connected) =>
        rpc.listen(
          {
            onConnected: connected,
            onReceive: (params, eventId) => {
              this.queue = this.queue
                .then(() => this.onEvent(params, eventId))
                .catch((error: unknown) => this.adapter.onError?.(error));
            },
          },
          session,
          this.platform.ledger.cursor(this.name, 'event-id'),
        ),
      (error) =>
        error instanceof SignalRpcError && (error.status === 401 || error.status === 403)
          ? `signal-cli (or the proxy before it) refused the token: HTTP ${error.status}`
          : undefined,
    );
  }

  async stop(): Promise<void> {
    this.controller.abort();
    this.detachPlatform();
    await this.running?.catch(() => {});
    this.setState('stopped');
  }

  private async onEvent(params: unknown, eventId: string | undefined): Promise<void> {
    const account = this.adapter.config().account;
    const inbound = parseEnvelope(params, account);
    if (inbound) {
      if (inbound.sender.number === account && inbound.sender.uuid) this.ownUuid = inbound.sender.uuid;
      if (inbound.kind === 'message') await this.onMessage(inbound, account);
      else await this.onReaction(inbound);
    }
    // Only once it was handled: a restart resumes after it, and what came after is replayed.
    if (eventId) this.platform.ledger.setCursor(this.name, 'event-id', eventId.slice(0, 200));
  }

  /**
   * The id a sender is known by here: the one of their number and UUID that `owner` or `allow_from`
   * lists, else the UUID (stable even when they hide or change their number).
   */
  private senderId(sender: SignalAddress): string {
    const access = this.platform.access();
    const listed = [...access.owner, ...access.allowFrom];
    const ids = [sender.number, sender.uuid].filter((id): id is string => !!id);
    return ids.find((id) => listed.includes(id)) ?? sender.uuid ?? sender.number!;
  }

  private isSelf = (who: SignalAddress): boolean =>
    isAccount(who, this.adapter.config().account, this.ownUuid);

  private async onMessage(inbound: Extract<SignalInbound, { kind: 'message' }>, account: string) {
    if (inbound.noteToSelf && this.sent.has(inbound.timestamp)) return;
    const senderId = inbound.noteToSelf ? account : this.senderId(inbound.sender);
    const chatId = inbound.groupId ?? senderId;
    const group = inbound.groupId
      ? {
          group: {
            mentioned: inbound.mentions.some(this.isSelf),
            repliedToBot: !!inbound.quote && this.isSelf(inbound.quote.author),
          },
        }
      : {};
    let text = inbound.groupId ? textWithMentions(inbound.text, inbound.mentions, this.isSelf) : inbound.text;
    // A bare number answers the open approval it quotes (or the newest one); only the owner's counts.
    if (this.isOwner(senderId)) text = this.approvals.fromNumber(chatId, text, inbound.quote?.id) ?? text;
    const message: PlatformMessage = {
      platformId: `${inbound.sender.uuid ?? inbound.sender.number}:${inbound.timestamp}`,
      senderId,
      ...(inbound.senderName ? { senderName: inbound.senderName } : {}),
      chatId,
      text,
      files: inbound.attachments.map((attachment) => this.fileOf(attachment, chatId, inbound.groupId)),
      ...(inbound.quote?.text ? { quote: inbound.quote.text } : {}),
      ...group,
    };
    const result = await this.receive(message);
    if (result === 'accepted' && this.adapter.config().readReceipts && !inbound.noteToSelf)
      this.call('sendReceipt', {
        recipient: inbound.sender.number ?? inbound.sender.uuid,
        targetTimestamp: [inbound.timestamp],
        type: 'read',
      }).catch((error: unknown) => this.adapter.onError?.(error));
  }

  /** A reaction is an approval answer when the owner reacts to an open question; anything else is dropped. */
  private async onReaction(inbound: Extract<SignalInbound, { kind: 'reaction' }>): Promise<void> {
    const senderId = this.senderId(inbound.sender);
    const chatId = inbound.groupId ?? senderId;
    if (inbound.isRemove || !this.isOwner(senderId) || !this.isSelf(inbound.targetAuthor)) return;
    const answer = this.approvals.fromReaction(chatId, inbound.targetTimestamp, inbound.emoji);
    if (!answer) return;
    await this.receive({
      platformId: `reaction:${inbound.sender.uuid ?? inbound.sender.number}:${inbound.timestamp}`,
      senderId,
      chatId,
      text: answer,
      ...(inbound.groupId ? { group: { mentioned: true, repliedToBot: true } } : {}),
    });
  }

  /** An attachment, fetched from the daemon (base64) only when the base decides to take it in. */
  private fileOf(attachment: SignalAttachment, chatId: string, groupId?: string): PlatformFile {
    const kind = attachment.contentType.startsWith('image/')
      ? 'image'
      : attachment.voiceNote || attachment.contentType.startsWith('audio/')
        ? 'voice'
        : 'file';
    return {
      kind,
      name: attachment.filename ?? (kind === 'file' ? 'file' : kind),
      ...(attachment.size !== undefined ? { size: attachment.size } : {}),
      ...(kind === 'voice' ? { describe: 'a Signal voice message' } : {}),
      download: async (maxBytes) => {
        const result = await this.call<{ data?: unknown } | string>(
          'getAttachment',
          { id: attachment.id, ...(groupId ? { groupId } : { recipient: chatId }) },
          UPLOAD_TIMEOUT_MS,
        );
        const data = typeof result === 'string' ? result : result?.data;
        if (typeof data !== 'string') throw new Error('signal-cli returned no attachment data');
        // base64 is 4 characters per 3 bytes: an answer that long is refused before it is decoded.
        if (data.length > Math.ceil(maxBytes / 3) * 4 + 4) throw new FileTooLargeError(maxBytes);
        return Buffer.from(data, 'base64');
      },
    };
  }

  /** One daemon call with the account (needed by a multi-account daemon, ignored by a single one). */
  private call<T = unknown>(method: string, params: Record<string, unknown>, timeoutMs?: number) {
    if (!this.rpc) return Promise.reject(new Error('the Signal channel is not started'));
    return this.rpc.call<T>(
      method,
      { account: this.adapter.config().account, ...params },
      { signal: this.controller.signal, ...(timeoutMs ? { timeoutMs } : {}) },
    );
  }

  /** Who a send goes to: a person (number or UUID) or a group. */
  private target(chatId: string): Record<string, unknown> {
    return PERSON.test(chatId) ? { recipient: [chatId] } : { groupId: chatId };
  }

  /** Sends one message; returns its timestamp (what reactions and quotes point at). */
  private async post(chatId: string, params: Record<string, unknown>, timeoutMs?: number) {
    const result = await this.retrying(() =>
      this.call<{ timestamp?: unknown }>('send', { ...this.target(chatId), ...params }, timeoutMs),
    );
    const timestamp = typeof result?.timestamp === 'number' ? result.timestamp : undefined;
    if (timestamp !== undefined) {
      this.sent.add(timestamp);
      if (this.sent.size > 500) this.sent.delete(this.sent.values().next().value as number);
    }
    return timestamp;
  }

  protected async sendText(chatId: string, text: string): Promise<void> {
    await this.post(chatId, { message: text });
  }

  /** A file as a data URI (the daemon may run elsewhere, so a path of this machine would not do). */
  protected override async sendFile(chatId: string, file: Attachment): Promise<void> {
    const bytes = await readFile(file.path);
    const type = imageType(bytes) ?? 'application/octet-stream';
    const name = encodeURIComponent(file.name.split('/').pop() || 'file');
    const uri = `data:${type};filename=${name};base64,${bytes.toString('base64')}`;
    await this.post(chatId, { message: '', attachments: [uri] }, UPLOAD_TIMEOUT_MS);
  }

  protected override async typing(chatId: string): Promise<void> {
    await this.call('sendTyping', this.target(chatId));
  }

  /** Asks with the answers Signal allows: a reaction, a number, or the typed form. */
  protected override async showApproval(request: ApprovalRequest): Promise<number | undefined> {
    const timestamp = await this.post(request.chatId, { message: SignalApprovals.text(request) });
    if (timestamp !== undefined) this.approvals.remember(timestamp, request);
    return timestamp;
  }

  /** Signal cannot take a reaction away: the question is forgotten, so a late one changes nothing. */
  protected override async closeApproval(shown: number): Promise<void> {
    this.approvals.forget(shown);
  }
}
