import { readFile } from 'node:fs/promises';
import type { Attachment, OutboundMessage } from '../../bus/messages.js';
import { imageType } from '../image-type.js';
import { PlatformChannel } from '../platform-channel.js';
import { type AdapterOptions, platformOptions } from '../platform-options.js';
import { splitMessage } from '../split-message.js';
import { QqAccessToken, QqApi, QqAuthError } from './qq-api.js';
import type { QqConfig } from './qq-config.js';
import {
  type GatewayResumeState,
  GROUP_AND_C2C_EVENT,
  QqGatewayRefusedError,
  runGateway,
} from './qq-gateway.js';
import { translateQqEvent } from './qq-message.js';

export type QqChannelOptions = AdapterOptions<QqConfig>;

/** How long QQ takes a passive reply to a message: an hour in a direct chat, five minutes in a group. */
const REPLY_WINDOW_MS = { direct: 60 * 60_000, group: 5 * 60_000 };
/** The largest file sent inline (base64 in the upload call). */
const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;
/** How many recent messages are remembered to reply to. */
const REMEMBERED = 500;

/** A message of QQ's that can still be replied to: its id, and when it came. */
interface QqReply {
  msgId: string;
  at: number;
}

const isGroup = (chatId: string) => chatId.startsWith('group:');

/**
 * QQ (QQ 开放平台 bot API v2) over its WebSocket gateway, without an SDK: direct (C2C) messages and group
 * messages that @mention the bot. Chat ids are the user's openid, or `group:<group_openid>`. Everything
 * sent to a chat is a passive reply to that chat's message (the one answered, else its latest) with an
 * increasing `msg_seq`, while QQ still takes replies to it; after that it is sent as a proactive message,
 * which QQ may refuse. The gateway session is kept in the channel ledger, so a restart resumes it and QQ
 * replays what came in meanwhile; the ledger's message ids drop what was seen before. Approvals are
 * answered by typing (`once ab12cd`).
 */
export class QqChannel extends PlatformChannel {
  protected readonly textLimit = 2000;
  private readonly qq: QqChannelOptions;
  private readonly controller = new AbortController();
  private running: Promise<void> | undefined;
  private api: QqApi | undefined;
  private resume: GatewayResumeState = {};
  private resumeKey = 'gateway';
  /** The message each inbound id came from, and each chat's latest: what replies answer. */
  private readonly byInbound = new Map<string, QqReply>();
  private readonly latest = new Map<string, QqReply>();
  /** The last msg_seq used per replied-to message. */
  private readonly seqs = new Map<string, number>();
  /** Per chat, the message being taken in: a chat's messages reach the bus in the order they came. */
  private readonly chains = new Map<string, Promise<void>>();

  constructor(options: QqChannelOptions) {
    super(platformOptions('qq', options));
    this.qq = options;
  }

  async start(signal?: AbortSignal): Promise<void> {
    signal?.addEventListener('abort', () => this.controller.abort(), { once: true });
    const config = this.qq.config();
    const token = new QqAccessToken({
      tokenUrl: config.tokenUrl,
      appId: config.appId,
      appSecret: config.appSecret,
      clock: () => this.now(),
    });
    const api = new QqApi(config.apiBase, token);
    this.api = api;
    this.resumeKey = `gateway:${config.appId}`;
    this.resume = this.storedResume();
    this.attachPlatform();
    // Refreshed ahead of its expiry even while nothing is sent; failures surface through the session.
    void token.keepFresh(this.controller.signal, () => {});
    this.running = this.keepConnected(
      this.controller.signal,
      async (session, connected) => {
        const accessToken = await token.get(session);
        const url = config.gatewayUrl ?? (await this.gatewayUrl(api, session));
        await runGateway(
          {
            url,
            token: accessToken,
            intents: GROUP_AND_C2C_EVENT,
            resume: this.resume,
            onDispatch: (type, data) => this.onDispatch(type, data),
            onResumeState: () => this.saveResume(),
            connected,
          },
          session,
        );
      },
      fatalReason,
    );
  }

  async stop(): Promise<void> {
    this.controller.abort();
    this.detachPlatform();
    await this.running?.catch(() => {});
    this.setState('stopped');
  }

