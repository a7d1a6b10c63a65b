import { readFile } from 'node:fs/promises';
import type { Logger } from '@slack/socket-mode';
import type { WebClient } from '@slack/web-api';
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
import { type SlackEnvelope, slackSocketSession } from './slack-socket.js';

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

/** The `@slack/logger` shape, silent: what matters reaches the channel's state or `onError`. */
const quiet: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  setLevel() {},
  getLevel: () => 'error' as ReturnType<Logger['getLevel']>,
  setName() {},
};

/** The fields of a `block_actions` interaction Wren reads. */
interface BlockActions {
  type: 'block_actions';
  user?: { id?: string };
  channel?: { id?: string };
  actions?: Array<{ action_id?: string }>;
}

/**
 * Slack in Socket Mode (an outgoing WebSocket: nothing to expose) through `@slack/socket-mode` and
 * `@slack/web-api`. DMs are conversations; in a listed channel Wren answers a mention in a thread under it,
 * and each thread is its own conversation. Replies are mrkdwn (model text escaped so it can never mention
 * anyone), approvals Block Kit buttons only the owner's click answers; the Web API client retries 429s
 * after `Retry-After`. Each connection asks `auth.test` who the bot is (its own messages are ignored) and
 * acks every envelope as it arrives; `keepConnected` reconnects with backoff.
 */
export class SlackChannel extends PlatformChannel<ShownApproval> {
  protected readonly textLimit = 3800;
  private readonly slack: SlackChannelOptions;
  private web: WebClient | undefined;
  private botUserId = '';
  private running: Promise<void> | undefined;
  private readonly controller = new AbortController();

  constructor(options: SlackChannelOptions) {
    super(platformOptions('slack', options));
    this.slack = options;
  }

