import { readFile } from 'node:fs/promises';
import type { Client, WSClient } from '@larksuiteoapi/node-sdk';
import type { ApprovalRequest, Attachment } from '../../bus/messages.js';
import {
  approvalButtonData,
  describeApprovalText,
  APPROVAL_LABELS as LABELS,
  parseApprovalButton,
} from '../approval-text.js';
import { readCapped } from '../fetch-capped.js';
import { imageType } from '../image-type.js';
import type { PlatformFile } from '../inbound-files.js';
import { PlatformChannel } from '../platform-channel.js';
import { type AdapterOptions, platformOptions } from '../platform-options.js';
import type { FeishuConfig } from './feishu-config.js';

/** The fields of an `im.message.receive_v1` event Wren reads. */
interface FeishuMessageEvent {
  sender?: { sender_id?: { open_id?: string }; sender_type?: string };
  message?: {
    message_id: string;
    chat_id: string;
    chat_type: 'p2p' | 'group';
    message_type: string;
    content: string;
    parent_id?: string;
    mentions?: Array<{ key: string; id?: { open_id?: string }; name?: string }>;
  };
}

/** The fields of a `card.action.trigger` callback Wren reads. */
interface FeishuCardAction {
  operator?: { open_id?: string };
  action?: { value?: { action?: string } };
}

export type FeishuChannelOptions = AdapterOptions<FeishuConfig>;

/** An approval card as sent: patched to its outcome (without buttons) once answered. */
interface ShownApproval {
  messageId: string;
  text: string;
}

/**
 * Feishu / Lark through the official SDK's long connection (a WebSocket the SDK opens: nothing to expose).
 * Direct chats are conversations; in a listed group Wren answers when @mentioned. Replies are `post`
 * messages with Markdown (plain text when refused); approvals are interactive cards whose buttons only the
 * owner's click answers (the SDK carries `card.action.trigger` over the same connection). The SDK
 * reconnects itself; its callbacks drive the channel's state.
 */
export class FeishuChannel extends PlatformChannel<ShownApproval> {
  protected readonly textLimit = 8000;
  private readonly feishu: FeishuChannelOptions;
  private client: Client | undefined;
  private ws: WSClient | undefined;
  private botOpenId = '';
  private stopping = false;

  constructor(options: FeishuChannelOptions) {
    // Feishu's section has no progress setting: no progress shown (the base's default for such sections).
    super(platformOptions('feishu', options));
    this.feishu = options;
  }

