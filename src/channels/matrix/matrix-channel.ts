import { readFile } from 'node:fs/promises';
import type { MatrixClient, MatrixEvent, Room } from 'matrix-js-sdk';
import type { ApprovalChoice, ApprovalRequest, Attachment } from '../../bus/messages.js';
import { describeApprovalText, shortApprovalId } from '../approval-text.js';
import { imageType } from '../image-type.js';
import type { PlatformFile } from '../inbound-files.js';
import { PlatformChannel } from '../platform-channel.js';
import { type AdapterOptions, platformOptions } from '../platform-options.js';
import type { MatrixConfig } from './matrix-config.js';

export type MatrixChannelOptions = AdapterOptions<MatrixConfig>;

/** Events older than this at start are history, not messages to answer. */
const HISTORY_MS = 24 * 60 * 60 * 1000;

/** How many /messages pages (of 50 events) a room is read back after a restart, at most. */
const CATCH_UP_PAGES = 10;

/** Reactions an owner answers a shown approval with (emoji with or without the variation selector). */
const REACTION_CHOICES: Record<string, ApprovalChoice> = {
  '✅': 'once',
  '✅\uFE0F': 'once',
  '👍': 'once',
  '❌': 'deny',
  '👎': 'deny',
};

/** A conversation: a room, or a thread in it (`<room id>|<thread root event id>`; ids never hold `|`). */
function whereOf(chatId: string): { roomId: string; thread?: string } {
  const at = chatId.indexOf('|');
  return at < 0 ? { roomId: chatId } : { roomId: chatId.slice(0, at), thread: chatId.slice(at + 1) };
}

/** The relation that puts a message into a thread (with the reply fallback for clients without threads). */
function threadRelation(thread: string | undefined): Record<string, unknown> {
  if (!thread) return {};
  return {
    'm.relates_to': {
      rel_type: 'm.thread',
      event_id: thread,
      is_falling_back: true,
      'm.in_reply_to': { event_id: thread },
    },
  };
}

/** The SDK logs every request at debug level; Wren reports through its own state and errors instead. */
const quietLogger = {
  trace() {},
  debug() {},
  info() {},
  warn() {},
  error() {},
  getChild: () => quietLogger,
};

/**
 * Matrix through matrix-js-sdk's sync loop (the SDK long-polls /sync and retries a dropped connection with
 * its own backoff). Each room message goes through the base once: event ids are the de-duplication key in
 * the channel ledger, so the timeline an initial sync replays after a restart is neither lost nor repeated.
 * Invites from an owner are joined; others are left alone. Encrypted rooms are not read (no crypto here).
 * A message in a thread is its own conversation, answered in that thread. While a turn runs the room shows
 * "typing…" and one progress notice that is edited as tools run. An approval is answered by typing
 * (`once ab12cd`) or by the owner's reaction to the question (✅ once, ❌ deny).
 */
export class MatrixChannel extends PlatformChannel<string> {
  protected readonly textLimit = 16000;
  private readonly matrix: MatrixChannelOptions;
  private client: MatrixClient | undefined;
  private stopping = false;
  private startedAt = 0;
  /** Whether the first sync was caught up (see catchUp); before, timeline events wait for it. */
  private live = false;
  private catchingUp: Promise<void> | undefined;
  private userId = '';
  /** Messages handled one at a time, in timeline order. */
  private queue: Promise<void> = Promise.resolve();
  /** The short approval id and room of each shown question (by its event id), until it is answered. */
  private readonly questions = new Map<string, { shortId: string; roomId: string }>();

  constructor(options: MatrixChannelOptions) {
    super(platformOptions('matrix', options));
    this.matrix = options;
  }

