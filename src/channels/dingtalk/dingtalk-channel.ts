import { readFile } from 'node:fs/promises';
import type { DWClientDownStream } from 'dingtalk-stream';
import type { ApprovalEvent, ApprovalRequest, Attachment } from '../../bus/messages.js';
import { fetchCapped } from '../fetch-capped.js';
import { imageType } from '../image-type.js';
import type { PlatformFile } from '../inbound-files.js';
import { NumberedApprovals } from '../numbered-approvals.js';
import { PlatformChannel } from '../platform-channel.js';
import { type AdapterOptions, platformOptions } from '../platform-options.js';
import { DingtalkApi } from './dingtalk-api.js';
import type { DingtalkConfig } from './dingtalk-config.js';
import { DingtalkAuthError, dingtalkStreamSession } from './dingtalk-stream-session.js';

/** The fields of a robot-message callback (`/v1.0/im/bot/messages/get`) Wren reads. */
interface RobotCallback {
  msgId?: unknown;
  msgtype?: unknown;
  conversationType?: unknown;
  conversationId?: unknown;
  senderStaffId?: unknown;
  senderId?: unknown;
  senderNick?: unknown;
  isInAtList?: unknown;
  sessionWebhook?: unknown;
  sessionWebhookExpiredTime?: unknown;
  text?: { content?: unknown };
  content?: {
    downloadCode?: unknown;
    fileName?: unknown;
    recognition?: unknown;
    richText?: Array<{ text?: unknown; type?: unknown; downloadCode?: unknown } | null>;
  };
}

export type DingtalkChannelOptions = AdapterOptions<DingtalkConfig>;

const str = (value: unknown): string => (typeof value === 'string' ? value : '');

/** A session webhook is used until a minute before it expires (DingTalk gives them about 90 minutes). */
const WEBHOOK_MARGIN_MS = 60_000;

/**
 * DingTalk (钉钉) robot in Stream mode through `dingtalk-stream`: an outgoing WebSocket, so no public URL.
 * Direct chats are keyed by the sender's staff id, groups by conversation id (only listed groups, only
 * when the robot is @-mentioned). Text goes back through the conversation's session webhook while it is
 * valid, else through the robot OpenAPI (which also carries files and anything Wren sends on its own).
 * Approvals are answered by number. Callbacks are handled in order and acked once recorded.
 */
export class DingtalkChannel extends PlatformChannel {
  protected readonly textLimit = 4000;
  private readonly dingtalk: DingtalkChannelOptions;
  private readonly api: DingtalkApi;
  private readonly approvals = new NumberedApprovals();
  /** The latest session webhook of each chat. */
  private readonly webhooks = new Map<string, { url: string; expires: number }>();
  /** Unlisted groups whose @-mention was reported (once each). */
  private readonly toldGroups = new Set<string>();
  private readonly controller = new AbortController();
  private running: Promise<void> | undefined;

  constructor(options: DingtalkChannelOptions) {
    super(platformOptions('dingtalk', options));
    this.dingtalk = options;
    this.api = new DingtalkApi(options.config);
  }

  async start(signal?: AbortSignal): Promise<void> {
    signal?.addEventListener('abort', () => this.controller.abort(), { once: true });
    // Loaded only when DingTalk is configured: the SDK is not part of every start (nor of every install).
    const sdk = this.requireSdk<typeof import('dingtalk-stream')>('dingtalk-stream');
    if (this.controller.signal.aborted) return;
    this.attachPlatform();
    this.running = this.keepConnected(
      this.controller.signal,
      (session, connected) => {
        const config = this.dingtalk.config();
        return dingtalkStreamSession(session, connected, {
          sdk,
          clientId: config.clientId,
          clientSecret: config.clientSecret,
          gatewayUrl: `${config.apiUrl}/v1.0/gateway/connections/open`,
          onRobotMessage: (frame) => this.onRobotMessage(frame),
          onError: (error) => this.dingtalk.onError?.(error),
        });
      },
      (error) => (error instanceof DingtalkAuthError ? error.message : undefined),
    );
  }

  async stop(): Promise<void> {
    this.controller.abort();
    this.detachPlatform();
    await this.running?.catch(() => {});
    this.setState('stopped');
  }

  /** One robot callback: read field by field (a malformed one is dropped), then admitted by the base. */
  private async onRobotMessage(frame: DWClientDownStream): Promise<void> {
    let body: RobotCallback;
    try {
      body = JSON.parse(frame.data) as RobotCallback;
    } catch {
      throw new Error('a DingTalk robot callback whose data is not JSON was dropped');
    }
    if (typeof body !== 'object' || body === null) return;
    const msgId = str(body.msgId);
    const senderId = str(body.senderStaffId) || str(body.senderId);
    const group = body.conversationType === '2';
    const chatId = group ? str(body.conversationId) : senderId;
    if (!msgId || !senderId || !chatId) return;
    this.keepWebhook(chatId, body);
    const { text, files } = this.contentOf(body);
    let said = text.trim();
    // Nothing Wren could read (an empty text, a rich text of unknown parts): no turn for it.
    if (!said && files.length === 0) return;
    if (this.isOwner(senderId)) {
      const answer = this.approvals.translate(said);
      if (answer === 'ambiguous') {
        this.notice(
          chatId,
          'Several approvals are waiting: reply with the number and the id, e.g. "1 ab12cd".',
        );
        return;
      }
      if (answer) said = answer;
    }
    const result = await this.receive({
      platformId: msgId,
      senderId,
      chatId,
      text: said,
      files,
      ...(str(body.senderNick) ? { senderName: str(body.senderNick) } : {}),
      ...(group ? { group: { mentioned: body.isInAtList === true, repliedToBot: false } } : {}),
    });
    if (result === 'ignored' && body.isInAtList === true) this.tellUnlistedGroup(chatId);
  }