  async start(signal?: AbortSignal): Promise<void> {
    signal?.addEventListener('abort', () => void this.stop(), { once: true });
    const config = this.feishu.config();
    const lark = this.requireSdk<typeof import('@larksuiteoapi/node-sdk')>('@larksuiteoapi/node-sdk');
    const logger = {
      error: (...parts: unknown[]) => this.feishu.onError?.(new Error(parts.map(String).join(' '))),
      warn() {},
      info() {},
      debug() {},
      trace() {},
    };
    const base = { appId: config.appId, appSecret: config.appSecret, domain: config.domain, logger };
    this.client = new lark.Client(base);
    const dispatcher = new lark.EventDispatcher({}).register({
      'im.message.receive_v1': async (data: FeishuMessageEvent) => {
        await this.onMessage(data).catch((error: unknown) => this.feishu.onError?.(error));
      },
      'card.action.trigger': async (data: FeishuCardAction) => this.onCardAction(data),
    } as never);
    this.attachPlatform();
    this.setState('starting');
    await new Promise<void>((resolve, reject) => {
      this.ws = new lark.WSClient({
        ...base,
        loggerLevel: lark.LoggerLevel.error,
        onReady: () => {
          this.setState('connected');
          resolve();
        },
        onReconnecting: () => {
          if (!this.stopping) this.setState('reconnecting', 'the long connection dropped');
        },
        onReconnected: () => this.setState('connected'),
        onError: (error: Error) => {
          this.setState('failed', fatalReason(error));
          reject(error);
        },
      });
      void this.ws.start({ eventDispatcher: dispatcher }).catch(reject);
    });
    this.botOpenId = await this.whoAmI().catch(() => '');
  }

  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.detachPlatform();
    this.ws?.close();
    this.setState('stopped');
  }

  /** The bot's own open_id, to tell a mention of Wren from a mention of someone else. */
  private async whoAmI(): Promise<string> {
    const answer = (await this.client!.request({ method: 'GET', url: '/open-apis/bot/v3/info' })) as {
      bot?: { open_id?: string };
    };
    return answer.bot?.open_id ?? '';
  }

  private async onMessage(data: FeishuMessageEvent): Promise<void> {
    const message = data.message;
    const sender = data.sender?.sender_id?.open_id;
    if (!message || !sender || data.sender?.sender_type === 'app') return;
    let content: {
      text?: string;
      image_key?: string;
      file_key?: string;
      file_name?: string;
      duration?: number;
    } = {};
    try {
      content = JSON.parse(message.content) as typeof content;
    } catch {
      content = {};
    }
    const mentions = message.mentions ?? [];
    const mentioned = mentions.some((mention) => !this.botOpenId || mention.id?.open_id === this.botOpenId);
    const group = message.chat_type === 'group' ? { group: { mentioned, repliedToBot: false } } : {};
    let text = content.text ?? '';
    for (const mention of mentions) text = text.split(mention.key).join('').trim();
    const files: PlatformFile[] = [];
    const download = (key: string, type: 'image' | 'file') => (maxBytes: number) =>
      this.resource(message.message_id, key, type, maxBytes);
    const kind = message.message_type;
    if (kind === 'image' && content.image_key)
      files.push({ kind: 'image', name: 'image', download: download(content.image_key, 'image') });
    else if ((kind === 'file' || kind === 'media') && content.file_key)
      files.push({
        kind: 'file',
        name: content.file_name ?? 'file',
        download: download(content.file_key, 'file'),
      });
    else if (kind === 'audio' && content.file_key)
      files.push({
        kind: 'voice',
        name: 'voice',
        describe: `a ${Math.round((content.duration ?? 0) / 1000)} s voice message`,
        download: download(content.file_key, 'file'),
      });
    else if (kind !== 'text') text = `[a ${kind} message; Wren reads text, images, files and voice here]`;
    // Nothing is fetched here: the base downloads only for a sender it admitted, within the size cap
    // (Feishu declares no size in the event, so the download itself stops at the cap).
    await this.receive({
      platformId: message.message_id,
      senderId: sender,
      chatId: message.chat_id,
      ...group,
      text,
      files,
    });
  }

  /** A message's image or file, read up to `maxBytes`. */
  private async resource(
    messageId: string,
    fileKey: string,
    type: 'image' | 'file',
    maxBytes: number,
  ): Promise<Buffer> {
    const answer = await this.client!.im.v1.messageResource.get({
      path: { message_id: messageId, file_key: fileKey },
      params: { type },
    });
    return readCapped(answer.getReadableStream(), maxBytes);
  }

  private async onCardAction(data: FeishuCardAction) {
    const parsed = parseApprovalButton(String(data.action?.value?.action ?? ''));
    if (!parsed || !data.operator?.open_id) return {};
    const result = await this.answerPresented(data.operator.open_id, parsed.shortId, parsed.choice);
    return {
      toast: {
        type: result.ok ? 'success' : 'error',
        content: result.ok ? LABELS[parsed.choice] : result.message,
      },
    };
  }

  protected async sendText(chatId: string, text: string, options: { notice: boolean }): Promise<void> {
    const im = this.client!.im.v1.message;
    const create = (msgType: string, content: unknown) =>
      this.retrying(() =>
        im.create({
          params: { receive_id_type: this.receiveIdType(chatId) },
          data: { receive_id: chatId, msg_type: msgType, content: JSON.stringify(content) },
        }),
      );
    if (options.notice) {
      await create('text', { text });
      return;
    }
    // A post with one Markdown element renders bold, lists, links and code; refused: the same words as text.
    const answer = (await create('post', { zh_cn: { content: [[{ tag: 'md', text }]] } }).catch(
      () => undefined,
    )) as { code?: number } | undefined;
    if (!answer || (answer.code ?? 0) !== 0) await create('text', { text });
  }

  /** Uploads a file the model sends and posts it: images as images, everything else as a file. */
  protected override async sendFile(chatId: string, file: Attachment): Promise<void> {
    const im = this.client!.im.v1;
    const bytes = await readFile(file.path);
    const name = file.name.split('/').pop() ?? 'file';
    const image = imageType(bytes);
    const [msgType, content] = image
      ? [
          'image',
          {
            image_key: (
              await this.retrying(() => im.image.create({ data: { image_type: 'message', image: bytes } }))
            )?.image_key,
          },
        ]
      : [
          'file',
          {
            file_key: (
              await this.retrying(() =>
                im.file.create({ data: { file_type: 'stream', file_name: name, file: bytes } }),
              )
            )?.file_key,
          },
        ];
    if (!Object.values(content)[0]) throw new Error(`Feishu did not accept the upload of ${name}`);
    await this.retrying(() =>
      im.message.create({
        params: { receive_id_type: this.receiveIdType(chatId) },
        data: { receive_id: chatId, msg_type: msgType, content: JSON.stringify(content) },
      }),
    );
  }

  /** Chat ids start with oc_; the owner's id (a proactive target) is an open_id. */
  private receiveIdType(chatId: string): 'chat_id' | 'open_id' {
    return chatId.startsWith('ou_') ? 'open_id' : 'chat_id';
  }

  protected override async showApproval(request: ApprovalRequest): Promise<ShownApproval | undefined> {
    const text = describeApprovalText(request, true);
    const card = {
      schema: '2.0',
      header: { title: { tag: 'plain_text', content: `Approval needed: ${request.tool}` } },
      body: {
        elements: [
          { tag: 'markdown', content: text.replace(/[*_~`[\]]/g, (char) => `\\${char}`) },
          ...request.choices.map((choice) => ({
            tag: 'button',
            text: { tag: 'plain_text', content: LABELS[choice] },
            type: choice === 'deny' ? 'danger' : choice === 'once' ? 'primary' : 'default',
            behaviors: [{ type: 'callback', value: { action: approvalButtonData(request, choice) } }],
          })),
        ],
      },
    };
    const answer = (await this.retrying(() =>
      this.client!.im.v1.message.create({
        params: { receive_id_type: this.receiveIdType(request.chatId) },
        data: { receive_id: request.chatId, msg_type: 'interactive', content: JSON.stringify(card) },
      }),
    )) as { data?: { message_id?: string } };
    const messageId = answer.data?.message_id;
    return messageId ? { messageId, text } : undefined;
  }

  protected override async closeApproval(shown: ShownApproval, outcome: string): Promise<void> {
    // The card without its buttons: a late click has nothing to act on.
    const card = {
      schema: '2.0',
      body: { elements: [{ tag: 'markdown', content: `${shown.text}\n\n→ ${outcome}` }] },
    };
    await this.client!.im.v1.message.patch({
      path: { message_id: shown.messageId },
      data: { content: JSON.stringify(card) },
    });
  }
}

function fatalReason(error: unknown): string {
  const text = (error as Error).message ?? String(error);
  if (/app_?secret|app_?id|invalid|10003|10014|auth/i.test(text))
    return `Feishu refused the app credentials: check channels.feishu.app_id and app_secret (${text.slice(0, 120)})`;
  return text;
}
