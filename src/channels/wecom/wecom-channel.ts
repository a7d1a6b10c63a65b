import { readFile } from 'node:fs/promises';
import type { WSClient, WsFrame } from '@wecom/aibot-node-sdk';
import type { Attachment, OutboundMessage } from '../../bus/messages.js';
import { imageType } from '../image-type.js';
import type { PlatformFile } from '../inbound-files.js';
import { PlatformChannel } from '../platform-channel.js';
import { type AdapterOptions, platformOptions } from '../platform-options.js';
import type { WecomConfig } from './wecom-config.js';

/** The fields of a WeCom bot callback Wren reads. */
interface WecomMessage {
  msgid: string;
  chatid?: string;
  chattype: 'single' | 'group';
  from: { userid: string };
  msgtype: string;
  text?: { content: string };
  voice?: { content?: string };
  image?: { url: string; aeskey?: string };
  file?: { url: string; aeskey?: string };
  mixed?: {
    msg_item?: Array<{
      msgtype: string;
      text?: { content?: string };
      image?: { url: string; aeskey?: string };
    }>;
  };
  quote?: { msgtype?: string; text?: { content?: string } };
}

export type WecomChannelOptions = AdapterOptions<WecomConfig>;

const quietLogger = { debug() {}, info() {}, warn() {}, error() {} };

/**
 * WeCom (企业微信) through the AI-bot SDK's WebSocket long connection: no public URL needed. A reply goes
 * back on the request frame of the message it answers (kept per chat, as the protocol wants); anything Wren
 * sends on its own — reminders, deliveries, approval questions — uses the proactive-send command. In groups
 * the platform delivers only messages that @mention the bot. Approvals are answered by replying
 * `once <id>`. The SDK reconnects with backoff itself.
 */
export class WecomChannel extends PlatformChannel {
  protected readonly textLimit = 4000;
  private readonly wecom: WecomChannelOptions;
  private client: WSClient | undefined;
  private stopping = false;
  /** The request frame of each chat's latest message, by the inbound id it became. */
  private readonly frames = new Map<string, WsFrame>();
  /** The stream a turn's progress was shown in, by inbound id: the answer finishes that same stream. */
  private readonly streams = new Map<string, string>();

  constructor(options: WecomChannelOptions) {
    super(platformOptions('wecom', options));
    this.wecom = options;
  }