  /**
   * Says once per group (in the log) that an @-mention in a group not under `groups` was ignored, with the
   * id to list: DingTalk shows a group's conversation id nowhere else.
   */
  private tellUnlistedGroup(chatId: string): void {
    if (this.toldGroups.has(chatId) || this.toldGroups.size > 100) return;
    this.toldGroups.add(chatId);
    this.dingtalk.onError?.(
      new Error(
        `dingtalk: an @-mention in group ${chatId.slice(0, 100)} was ignored; to let Wren take part there, add it under channels.dingtalk.groups`,
      ),
    );
  }

  /** Remembers where the chat's replies can go without a token (only DingTalk's own hosts, or api_url's). */
  private keepWebhook(chatId: string, body: RobotCallback): void {
    const url = str(body.sessionWebhook);
    const expires = Number(body.sessionWebhookExpiredTime);
    if (!url || !Number.isFinite(expires) || !this.trustedWebhook(url)) return;
    this.webhooks.delete(chatId);
    this.webhooks.set(chatId, { url, expires });
    if (this.webhooks.size > 500) this.webhooks.delete(this.webhooks.keys().next().value as string);
  }

  private trustedWebhook(url: string): boolean {
    try {
      const parsed = new URL(url);
      if (parsed.protocol === 'https:' && parsed.hostname.endsWith('.dingtalk.com')) return true;
      return parsed.origin === new URL(this.dingtalk.config().apiUrl).origin;
    } catch {
      return false;
    }
  }

  /**
   * The words of a callback and its pictures and files, not yet downloaded: the base fetches them only
   * for a sender who may talk, so a stranger's picture costs nothing.
   */
  private contentOf(body: RobotCallback): { text: string; files: PlatformFile[] } {
    const file = (kind: 'image' | 'file', code: string, name: string): PlatformFile => ({
      kind,
      name,
      download: async (maxBytes) => fetchCapped(await this.api.downloadUrl(code), maxBytes),
    });
    const content = body.content;
    const code = str(content?.downloadCode);
    switch (body.msgtype) {
      case 'text':
        return { text: str(body.text?.content), files: [] };
      case 'picture':
        return { text: '', files: code ? [file('image', code, 'image')] : [] };
      case 'file':
        return { text: '', files: code ? [file('file', code, str(content?.fileName) || 'file')] : [] };
      case 'audio':
        return { text: str(content?.recognition) || '[a voice message without a transcript]', files: [] };
      case 'richText': {
        const words: string[] = [];
        const files: PlatformFile[] = [];
        for (const item of Array.isArray(content?.richText) ? content.richText : []) {
          if (str(item?.text)) words.push(str(item?.text));
          if (item?.type === 'picture' && str(item.downloadCode))
            files.push(file('image', str(item.downloadCode), 'image'));
        }
        return { text: words.join('\n'), files };
      }
      default:
        return {
          text: `[a ${str(body.msgtype).slice(0, 40) || 'blank'} message; Wren reads text, voice, pictures and files here]`,
          files: [],
        };
    }
  }

  /** A question answered by number (DingTalk robots have no buttons in plain messages). */
  protected override async showApproval(request: ApprovalRequest): Promise<undefined> {
    await this.sendText(request.chatId, this.approvals.question(request), { notice: true });
    return undefined;
  }

  override async approvalResolved(event: Extract<ApprovalEvent, { type: 'approval-resolved' }>) {
    if (event.id) this.approvals.resolved(event.id);
    await super.approvalResolved(event);
  }

  /** Text: plain for Wren's own notices, markdown for the model's replies. */
  protected async sendText(chatId: string, text: string, options: { notice: boolean }): Promise<void> {
    const title =
      text
        .split('\n')[0]!
        .replace(/[#*_`>]/g, '')
        .slice(0, 30) || 'Wren';
    const webhook = this.webhooks.get(chatId);
    if (webhook && webhook.expires - WEBHOOK_MARGIN_MS > this.now()) {
      const body = options.notice
        ? { msgtype: 'text', text: { content: text } }
        : { msgtype: 'markdown', markdown: { title, text } };
      try {
        await this.retrying(() => this.api.webhook(webhook.url, body));
        return;
      } catch (error) {
        // A webhook DingTalk no longer takes: the OpenAPI still reaches the chat.
        this.dingtalk.onError?.(error);
        this.webhooks.delete(chatId);
      }
    }
    await this.retrying(() =>
      this.api.send(
        chatId,
        options.notice
          ? { msgKey: 'sampleText', msgParam: { content: text } }
          : { msgKey: 'sampleMarkdown', msgParam: { title, text } },
      ),
    );
  }

  /** Uploads a file the model sends and posts it through the OpenAPI: pictures as pictures. */
  protected override async sendFile(chatId: string, file: Attachment): Promise<void> {
    const bytes = await readFile(file.path);
    const name = file.name.split('/').pop() || 'file';
    const image = imageType(bytes) !== undefined;
    const mediaId = await this.retrying(() => this.api.upload(bytes, name, image ? 'image' : 'file'));
    const extension = /\.([A-Za-z0-9]{1,10})$/.exec(name)?.[1]?.toLowerCase() ?? 'file';
    await this.retrying(() =>
      this.api.send(
        chatId,
        image
          ? { msgKey: 'sampleImageMsg', msgParam: { photoURL: mediaId } }
          : { msgKey: 'sampleFile', msgParam: { mediaId, fileName: name, fileType: extension } },
      ),
    );
  }
}
