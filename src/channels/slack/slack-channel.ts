import { readFile } from 'node:fs/promises';
import type { App } from '@slack/bolt';
import type { ApprovalRequest, Attachment } from '../../bus/messages.js';
import {
  approvalButtonData,
  describeApprovalText,
  APPROVAL_LABELS as LABELS,
  parseApprovalButton,
} from '../approval-text.js';
import { fetchCapped } from '../fetch-capped.js';
import { IMAGE_MEDIA_TYPES as IMAGE_TYPES } from '../image-type.js';
import type { PlatformFile } from '../inbound-files.js';
import { escapeSlack, toSlackMrkdwn } from '../markdown/to-slack-mrkdwn.js';
import { PlatformChannel } from '../platform-channel.js';
import { type AdapterOptions, platformOptions } from '../platform-options.js';
import type { SlackConfig } from './slack-config.js';

/** The fields of a Slack message event Wren reads. */
interface SlackMessageEvent {
  type: string;
  subtype?: string;
  bot_id?: string;
  user?: string;
  channel: string;
  channel_type?: string;
  text?: string;
  ts: string;
  thread_ts?: string;
  files?: Array<{ name?: string; mimetype?: string; size?: number; url_private_download?: string }>;
}

export type SlackChannelOptions = AdapterOptions<SlackConfig>;

/** An approval question as posted: replaced by its outcome (without buttons) once answered. */
interface ShownApproval {
  channel: string;
  ts: string;
  text: string;
}

/** Splits a chat id: a DM (`D…`) or a thread in a channel (`C…/<thread ts>`). */
function whereOf(chatId: string): { channel: string; thread_ts?: string } {
  const at = chatId.indexOf('/');
  return at < 0 ? { channel: chatId } : { channel: chatId.slice(0, at), thread_ts: chatId.slice(at + 1) };
}

const quiet = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  setLevel() {},
  getLevel: () => 'error' as never,
  setName() {},
};

/**
 * Slack through Bolt in Socket Mode (an outgoing WebSocket: nothing to expose). DMs are conversations; in a
 * listed channel Wren answers a mention in a thread under it, and each thread is its own conversation.
 * Replies are mrkdwn (model text escaped so it can never mention anyone), approvals Block Kit buttons only the
 * owner's click answers; the Web API client retries 429s after `Retry-After`. The socket reconnects itself.
 */
export class SlackChannel extends PlatformChannel<ShownApproval> {
  protected readonly textLimit = 3800;
  private readonly slack: SlackChannelOptions;
  private app: App | undefined;
  private botUserId = '';
  private stopping = false;

  constructor(options: SlackChannelOptions) {
    super(platformOptions('slack', options));
    this.slack = options;
  }