  async start(signal?: AbortSignal): Promise<void> {
    signal?.addEventListener('abort', () => void this.stop(), { once: true });
    const config = this.wecom.config();
    const { WSClient } = await import('@wecom/aibot-node-sdk');
    const client = new WSClient({
      botId: config.botId,
      secret: config.secret,
      wsUrl: config.wsUrl,
      maxReconnectAttempts: -1,
      maxAuthFailureAttempts: 2,
      logger: quietLogger,
    });
    client.on('message', (frame: WsFrame) => {
      this.onMessage(frame).catch((error: unknown) => this.wecom.onError?.(error));
    });
    client.on('authenticated', () => this.setState('connected'));
    client.on('disconnected', (reason: string) => {
      if (!this.stopping) this.setState('reconnecting', String(reason || 'the connection closed'));
    });
    client.on('reconnecting', () => this.setState('reconnecting', 'the connection dropped'));
    client.on('error', (error: Error) => {
      if (/Authentication failed|auth/i.test(error.message) && error.name === 'WSAuthFailureError')
        this.setState('failed', `WeCom refused the bot id or secret: ${error.message}`);
      this.wecom.onError?.(error);
    });
    this.client = client;
    this.attachPlatform();
    this.setState('starting');
    client.connect();
  }

  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.detachPlatform();
    this.client?.disconnect();
    this.setState('stopped');
  }

  private async onMessage(frame: WsFrame): Promise<void> {
    const body = frame.body as WecomMessage | undefined;
    if (!body?.msgid || !body.from?.userid) return;
    const group = body.chattype === 'group';
    const chatId = group ? (body.chatid ?? body.from.userid) : body.from.userid;
    const { text, files } = this.contentOf(body);
    // Kept before the turn starts (a command may be answered at once) and dropped again unless this message
    // started a turn; a repeat of the same id must not replace the frame the first one is answered on.
    const key = `${this.name}:${chatId}:${body.msgid}`;
    const previous = this.frames.get(key);
    this.frames.set(key, frame);
    if (this.frames.size > 500) this.frames.delete(this.frames.keys().next().value as string);
    // Nothing is fetched here: the base downloads only for a sender it admitted, within the size cap.
    const result = await this.receive({
      platformId: body.msgid,
      senderId: body.from.userid,
      chatId,
      // The platform delivers group messages only when the bot is @mentioned.
      text: text.replace(/^@\S+\s*/, ''),
      files,
      ...(group ? { group: { mentioned: true, repliedToBot: false } } : {}),
      ...(body.quote?.text?.content ? { quote: body.quote.text.content } : {}),
    });
    if (result === 'accepted') return;
    if (previous) this.frames.set(key, previous);
    else this.frames.delete(key);
  }

  /**
   * The words of a callback and its images and files, not yet downloaded: the base fetches them (the SDK
   * decrypts each with its own key) only for a sender who may talk, so a stranger's attachment costs nothing.
   */
  private contentOf(body: WecomMessage): { text: string; files: PlatformFile[] } {
    if (body.msgtype === 'text') return { text: body.text?.content ?? '', files: [] };
    if (body.msgtype === 'voice')
      return { text: body.voice?.content ?? '[a voice message without a transcript]', files: [] };
    const file = (kind: 'image' | 'file', item: { url: string; aeskey?: string }): PlatformFile => {
      const lazy: PlatformFile = {
        kind,
        name: kind === 'image' ? 'image' : 'file',
        download: async () => {
          const { buffer, filename } = await this.client!.downloadFile(item.url, item.aeskey ?? '');
          // The name is known only with the bytes (the SDK reads it from the download's headers).
          if (filename) lazy.name = filename;
          return buffer;
        },
      };
      return lazy;
    };
    if (body.msgtype === 'image' && body.image) return { text: '', files: [file('image', body.image)] };
    if (body.msgtype === 'file' && body.file) return { text: '', files: [file('file', body.file)] };
    if (body.msgtype === 'mixed') {
      const words: string[] = [];
      const files: PlatformFile[] = [];
      for (const item of body.mixed?.msg_item ?? []) {
        if (item.msgtype === 'text' && item.text?.content) words.push(item.text.content);
        if (item.msgtype === 'image' && item.image) files.push(file('image', item.image));
      }
      return { text: words.join('\n'), files };
    }
    return { text: `[a ${body.msgtype} message; Wren reads text, voice, images and files here]`, files: [] };
  }

  /** A reply on its request frame; anything else through the proactive-send command. */
  override async send(message: OutboundMessage): Promise<void> {
    const frame = this.frames.get(message.replyTo);
    if (!frame) return super.send(message);
    this.frames.delete(message.replyTo);
    const streamId = this.streams.get(message.replyTo) ?? (await this.newStreamId());
    this.streams.delete(message.replyTo);
    await this.client!.replyStream(frame, streamId, message.text.trim() || '(empty reply)', true);
  }

  /** Uploads a file the model sends (the SDK's chunked upload) and pushes it: images as images. */
  /** Progress goes into the reply's own stream (WeCom shows a stream as one message being written). */
  protected override async postStatus(_chatId: string, text: string, handle?: string, replyTo?: string) {
    const frame = replyTo ? this.frames.get(replyTo) : undefined;
    if (!frame || !replyTo) return undefined;
    const streamId = handle ?? this.streams.get(replyTo) ?? (await this.newStreamId());
    this.streams.set(replyTo, streamId);
    if (this.streams.size > 500) this.streams.delete(this.streams.keys().next().value as string);
    await this.client!.replyStream(frame, streamId, text, false);
    return streamId;
  }

  private async newStreamId(): Promise<string> {
    const { generateReqId } = await import('@wecom/aibot-node-sdk');
    return generateReqId('stream');
  }

  protected override async sendFile(chatId: string, file: Attachment): Promise<void> {
    const bytes = await readFile(file.path);
    const kind = imageType(bytes) ? 'image' : 'file';
    const uploaded = await this.client!.uploadMedia(bytes, {
      type: kind,
      filename: file.name.split('/').pop() ?? 'file',
    });
    await this.client!.sendMediaMessage(chatId, kind, uploaded.media_id);
  }

  protected async sendText(chatId: string, text: string): Promise<void> {
    await this.client!.sendMessage(chatId, { msgtype: 'markdown', markdown: { content: text } });
  }
}
