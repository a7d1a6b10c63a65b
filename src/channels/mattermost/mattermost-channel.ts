import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { Client4 } from '@mattermost/client';
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
import { PlatformChannel } from '../platform-channel.js';
import { type AdapterOptions, platformOptions } from '../platform-options.js';
import { startActionServer } from './mattermost-actions.js';
import { createMattermostApi, MattermostApiError } from './mattermost-api.js';
import type { MattermostConfig } from './mattermost-config.js';
import { type MattermostPost, quietMentions, readPost } from './mattermost-post.js';
import { type MattermostEvent, mattermostSocketSession } from './mattermost-socket.js';
import { ReadMarks } from './read-marks.js';

export type MattermostChannelOptions = AdapterOptions<MattermostConfig>;

/** An approval question as posted: replaced by its outcome (without buttons) once answered. */
interface ShownApproval {
  id: string;
  text: string;
}

/** Where a chat id points: a DM is the other user's id; a thread in a channel is `<channel>/<root post>`. */
function threadOf(chatId: string): { channel: string; root: string } | undefined {
  const at = chatId.indexOf('/');
  return at < 0 ? undefined : { channel: chatId.slice(0, at), root: chatId.slice(at + 1) };
}

/**
 * Mattermost through a bot account: the REST API v4 through the SDK's Client4 (with deadlines and the HTTP
 * status kept), events over the WebSocket. A DM is a conversation keyed by the other user's id (its DM
 * channel is looked up, or opened, on send); in a listed channel Wren answers an @-mention in a thread
 * under it, each thread its own conversation. Events are handled one at a time in the order they came;
 * the ledger drops a post seen before (a redelivery, or one read again after a restart). Approvals are
 * buttons when `actions` is set (Mattermost posts clicks to Wren's listener), else typed answers.
 */
export class MattermostChannel extends PlatformChannel<ShownApproval> {
  protected readonly textLimit = 16_000;
  private readonly mattermost: MattermostChannelOptions;
  private api: Client4 | undefined;
  private bot = { id: '', username: '' };
  private socketSend: ((action: string, data: Record<string, unknown>) => void) | undefined;
  /** The DM channel of each user Wren talks to, by user id. */
  private readonly directs = new Map<string, string>();
  private queue: Promise<void> = Promise.resolve();
  private readonly marks: ReadMarks;
  private actions: Server | undefined;
  /** Put in every button's context: a click Mattermost did not relay from Wren's own post lacks it. */
  private readonly actionSecret = randomBytes(24).toString('hex');
  private running: Promise<void> | undefined;
  private readonly controller = new AbortController();

  constructor(options: MattermostChannelOptions) {
    super(platformOptions('mattermost', options));
    this.mattermost = options;
    this.marks = new ReadMarks(options.ledger, 'mattermost');
  }

  async start(signal?: AbortSignal): Promise<void> {
    signal?.addEventListener('abort', () => this.controller.abort(), { once: true });
    const config = this.mattermost.config();
    // Loaded only when Mattermost is configured: the SDK is not part of every start (nor of every install).
    const { Client4 } = this.requireSdk<typeof import('@mattermost/client')>('@mattermost/client');
    if (this.controller.signal.aborted) return;
    const api = createMattermostApi(Client4, config.url, config.token);
    this.api = api;
    if (config.actions) {
      const actions = config.actions;
      try {
        this.actions = await startActionServer({
          host: actions.host,
          port: actions.port,
          path: new URL(actions.url).pathname,
          secret: this.actionSecret,
          onClick: (userId, action) => this.onClick(userId, action),
          onError: (error) => this.mattermost.onError?.(error),
        });
      } catch (error) {
        this.setState('failed', `could not listen for approval buttons on ${actions.host}:${actions.port}`);
        throw error;
      }
    }
    this.attachPlatform();
    this.running = this.keepConnected(
      this.controller.signal,
      async (session, connected) => {
        const me = await api.getMe();
        this.bot = { id: me.id, username: me.username };
        await mattermostSocketSession(session, connected, {
          url: `${config.url.replace(/^http/, 'ws')}/api/v4/websocket`,
          token: config.token,
          onEvent: (event) => this.onEvent(event),
          // Events lost on the way: read the channels back (what was handled already is dropped).
          onGap: () => this.enqueue(() => this.catchUp()),
          onError: (error) => this.mattermost.onError?.(error),
          onSender: (send) => {
            this.socketSend = send;
          },
        });
      },
      fatalReason,
    );
  }