  private async gatewayUrl(api: QqApi, signal: AbortSignal): Promise<string> {
    const url = (await api.call('GET', '/gateway', undefined, signal))['url'];
    if (typeof url !== 'string' || !/^wss?:\/\//.test(url)) throw new Error('QQ sent no gateway address');
    return url;
  }

  private storedResume(): GatewayResumeState {
    try {
      const stored = JSON.parse(this.platform.ledger.cursor(this.name, this.resumeKey) ?? '{}') as {
        sessionId?: unknown;
        seq?: unknown;
      };
      return typeof stored.sessionId === 'string' && Number.isSafeInteger(stored.seq)
        ? { sessionId: stored.sessionId, seq: stored.seq as number }
        : {};
    } catch {
      return {};
    }
  }

  private saveResume(): void {
    const { sessionId, seq } = this.resume;
    this.platform.ledger.setCursor(this.name, this.resumeKey, JSON.stringify({ sessionId, seq }));
  }

  /** One gateway event: messages are queued per chat; every other event type is ignored. */
  private onDispatch(type: string, data: unknown): void {
    if (this.controller.signal.aborted) return;
    const message = translateQqEvent(type, data);
    if (!message) return;
    const chatId = message.chatId;
    const reply: QqReply = { msgId: message.platformId, at: this.now() };
    const next = (this.chains.get(chatId) ?? Promise.resolve())
      .then(async () => {
        // Remembered before the base sees it: a notice (pairing, slow down, an approval answer) is a reply too.
        const inboundId = `${this.name}:${chatId}:${message.platformId}`;
        remember(this.latest, chatId, reply);
        remember(this.byInbound, inboundId, reply);
        await this.receive(message);
      })
      .catch((error: unknown) => this.qq.onError?.(error));
    this.chains.set(chatId, next);
    void next.then(() => {
      if (this.chains.get(chatId) === next) this.chains.delete(chatId);
    });
  }

  /** Splits the text at QQ's limit and sends it, then the attachments: all replies to the answered message. */
  override async send(message: OutboundMessage): Promise<void> {
    const reply = this.byInbound.get(message.replyTo);
    const text = message.text.trim() ? message.text : message.attachments?.length ? '' : '(empty reply)';
    for (const piece of text ? splitMessage(text, this.textLimit) : [])
      await this.post(message.chatId, { msg_type: 0, content: piece }, reply);
    for (const file of message.attachments ?? []) await this.sendFileTo(message.chatId, file, reply);
  }

  protected async sendText(chatId: string, text: string): Promise<void> {
    await this.post(chatId, { msg_type: 0, content: text });
  }

  protected override sendFile(chatId: string, file: Attachment): Promise<void> {
    return this.sendFileTo(chatId, file);
  }

  /**
   * Uploads a file through the rich-media endpoint (inline base64, not sent yet) and sends it as a media
   * message: images as images (file_type 1), other files as files (4; QQ groups take none of those).
   */
  private async sendFileTo(chatId: string, file: Attachment, reply?: QqReply): Promise<void> {
    const bytes = await readFile(file.path);
    const name = file.name.split('/').pop() || 'file';
    const image = imageType(bytes) !== undefined;
    if (bytes.length > MAX_UPLOAD_BYTES || (!image && isGroup(chatId))) {
      const why = image || !isGroup(chatId) ? 'over the 10 MB QQ takes here' : 'QQ groups take no files';
      await this.post(chatId, { msg_type: 0, content: `📎 ${name} (${bytes.length} bytes): ${why}` }, reply);
      return;
    }
    const uploaded = await this.retrying(() =>
      this.api!.call('POST', `${this.chatPath(chatId)}/files`, {
        file_type: image ? 1 : 4,
        file_data: bytes.toString('base64'),
        srv_send_msg: false,
        ...(image ? {} : { file_name: name }),
      }),
    );
    const fileInfo = uploaded['file_info'];
    if (typeof fileInfo !== 'string') throw new Error(`QQ took ${name} but sent no file_info for it`);
    await this.post(chatId, { msg_type: 7, media: { file_info: fileInfo } }, reply);
  }

  private chatPath(chatId: string): string {
    return isGroup(chatId)
      ? `/v2/groups/${encodeURIComponent(chatId.slice('group:'.length))}`
      : `/v2/users/${encodeURIComponent(chatId)}`;
  }

  /**
   * Sends one message to a chat: a passive reply (msg_id + the next msg_seq for it) to `reply`, else to
   * the chat's latest message, while QQ still takes replies to it; else proactive. The seq is fixed before
   * the retries, so a retried call is the same message to QQ, never a second one.
   */
  private async post(chatId: string, body: Record<string, unknown>, reply?: QqReply): Promise<void> {
    const context = reply ?? this.latest.get(chatId);
    const window = isGroup(chatId) ? REPLY_WINDOW_MS.group : REPLY_WINDOW_MS.direct;
    let passive = {};
    if (context && this.now() - context.at < window) {
      const seq = (this.seqs.get(context.msgId) ?? 0) + 1;
      remember(this.seqs, context.msgId, seq);
      passive = { msg_id: context.msgId, msg_seq: seq };
    }
    await this.retrying(() =>
      this.api!.call('POST', `${this.chatPath(chatId)}/messages`, { ...body, ...passive }),
    );
  }
}

/** Sets `key` (moved to the newest end), dropping the oldest entries beyond REMEMBERED. */
function remember<T>(map: Map<string, T>, key: string, value: T): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > REMEMBERED) map.delete(map.keys().next().value as string);
}

/** Errors reconnecting cannot fix: refused credentials, a banned or unpublished bot, refused intents. */
function fatalReason(error: unknown): string | undefined {
  if (error instanceof QqAuthError || error instanceof QqGatewayRefusedError) return error.message;
  return undefined;
}