  async start(signal?: AbortSignal): Promise<void> {
    signal?.addEventListener('abort', () => void this.stop(), { once: true });
    const config = this.matrix.config();
    const sdk = await this.importSdk<typeof import('matrix-js-sdk')>('matrix-js-sdk');
    this.setState('starting');
    this.startedAt = this.now();
    let accessToken = config.accessToken;
    let userId = config.user;
    if (!accessToken) {
      const login = sdk.createClient({ baseUrl: config.homeserver, logger: quietLogger });
      const answer = await login.loginRequest({
        type: 'm.login.password',
        identifier: { type: 'm.id.user', user: config.user ?? '' },
        password: config.password ?? '',
        initial_device_display_name: 'Wren',
      });
      accessToken = answer.access_token;
      userId = answer.user_id;
    }
    if (!userId?.startsWith('@')) {
      const probe = sdk.createClient({ baseUrl: config.homeserver, accessToken, logger: quietLogger });
      userId = (await probe.whoami()).user_id;
    }
    this.userId = userId;
    const client = sdk.createClient({ baseUrl: config.homeserver, accessToken, userId, logger: quietLogger });
    client.on(sdk.RoomEvent.Timeline, (event: MatrixEvent, room: Room | undefined, toStart?: boolean) => {
      // Until the first sync is caught up, the timeline is read in one ordered pass instead (catchUp).
      if (toStart || !room || !this.live) return;
      this.enqueue(event, room);
    });
    client.on(sdk.RoomEvent.MyMembership, (room: Room, membership: string) => {
      if (membership === 'invite') void this.onInvite(room);
    });
    client.on(sdk.ClientEvent.Sync, (state: string) => {
      if (state === 'PREPARED' && !this.catchingUp)
        this.catchingUp = this.catchUp(client).catch((error: unknown) => this.matrix.onError?.(error));
      if (state === 'PREPARED' || state === 'SYNCING') this.setState('connected');
      else if ((state === 'ERROR' || state === 'RECONNECTING') && !this.stopping)
        this.setState('reconnecting', 'the sync connection dropped');
    });
    this.client = client;
    this.attachPlatform();
    await client.startClient({ initialSyncLimit: 20, lazyLoadMembers: false });
  }

  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.detachPlatform();
    this.client?.stopClient();
    this.setState('stopped');
  }

  private enqueue(event: MatrixEvent, room: Room): void {
    this.queue = this.queue
      .then(() => this.onEvent(event, room))
      .catch((error: unknown) => this.matrix.onError?.(error));
  }

  /**
   * After the first sync (which holds only the last few events of each room): reads each known room back to
   * the last event handled before the restart, through /messages, at most CATCH_UP_PAGES pages, then hands
   * every event of every room to the queue oldest first (the ledger drops those already handled) and goes
   * live. Events that arrive meanwhile are in the timelines it reads, so none is missed or reordered.
   */
  private async catchUp(client: MatrixClient): Promise<void> {
    const rooms = client.getRooms().filter((room) => room.getMyMembership() === 'join');
    for (const room of rooms) {
      const seen = Number(this.platform.ledger.cursor(this.name, `room:${room.roomId}`));
      if (!Number.isFinite(seen)) continue;
      for (let page = 0; page < CATCH_UP_PAGES && !this.stopping; page++) {
        const events = room.getLiveTimeline().getEvents();
        if ((events[0]?.getTs() ?? 0) <= seen || !room.oldState.paginationToken) break;
        await client.scrollback(room, 50);
        if (room.getLiveTimeline().getEvents().length === events.length) break;
      }
    }
    const pending = rooms
      .flatMap((room) =>
        room
          .getLiveTimeline()
          .getEvents()
          .map((event) => ({ event, room })),
      )
      .sort((a, b) => a.event.getTs() - b.event.getTs());
    this.live = true;
    for (const { event, room } of pending) this.enqueue(event, room);
  }

  /** An invite is joined only when an owner sent it. */
  private async onInvite(room: Room): Promise<void> {
    const inviter = room.getMember(this.userId)?.events.member?.getSender();
    if (!inviter || !this.matrix.config().access.owner.includes(inviter)) return;
    await this.client!.joinRoom(room.roomId).catch((error: unknown) => this.matrix.onError?.(error));
  }

  private async onEvent(event: MatrixEvent, room: Room): Promise<void> {
    const sender = event.getSender();
    const id = event.getId();
    if (!sender || !id || sender === this.userId) return;
    if (event.getTs() < this.startedAt - HISTORY_MS) return;
    await this.onRoomEvent(event, room, sender, id);
    // Only once handled: after a restart the room is read back to here (see catchUp).
    const key = `room:${room.roomId}`;
    if (event.getTs() > Number(this.platform.ledger.cursor(this.name, key) ?? 0))
      this.platform.ledger.setCursor(this.name, key, String(event.getTs()));
  }

  private async onRoomEvent(event: MatrixEvent, room: Room, sender: string, id: string): Promise<void> {
    if (event.getType() === 'm.room.encrypted') {
      this.matrix.onError?.(
        new Error(
          `matrix: an encrypted message in ${room.roomId} was ignored (no end-to-end encryption support)`,
        ),
      );
      return;
    }
    if (event.getType() === 'm.reaction') return this.onReaction(event, sender, room.roomId);
    if (event.getType() !== 'm.room.message') return;
    const content = event.getContent() as {
      msgtype?: unknown;
      body?: unknown;
      url?: unknown;
      'm.relates_to'?: { rel_type?: unknown; event_id?: unknown };
    };
    const relation = content['m.relates_to'];
    if (relation?.rel_type === 'm.replace') return;
    const thread =
      relation?.rel_type === 'm.thread' &&
      typeof relation.event_id === 'string' &&
      !relation.event_id.includes('|')
        ? relation.event_id
        : undefined;
    const body = typeof content.body === 'string' ? content.body : '';
    const files: PlatformFile[] = [];
    if ((content.msgtype === 'm.image' || content.msgtype === 'm.file') && typeof content.url === 'string') {
      files.push(this.mediaFile(content.msgtype === 'm.image' ? 'image' : 'file', content.url, body));
    } else if (
      content.msgtype !== 'm.text' &&
      content.msgtype !== 'm.notice' &&
      content.msgtype !== 'm.emote'
    )
      return;
    const direct = room.getJoinedMemberCount() <= 2;
    const mentioned = body.includes(this.userId) || this.mentionsMe(event);
    await this.receive({
      platformId: id,
      senderId: sender,
      chatId: thread ? `${room.roomId}|${thread}` : room.roomId,
      text: files.length > 0 ? '' : body,
      files,
      ...(direct ? {} : { group: { id: room.roomId, mentioned, repliedToBot: false } }),
    });
  }

  /**
   * A reaction to a shown approval question: the base counts only an owner's answer to a pending approval,
   * so a stranger's reaction, or one to any other message, changes nothing.
   */
  private async onReaction(event: MatrixEvent, sender: string, roomId: string): Promise<void> {
    const relation = (
      event.getContent() as { 'm.relates_to'?: { rel_type?: unknown; event_id?: unknown; key?: unknown } }
    )['m.relates_to'];
    if (relation?.rel_type !== 'm.annotation' || typeof relation.event_id !== 'string') return;
    const question = this.questions.get(relation.event_id);
    const choice = typeof relation.key === 'string' ? REACTION_CHOICES[relation.key] : undefined;
    // A reaction counts only in the room the question was asked in.
    if (!question || question.roomId !== roomId || !choice) return;
    await this.answerPresented(sender, question.shortId, choice);
  }

  protected override async showApproval(request: ApprovalRequest): Promise<string | undefined> {
    const text = `${describeApprovalText(request, false)}\nOr react to this message: ✅ once · ❌ deny`;
    const eventId = await this.post(request.chatId, { msgtype: 'm.notice', body: text });
    this.questions.set(eventId, {
      shortId: shortApprovalId(request.id),
      roomId: whereOf(request.chatId).roomId,
    });
    return eventId;
  }

  protected override async closeApproval(shown: string): Promise<void> {
    this.questions.delete(shown);
  }

  private mentionsMe(event: MatrixEvent): boolean {
    const mentions = (event.getContent() as { 'm.mentions'?: { user_ids?: unknown } })['m.mentions'];
    return Array.isArray(mentions?.user_ids) && mentions.user_ids.includes(this.userId);
  }

  /** A media download, made only when the base admits the sender (authenticated media endpoint). */
  private mediaFile(kind: 'image' | 'file', mxc: string, name: string): PlatformFile {
    return {
      kind,
      name: name || kind,
      download: async () => {
        const url = this.client!.mxcUrlToHttp(mxc, undefined, undefined, undefined, false, true, true);
        if (!url) throw new Error('matrix: not a media address');
        const response = await fetch(url, {
          headers: { authorization: `Bearer ${this.client!.getAccessToken()}` },
        });
        if (!response.ok) throw new Error(`matrix: media download failed (${response.status})`);
        return Buffer.from(await response.arrayBuffer());
      },
    };
  }

  protected override async sendFile(chatId: string, file: Attachment): Promise<void> {
    const bytes = await readFile(file.path);
    const name = file.name.split('/').pop() ?? 'file';
    const image = imageType(bytes);
    const uploaded = await this.client!.uploadContent(bytes, {
      name,
      type: image ?? 'application/octet-stream',
    });
    await this.post(chatId, {
      msgtype: image ? 'm.image' : 'm.file',
      body: name,
      url: uploaded.content_uri,
      info: { size: bytes.length, mimetype: image ?? 'application/octet-stream' },
    });
  }

  protected override async typing(chatId: string): Promise<void> {
    await this.client?.sendTyping(whereOf(chatId).roomId, true, 6000);
  }

  /**
   * A turn's progress: one notice, then edits of it (`m.replace`, with the `* ` fallback body clients
   * without edits show), so the room holds one message however many tools run.
   */
  protected override async postStatus(chatId: string, text: string, handle?: string) {
    if (!handle) return this.post(chatId, { msgtype: 'm.notice', body: text });
    await this.client!.sendMessage(whereOf(chatId).roomId, {
      msgtype: 'm.notice',
      body: `* ${text}`,
      'm.new_content': { msgtype: 'm.notice', body: text },
      'm.relates_to': { rel_type: 'm.replace', event_id: handle },
    } as never);
    return handle;
  }

  protected async sendText(chatId: string, text: string, options: { notice: boolean }): Promise<void> {
    await this.post(chatId, { msgtype: options.notice ? 'm.notice' : 'm.text', body: text });
  }

  /** Sends one message into the conversation (its thread, if any); returns the new event's id. */
  private async post(chatId: string, content: Record<string, unknown>): Promise<string> {
    const where = whereOf(chatId);
    const sent = await this.client!.sendMessage(where.roomId, {
      ...content,
      ...threadRelation(where.thread),
    } as never);
    return sent.event_id;
  }
}