  async stop(): Promise<void> {
    this.controller.abort();
    this.detachPlatform();
    await this.running?.catch(() => {});
    const actions = this.actions;
    if (actions) {
      const closed = new Promise<void>((resolve) => actions.close(() => resolve()));
      actions.closeAllConnections();
      await closed;
    }
    this.setState('stopped');
  }

  /** The actions listener's port (tests bind port 0). */
  actionsPort(): number | undefined {
    const address = this.actions?.address();
    return address && typeof address === 'object' ? address.port : undefined;
  }

  /**
   * Each `hello` first reads back what was posted while Wren was away (after a restart or a dropped
   * socket), then live posts follow, in the order they came.
   */
  private onEvent(event: MattermostEvent): void {
    if (event.event === 'hello') this.enqueue(() => this.catchUp());
    else if (event.event === 'posted') this.enqueue(() => this.onPosted(event.data));
  }

  /** Work is done strictly one task after another, so a chat's posts reach the bus in the order sent. */
  private enqueue(task: () => Promise<void>): void {
    this.queue = this.queue.then(task).catch((error: unknown) => this.mattermost.onError?.(error));
  }

  private async catchUp(): Promise<void> {
    const missed = await this.marks.missed(this.api!, this.now(), (error) =>
      this.mattermost.onError?.(error),
    );
    for (const { post, direct } of missed) await this.onPosted({ post, channel_type: direct ? 'D' : 'O' });
  }

  private async onPosted(data: Record<string, unknown>): Promise<void> {
    if (this.controller.signal.aborted) return;
    const post = readPost(data['post']);
    // Wren's own posts come back as events; other bots, webhooks and system messages are never turns.
    if (!post) return;
    const direct = data['channel_type'] === 'D';
    await this.handlePost(post, direct, data);
    // Marked once handled: a crash before this reads the post back, and the ledger drops it if it was taken.
    if (post.createAt) this.marks.note(post.channelId, direct, post.createAt);
  }

  private async handlePost(post: MattermostPost, direct: boolean, data: Record<string, unknown>) {
    if (post.userId === this.bot.id || post.automated) return;
    const mention = `@${this.bot.username}`;
    const mentioned = mentionsOf(data['mentions']).includes(this.bot.id) || hasWord(post.message, mention);
    const text = this.bot.username ? post.message.split(mention).join('').trim() : post.message;
    if (direct) this.remember(post.userId, post.channelId);
    const { files, notes } = this.lazyFiles(post);
    const senderName = typeof data['sender_name'] === 'string' ? data['sender_name'].replace(/^@/, '') : '';
    // Nothing is fetched here: the base downloads only for a sender it admitted, within the size cap.
    await this.receive({
      platformId: post.id,
      senderId: post.userId,
      ...(senderName ? { senderName } : {}),
      chatId: direct ? post.userId : `${post.channelId}/${post.rootId || post.id}`,
      text: [text, ...notes].filter(Boolean).join('\n'),
      files,
      ...(direct ? {} : { group: { mentioned, repliedToBot: false, id: post.channelId } }),
    });
  }

  /** A post's files, fetched from `/api/v4/files/{id}` with the bot token only once the base admits them. */
  private lazyFiles(post: MattermostPost): { files: PlatformFile[]; notes: string[] } {
    const config = this.mattermost.config();
    const files = post.files.map(
      (file): PlatformFile => ({
        kind: file.mimeType.startsWith('audio/')
          ? 'voice'
          : IMAGE_TYPES.has(file.mimeType)
            ? 'image'
            : 'file',
        name: file.name,
        ...(file.size !== undefined ? { size: file.size } : {}),
        describe: `an audio clip (${file.name})`,
        download: (maxBytes) =>
          fetchCapped(`${config.url}/api/v4/files/${encodeURIComponent(file.id)}`, maxBytes, {
            headers: { authorization: `Bearer ${config.token}` },
          }),
      }),
    );
    return { files, notes: [] };
  }

  /** A click on an approval button; anyone but the owner is told so, and only they see it. */
  private async onClick(userId: string, action: string): Promise<string | undefined> {
    const parsed = parseApprovalButton(action);
    if (!parsed) return undefined;
    const result = await this.answerPresented(userId, parsed.shortId, parsed.choice);
    return result.ok ? undefined : result.message;
  }