  async start(signal?: AbortSignal): Promise<void> {
    signal?.addEventListener('abort', () => void this.stop(), { once: true });
    const config = this.slack.config();
    const { App, SocketModeReceiver, webApi } = await import('@slack/bolt');
    const clientOptions = { slackApiUrl: config.apiUrl };
    const logger = {
      ...quiet,
      error: (...parts: unknown[]) => this.slack.onError?.(new Error(parts.map(String).join(' '))),
    };
    const receiver = new SocketModeReceiver({
      appToken: config.appToken,
      installerOptions: { clientOptions },
      logger,
    });
    // Who the bot is, asked once here (Bolt would ask again in the background, where a refused token
    // would surface as an unhandled rejection instead of the channel's state).
    this.setState('starting');
    try {
      const auth = await new webApi.WebClient(config.botToken, { ...clientOptions, logger }).auth.test();
      this.botUserId = String(auth.user_id ?? '');
    } catch (error) {
      this.setState('failed', fatalReason(error));
      throw error;
    }
    const app = new App({
      token: config.botToken,
      receiver,
      clientOptions,
      logger,
      ignoreSelf: true,
      tokenVerificationEnabled: false,
      botUserId: this.botUserId,
    });
    app.event('message', async ({ event }) => this.onMessage(event as unknown as SlackMessageEvent));
    app.event('app_mention', async ({ event }) => this.onMessage(event as unknown as SlackMessageEvent));
    app.action(/^wa:/, async ({ ack, body, action }) => {
      await ack();
      await this.onButton(
        body as unknown as { user: { id: string }; channel?: { id: string } },
        action as { action_id: string },
      );
    });
    const socket = receiver.client;
    socket.on('connected', () => this.setState('connected'));
    socket.on('reconnecting', () => this.setState('reconnecting', 'the Socket Mode connection dropped'));
    socket.on('close', () => {
      if (!this.stopping) this.setState('reconnecting', 'the Socket Mode connection dropped');
    });
    this.app = app;
    this.attachPlatform();
    try {
      await app.start();
      this.setState('connected');
    } catch (error) {
      this.setState('failed', fatalReason(error));
      throw error;
    }
  }

  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.detachPlatform();
    await this.app?.stop().catch(() => {});
    this.setState('stopped');
  }

  private async onMessage(event: SlackMessageEvent): Promise<void> {
    if (event.bot_id || !event.user) return;
    if (event.subtype && event.subtype !== 'file_share') return;
    const direct = event.channel_type === 'im' || event.channel.startsWith('D');
    const mention = `<@${this.botUserId}>`;
    const raw = event.text ?? '';
    const mentioned = this.botUserId !== '' && raw.includes(mention);
    const text = raw.split(mention).join('').trim();
    const chatId = direct ? event.channel : `${event.channel}/${event.thread_ts ?? event.ts}`;
    const { files, notes } = this.lazyFiles(event.files ?? []);
    // Nothing is fetched here: the base downloads only for a sender it admitted, within the size cap.
    await this.receive({
      platformId: event.ts,
      senderId: event.user,
      chatId,
      text: [text, ...notes].filter(Boolean).join('\n'),
      files,
      ...(direct ? {} : { group: { mentioned, repliedToBot: false, id: event.channel } }),
    });
  }

  /**
   * Slack's files as files the base may fetch once the sender is admitted, with the bot token; a file
   * without a download URL, or hosted anywhere but Slack's own hosts (or the configured API host), is only
   * noted: the token never goes to a planted URL.
   */
  private lazyFiles(list: NonNullable<SlackMessageEvent['files']>) {
    const config = this.slack.config();
    const files: PlatformFile[] = [];
    const notes: string[] = [];
    for (const file of list) {
      const name = file.name ?? 'file';
      const url = file.url_private_download;
      if (!url || !URL.canParse(url)) {
        notes.push(`[file ${name} came without a download link; not downloaded]`);
        continue;
      }
      const host = new URL(url).hostname;
      if (!/(^|\.)slack(-edge)?\.com$/.test(host) && host !== new URL(config.apiUrl).hostname) {
        notes.push(`[file ${name} is hosted outside Slack; not downloaded]`);
        continue;
      }
      const type = file.mimetype ?? '';
      files.push({
        kind: type.startsWith('audio/') ? 'voice' : IMAGE_TYPES.has(type) ? 'image' : 'file',
        name,
        ...(file.size !== undefined ? { size: file.size } : {}),
        describe: `an audio clip (${name})`,
        download: (maxBytes) =>
          fetchCapped(url, maxBytes, { headers: { authorization: `Bearer ${config.botToken}` } }),
      });
    }
    return { files, notes };
  }

  private async onButton(
    body: { user: { id: string }; channel?: { id: string } },
    action: { action_id: string },
  ) {
    const parsed = parseApprovalButton(action.action_id);
    if (!parsed) return;
    const result = await this.answerPresented(body.user.id, parsed.shortId, parsed.choice);
    if (!result.ok && body.channel)
      await this.app!.client.chat.postEphemeral({
        channel: body.channel.id,
        user: body.user.id,
        text: result.message,
      });
  }

  protected async sendText(chatId: string, text: string, options: { notice: boolean }): Promise<void> {
    await this.app!.client.chat.postMessage({
      ...whereOf(chatId),
      text: options.notice ? escapeSlack(text) : toSlackMrkdwn(text),
      unfurl_links: false,
    });
  }

  protected override async sendFile(chatId: string, file: Attachment): Promise<void> {
    const where = whereOf(chatId);
    const upload = {
      channel_id: where.channel,
      file: await readFile(file.path),
      filename: file.name.split('/').pop() ?? 'file',
    };
    await this.app!.client.files.uploadV2(
      where.thread_ts ? { ...upload, thread_ts: where.thread_ts } : upload,
    );
  }

  protected override async postStatus(chatId: string, text: string, handle?: string) {
    const client = this.app!.client;
    const where = whereOf(chatId);
    if (!handle)
      return String((await client.chat.postMessage({ ...where, text: escapeSlack(text) })).ts ?? '');
    await client.chat.update({ channel: where.channel, ts: handle, text: escapeSlack(text) });
    return handle;
  }

  protected override async showApproval(request: ApprovalRequest): Promise<ShownApproval | undefined> {
    const text = escapeSlack(describeApprovalText(request, true));
    const where = whereOf(request.chatId);
    const sent = await this.app!.client.chat.postMessage({
      ...where,
      text,
      blocks: [
        { type: 'section', text: { type: 'mrkdwn', text: text.slice(0, 2900) } },
        {
          type: 'actions',
          elements: request.choices.map((choice) => ({
            type: 'button',
            text: { type: 'plain_text', text: LABELS[choice] },
            action_id: approvalButtonData(request, choice),
            ...(choice === 'deny' ? { style: 'danger' } : choice === 'once' ? { style: 'primary' } : {}),
          })),
        },
      ],
    });
    return sent.ts ? { channel: where.channel, ts: sent.ts, text } : undefined;
  }

  protected override async closeApproval(shown: ShownApproval, outcome: string): Promise<void> {
    // Replacing the message without its buttons: a late click then has nothing to act on.
    await this.app!.client.chat.update({
      channel: shown.channel,
      ts: shown.ts,
      text: `${shown.text}\n\n→ ${escapeSlack(outcome)}`,
      blocks: [],
    });
  }
}

function fatalReason(error: unknown): string {
  const code = (error as { data?: { error?: string } }).data?.error ?? (error as Error).message;
  if (/invalid_auth|not_authed|token_revoked|account_inactive/.test(code))
    return `Slack refused a token (${code}): check channels.slack.bot_token and app_token`;
  return String(code);
}