  async start(signal?: AbortSignal): Promise<void> {
    signal?.addEventListener('abort', () => this.controller.abort(), { once: true });
    const config = this.slack.config();
    // Loaded only when Slack is configured: the SDK is not part of every start (nor of every install).
    const { SocketModeClient } = this.requireSdk<typeof import('@slack/socket-mode')>('@slack/socket-mode');
    const { WebClient } = this.requireSdk<typeof import('@slack/web-api')>('@slack/web-api');
    // Stopped while the SDK loaded: attaching now would outlive the stop.
    if (this.controller.signal.aborted) return;
    const logger: Logger = {
      ...quiet,
      error: (...parts: unknown[]) => this.slack.onError?.(new Error(parts.map(String).join(' '))),
    };
    // Replies and edits: the client's default retries, waiting out `Retry-After` on a 429.
    const web = new WebClient(config.botToken, { slackApiUrl: config.apiUrl, logger });
    // Who the bot is, once per connection: one try, so an unreachable Slack is keepConnected's to retry.
    const probe = new WebClient(config.botToken, {
      slackApiUrl: config.apiUrl,
      logger,
      retryConfig: { retries: 0 },
      timeout: 30_000,
    });
    this.web = web;
    this.attachPlatform();
    this.running = this.keepConnected(
      this.controller.signal,
      async (signal, connected) => {
        const auth = await probe.auth.test();
        this.botUserId = String(auth.user_id ?? '');
        await slackSocketSession(signal, connected, {
          SocketModeClient,
          appToken: config.appToken,
          apiUrl: config.apiUrl,
          logger,
          onEnvelope: (envelope) => this.onEnvelope(envelope),
          onError: (error) => this.slack.onError?.(error),
        });
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

  /** Routes one acked envelope: message and mention events, and approval button clicks. */
  private async onEnvelope(envelope: SlackEnvelope): Promise<void> {
    if (this.controller.signal.aborted) return;
    // Read field by field, each checked: a malformed envelope is dropped, never thrown on.
    const payload = (envelope.payload ?? {}) as { event?: SlackMessageEvent | null } & Partial<BlockActions>;
    if (envelope.type === 'events_api') {
      const event = payload.event;
      if (event?.type === 'message' || event?.type === 'app_mention') await this.onMessage(event);
    } else if (envelope.type === 'interactive' && payload.type === 'block_actions') {
      const user = payload.user?.id;
      if (typeof user !== 'string') return;
      const channel = typeof payload.channel?.id === 'string' ? payload.channel.id : undefined;
      for (const action of Array.isArray(payload.actions) ? payload.actions : [])
        if (typeof action?.action_id === 'string') await this.onButton(user, channel, action.action_id);
    }
  }

  private async onMessage(event: SlackMessageEvent): Promise<void> {
    if (typeof event.channel !== 'string' || typeof event.ts !== 'string') return;
    // Another app's posts and Wren's own (its replies in a DM come back as message events).
    if (event.bot_id || typeof event.user !== 'string' || event.user === this.botUserId) return;
    if (event.subtype && event.subtype !== 'file_share') return;
    const direct = event.channel_type === 'im' || event.channel.startsWith('D');
    const mention = `<@${this.botUserId}>`;
    const raw = typeof event.text === 'string' ? event.text : '';
    const mentioned = this.botUserId !== '' && raw.includes(mention);
    const text = raw.split(mention).join('').trim();
    const chatId = direct ? event.channel : `${event.channel}/${event.thread_ts ?? event.ts}`;
    const { files, notes } = this.lazyFiles(Array.isArray(event.files) ? event.files : []);
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
      if (typeof file !== 'object' || file === null) continue;
      const name = typeof file.name === 'string' ? file.name : 'file';
      const url = file.url_private_download;
      if (typeof url !== 'string' || !URL.canParse(url)) {
        notes.push(`[file ${name} came without a download link; not downloaded]`);
        continue;
      }
      const host = new URL(url).hostname;
      if (!/(^|\.)slack(-edge)?\.com$/.test(host) && host !== new URL(config.apiUrl).hostname) {
        notes.push(`[file ${name} is hosted outside Slack; not downloaded]`);
        continue;
      }
      const type = typeof file.mimetype === 'string' ? file.mimetype : '';
      files.push({
        kind: type.startsWith('audio/') ? 'voice' : IMAGE_TYPES.has(type) ? 'image' : 'file',
        name,
        ...(typeof file.size === 'number' ? { size: file.size } : {}),
        describe: `an audio clip (${name})`,
        download: (maxBytes) =>
          fetchCapped(url, maxBytes, { headers: { authorization: `Bearer ${config.botToken}` } }),
      });
    }
    return { files, notes };
  }

  /** A click on an approval button (`wa:…`); anyone but the owner is told so, only them. */
  private async onButton(user: string, channel: string | undefined, actionId: string) {
    const parsed = parseApprovalButton(actionId);
    if (!parsed) return;
    const result = await this.answerPresented(user, parsed.shortId, parsed.choice);
    if (!result.ok && channel) await this.web!.chat.postEphemeral({ channel, user, text: result.message });
  }

  protected async sendText(chatId: string, text: string, options: { notice: boolean }): Promise<void> {
    await this.web!.chat.postMessage({
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
    await this.web!.files.uploadV2(where.thread_ts ? { ...upload, thread_ts: where.thread_ts } : upload);
  }

  protected override async postStatus(chatId: string, text: string, handle?: string) {
    const client = this.web!;
    const where = whereOf(chatId);
    if (!handle)
      return String((await client.chat.postMessage({ ...where, text: escapeSlack(text) })).ts ?? '');
    await client.chat.update({ channel: where.channel, ts: handle, text: escapeSlack(text) });
    return handle;
  }

  protected override async showApproval(request: ApprovalRequest): Promise<ShownApproval | undefined> {
    const text = escapeSlack(describeApprovalText(request, true));
    const where = whereOf(request.chatId);
    const sent = await this.web!.chat.postMessage({
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
    await this.web!.chat.update({
      channel: shown.channel,
      ts: shown.ts,
      text: `${shown.text}\n\n→ ${escapeSlack(outcome)}`,
      blocks: [],
    });
  }
}

/** Errors reconnecting cannot fix: Slack refused a token (the app was removed, a token revoked). */
const REFUSED =
  /^(invalid_auth|not_authed|token_revoked|token_expired|account_inactive|user_removed_from_team|team_disabled)$/;

/** The reason to give up on, or undefined for what a reconnect may cure (network, 5xx, rate limits). */
function fatalReason(error: unknown): string | undefined {
  const code = (error as { data?: { error?: unknown } } | undefined)?.data?.error;
  if (typeof code === 'string' && REFUSED.test(code))
    return `Slack refused a token (${code}): check channels.slack.bot_token and app_token`;
  return undefined;
}
