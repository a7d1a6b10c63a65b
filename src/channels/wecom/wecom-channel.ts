import type { WSClient, WsFrame } from '@wecom/aibot-node-sdk';
import type { OutboundMessage } from '../../bus/messages.js';
import { PlatformChannel, type PlatformChannelOptions } from '../platform-channel.js';
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
  quote?: { msgtype?: string; text?: { content?: string } };
}

export interface WecomChannelOptions extends Omit<PlatformChannelOptions, 'name' | 'access' | 'progress'> {
  config: () => WecomConfig;
}

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

  constructor(options: WecomChannelOptions) {
    super({ ...options, name: 'wecom', access: () => options.config().access, progress: () => 'off' });
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
    client.on('message', (frame: WsFrame) => this.onMessage(frame));
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

  private onMessage(frame: WsFrame): void {
    const body = frame.body as WecomMessage | undefined;
    if (!body?.msgid || !body.from?.userid) return;
    const group = body.chattype === 'group';
    const chatId = group ? (body.chatid ?? body.from.userid) : body.from.userid;
    const text =
      body.msgtype === 'text'
        ? (body.text?.content ?? '')
        : body.msgtype === 'voice'
          ? (body.voice?.content ?? '[a voice message without a transcript]')
          : `[a ${body.msgtype} message; Wren reads text and voice here]`;
    // Kept before the turn starts (a command may be answered at once) and dropped again unless this message
    // started a turn; a repeat of the same id must not replace the frame the first one is answered on.
    const key = `${this.name}:${chatId}:${body.msgid}`;
    const previous = this.frames.get(key);
    this.frames.set(key, frame);
    if (this.frames.size > 500) this.frames.delete(this.frames.keys().next().value as string);
    const result = this.receive({
      platformId: body.msgid,
      senderId: body.from.userid,
      chatId,
      // The platform delivers group messages only when the bot is @mentioned.
      text: text.replace(/^@\S+\s*/, ''),
      ...(group ? { group: { mentioned: true, repliedToBot: false } } : {}),
      ...(body.quote?.text?.content ? { quote: body.quote.text.content } : {}),
    });
    if (result === 'accepted') return;
    if (previous) this.frames.set(key, previous);
    else this.frames.delete(key);
  }

  /** A reply on its request frame; anything else through the proactive-send command. */
  override async send(message: OutboundMessage): Promise<void> {
    const frame = this.frames.get(message.replyTo);
    if (!frame) return super.send(message);
    this.frames.delete(message.replyTo);
    const { generateReqId } = await import('@wecom/aibot-node-sdk');
    await this.client!.replyStream(
      frame,
      generateReqId('stream'),
      message.text.trim() || '(empty reply)',
      true,
    );
  }

  protected async sendText(chatId: string, text: string): Promise<void> {
    await this.client!.sendMessage(chatId, { msgtype: 'markdown', markdown: { content: text } });
  }
}