  private remember(userId: string, channelId: string): void {
    this.directs.delete(userId);
    this.directs.set(userId, channelId);
    if (this.directs.size > 1000) this.directs.delete(this.directs.keys().next().value as string);
  }

  /** The channel and thread root a chat's posts go to (a DM opened through `/channels/direct` when new). */
  private async where(chatId: string): Promise<{ channel_id: string; root_id?: string }> {
    const thread = threadOf(chatId);
    if (thread) return { channel_id: thread.channel, root_id: thread.root };
    const known = this.directs.get(chatId);
    if (known) return { channel_id: known };
    const channel = await this.retrying(() => this.api!.createDirectChannel([this.bot.id, chatId]));
    this.remember(chatId, channel.id);
    return { channel_id: channel.id };
  }

  protected async sendText(chatId: string, text: string): Promise<void> {
    const where = await this.where(chatId);
    await this.retrying(() => this.api!.createPost({ ...where, message: quietMentions(text) }));
  }

  protected override async sendFile(chatId: string, file: Attachment): Promise<void> {
    const where = await this.where(chatId);
    const name = file.name.split('/').pop() ?? 'file';
    const form = new FormData();
    form.append('channel_id', where.channel_id);
    form.append('files', new Blob([await readFile(file.path)]), name);
    const uploaded = await this.retrying(() => this.api!.uploadFile(form));
    const ids = uploaded.file_infos.map((info) => info.id);
    await this.retrying(() => this.api!.createPost({ ...where, message: '', file_ids: ids }));
  }

  protected override async typing(chatId: string): Promise<void> {
    const where = await this.where(chatId);
    this.socketSend?.('user_typing', { channel_id: where.channel_id, parent_id: where.root_id ?? '' });
  }

  protected override async postStatus(chatId: string, text: string, handle?: string) {
    const message = quietMentions(text);
    if (handle) {
      await this.retrying(() => this.api!.patchPost({ id: handle, message }));
      return handle;
    }
    const where = await this.where(chatId);
    return (await this.retrying(() => this.api!.createPost({ ...where, message }))).id;
  }

  protected override async showApproval(request: ApprovalRequest): Promise<ShownApproval | undefined> {
    const actions = this.mattermost.config().actions;
    if (!actions) return super.showApproval(request);
    const text = quietMentions(describeApprovalText(request, true));
    const where = await this.where(request.chatId);
    const post = await this.retrying(() =>
      this.api!.createPost({
        ...where,
        message: text,
        props: {
          attachments: [
            {
              actions: request.choices.map((choice) => ({
                id: choice,
                name: LABELS[choice],
                style: choice === 'deny' ? 'danger' : choice === 'once' ? 'primary' : 'default',
                integration: {
                  url: actions.url,
                  context: { action: approvalButtonData(request, choice), secret: this.actionSecret },
                },
              })),
            },
          ],
        },
      }),
    );
    return { id: post.id, text };
  }

  protected override async closeApproval(shown: ShownApproval, outcome: string): Promise<void> {
    // The post without its buttons: a late click then has nothing to act on.
    await this.retrying(() =>
      this.api!.patchPost({
        id: shown.id,
        message: `${shown.text}\n\n→ ${quietMentions(outcome)}`,
        props: { attachments: [] },
      }),
    );
  }
}

/** The user ids a `posted` event says were mentioned (a JSON-encoded array), or none. */
function mentionsOf(raw: unknown): string[] {
  try {
    const list = typeof raw === 'string' ? JSON.parse(raw) : raw;
    return Array.isArray(list) ? list.filter((item) => typeof item === 'string') : [];
  } catch {
    return [];
  }
}

/** Whether `text` holds `word` not run into a longer name (`@wren` but not `@wrenfan`). */
function hasWord(text: string, word: string): boolean {
  if (word === '@') return false;
  const lower = text.toLowerCase();
  const target = word.toLowerCase();
  for (let at = lower.indexOf(target); at >= 0; at = lower.indexOf(target, at + 1))
    if (!/[\w.-]/.test(lower[at + target.length] ?? '')) return true;
  return false;
}

/** The reason to give up on: Mattermost refused the token (401); anything else a reconnect may cure. */
function fatalReason(error: unknown): string | undefined {
  if (error instanceof MattermostApiError && error.status === 401)
    return 'Mattermost refused the token (401): check channels.mattermost.token (a bot account token)';
  return undefined;
}
