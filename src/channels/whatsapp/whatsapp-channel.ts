import { readFile } from 'node:fs/promises';
import type { ApprovalEvent, ApprovalRequest, Attachment } from '../../bus/messages.js';
import { sleep } from '../../util/create-deadline.js';
import type { LinkRequest } from '../channel.js';
import { imageType } from '../image-type.js';
import type { PlatformFile } from '../inbound-files.js';
import { NumberedApprovals } from '../numbered-approvals.js';
import { PlatformChannel } from '../platform-channel.js';
import { type AdapterOptions, platformOptions } from '../platform-options.js';
import { defaultBackoff } from '../retry.js';
import { type StoredAuthState, storedAuthState } from './whatsapp-auth-state.js';
import type { WhatsAppConfig } from './whatsapp-config.js';
import { isOwnJid, jidOfChat, withoutMentionOf } from './whatsapp-jid.js';
import { parseWhatsAppMessage, type WhatsAppInbound } from './whatsapp-message.js';
import { baileysDriver, type WhatsAppDriver, type WhatsAppSocket } from './whatsapp-socket.js';

export type WhatsAppChannelOptions = AdapterOptions<WhatsAppConfig> & {
  /** The home's sealing key (the session is stored encrypted under it). */
  secretKey: () => Uint8Array;
  /** Sockets and media downloads; default Baileys (a test passes its own: see whatsapp-socket.ts). */
  driver?: WhatsAppDriver;
};

/** Baileys' close codes (its DisconnectReason) the channel acts on. */
const LOGGED_OUT = 401;
const REPLACED = 440;
const RESTART_REQUIRED = 515;

/** How long WhatsApp keeps a QR code and a pairing code valid. */
const QR_TTL_MS = 20_000;
const CODE_TTL_MS = 180_000;

export const NOT_LINKED =
  'not linked yet: run `wren channels link whatsapp` (or Settings → Channels in the web app) and scan the code with your phone';

/** How a connection ended: Baileys' status code (a Boom's), and words for the owner. */
interface Closed {
  code: number | undefined;
  reason: string;
  opened: boolean;
}

function closedBy(error: unknown): { code: number | undefined; reason: string } {
  const boom = error as { output?: { statusCode?: unknown }; message?: unknown } | undefined;
  const code = typeof boom?.output?.statusCode === 'number' ? boom.output.statusCode : undefined;
  const message = typeof boom?.message === 'string' && boom.message ? boom.message : 'the connection closed';
  return { code, reason: code ? `${message} (${code})` : message };
}

/**
 * WhatsApp as a linked device of the owner's account (or a second number), through Baileys. Linked by QR
 * code or pairing code on request (`link`), the session kept encrypted in the database; reconnects with
 * backoff; a device the phone removed shows `logged-out` with how to link again. Direct chats and, when
 * listed in `groups`, groups where Wren is @mentioned or replied to; "Message yourself" is the owner's chat
 * when the owner lists their own number. Text, quotes, images (to the model), voice notes (transcribed),
 * documents (to the inbox) in; text and files out; read receipts and "typing…"; approvals answered by number.
 * Messages are taken once (the channel ledger), in the order WhatsApp delivered them.
 */
export class WhatsAppChannel extends PlatformChannel {
  protected readonly textLimit = 4000;
  private readonly adapter: WhatsAppChannelOptions;
  private readonly controller = new AbortController();
  private readonly approvals = new NumberedApprovals();
  private driver: WhatsAppDriver | undefined;
  private auth: StoredAuthState | undefined;
  /** The connection in progress and how to end its session. */
  private connection:
    | { socket: WhatsAppSocket; finish: (closed: Omit<Closed, 'opened'>) => void }
    | undefined;
  /** Bumped by link and unlink: a session they ended is not a dropped connection. */
  private generation = 0;
  private running: Promise<void> | undefined;
  /** The owner's link request in progress, until the device is linked or the code expires. */
  private wanted: LinkRequest | undefined;
  /** Wakes the loop when a link is requested while it waits unlinked. */
  private wake: (() => void) | undefined;
  /** Why the channel is logged out (shown with the state). */
  private loggedOutWhy = NOT_LINKED;
  /** Ids of messages Wren sent: in "Message yourself" they come back from the account and are not input. */
  private readonly sent = new Set<string>();
  /** Messages are handled one at a time, in the order WhatsApp delivered them. */
  private queue: Promise<void> = Promise.resolve();

  constructor(options: WhatsAppChannelOptions) {
    super(platformOptions('whatsapp', options));
    this.adapter = options;
  }

  async start(signal?: AbortSignal): Promise<void> {
    signal?.addEventListener('abort', () => this.controller.abort(), { once: true });
    this.setState('starting');
    const sdk = await this.importSdk<typeof import('@whiskeysockets/baileys')>('@whiskeysockets/baileys');
    this.driver = this.adapter.driver ?? baileysDriver(sdk);
    let key: Uint8Array;
    try {
      key = this.adapter.secretKey();
    } catch (error) {
      // A malformed WREN_SECRET_KEY: say so where the owner looks, instead of a silent start failure.
      this.setState('failed', (error as Error).message);
      throw error;
    }
    this.auth = storedAuthState({
      ledger: this.platform.ledger,
      channel: this.name,
      key,
      sdk,
      ...(this.adapter.onError ? { onError: this.adapter.onError } : {}),
    });
    this.attachPlatform();
    this.running = this.run(this.auth);
  }

  async stop(): Promise<void> {
    this.controller.abort();
    this.wake?.();
    this.closeSocket();
    this.detachPlatform();
    await this.running?.catch(() => {});
    this.setState('stopped');
  }

  /** Drops any half-done link and starts a fresh one; the code appears in `status().link`. */
  async link(request: LinkRequest): Promise<void> {
    const auth = this.auth;
    if (!auth) throw new Error('the WhatsApp channel is not started');
    if (auth.registered() && this.status().state === 'connected')
      throw new Error(
        'WhatsApp is already linked and connected; unlink it first (`wren channels unlink whatsapp`) to link another phone',
      );
    if (request.method === 'code' && !/^\d{7,15}$/.test(request.phone))
      throw new Error('the phone number needs its country code and 7 to 15 digits, e.g. +4915112345678');
    auth.clear();
    this.generation++;
    this.wanted = request;
    this.setState('linking', 'waiting for the link code from WhatsApp');
    // A session in progress (an old QR) is ended; the loop then connects afresh for this request.
    this.closeSocket();
    this.wake?.();
  }

  /** Logs this device out on WhatsApp (the phone's Linked devices list drops it) and forgets the session. */
  async unlink(): Promise<void> {
    const auth = this.auth;
    if (!auth) throw new Error('the WhatsApp channel is not started');
    const socket = this.socket;
    this.generation++;
    this.wanted = undefined;
    this.loggedOutWhy = 'unlinked by the owner; link again with `wren channels link whatsapp`';
    if (socket && this.status().state === 'connected')
      await socket.logout('unlinked by the owner').catch((error: unknown) => this.adapter.onError?.(error));
    auth.clear();
    this.closeSocket();
    this.setState('logged-out', this.loggedOutWhy);
  }

  /** Ends the connection in progress; its session then returns (Baileys may or may not report the close). */
  private closeSocket(): void {
    const current = this.connection;
    this.connection = undefined;
    if (!current) return;
    Promise.resolve(current.socket.end(undefined)).catch(() => {});
    current.finish({ code: undefined, reason: 'ended by Wren' });
  }

  private get socket(): WhatsAppSocket | undefined {
    return this.connection?.socket;
  }

  /**
   * Connects while there is a session or a link request, and reconnects with backoff; between them it waits
   * unlinked. Logged out by the phone: the session is forgotten. Never throws.
   */
  private async run(auth: StoredAuthState): Promise<void> {
    const signal = this.controller.signal;
    let attempt = 0;
    while (!signal.aborted) {
      if (!auth.registered() && !this.wanted) {
        this.setState('logged-out', this.loggedOutWhy);
        await new Promise<void>((resolve) => {
          this.wake = resolve;
        });
        this.wake = undefined;
        continue;
      }
      const generation = this.generation;
      const closed = await this.session(auth);
      if (signal.aborted) break;
      if (closed.opened) attempt = 0;
      // A link request or an unlink ended this session on purpose (and said why).
      if (generation !== this.generation) continue;
      if (closed.code === LOGGED_OUT) {
        auth.clear();
        this.wanted = undefined;
        this.loggedOutWhy =
          'WhatsApp logged this device out (removed on the phone, or unused for too long); link again with `wren channels link whatsapp`';
        this.adapter.onError?.(new Error(`whatsapp: ${this.loggedOutWhy}`));
        continue;
      }
      if (closed.code === REPLACED) {
        this.setState(
          'failed',
          'another client took over this WhatsApp session (is a second Wren running with the same session?)',
        );
        return;
      }
      // After a scan WhatsApp asks for a fresh connection, which then logs in with the new session.
      if (closed.code === RESTART_REQUIRED) continue;
      if (!auth.registered()) {
        if (this.wanted) {
          this.wanted = undefined;
          this.loggedOutWhy = `the link code expired before the phone used it; ${NOT_LINKED.replace('not linked yet: ', '')}`;
        }
        continue;
      }
      attempt++;
      this.setState('reconnecting', closed.reason);
      await sleep((this.platform.backoff ?? defaultBackoff)(attempt), signal).catch(() => {});
    }
  }

  /** One connection, from the socket's creation to its close. */
  private session(auth: StoredAuthState): Promise<Closed> {
    const socket = this.driver!.connect(auth.state);
    let opened = false;
    let codeAsked = false;
    return new Promise<Closed>((resolve) => {
      let done = false;
      const finish = (closed: Omit<Closed, 'opened'>) => {
        if (done) return;
        done = true;
        if (this.connection?.socket === socket) this.connection = undefined;
        resolve({ ...closed, opened });
      };
      this.connection = { socket, finish };
      const live = () => !done && this.connection?.socket === socket;
      socket.ev.on('creds.update', () => auth.saveCreds());
      socket.ev.on('connection.update', (update) => {
        if (!live()) return;
        if (update.qr && this.wanted) this.showLink(socket, update.qr, codeAsked);
        if (update.qr && this.wanted?.method === 'code') codeAsked = true;
        if (update.connection === 'open') {
          opened = true;
          this.wanted = undefined;
          this.setState('connected');
        } else if (update.connection === 'close') {
          finish(closedBy(update.lastDisconnect?.error));
        }
      });
      socket.ev.on('messages.upsert', ({ messages, type }) => {
        // `append` is history and Wren's own sends from elsewhere; only new messages start turns.
        if (type !== 'notify' || !Array.isArray(messages)) return;
        for (const raw of messages)
          this.queue = this.queue
            .then(() => this.onMessage(raw, socket))
            .catch((error: unknown) => this.adapter.onError?.(error));
      });
      this.controller.signal.addEventListener('abort', () => finish({ code: undefined, reason: 'stopped' }), {
        once: true,
      });
    });
  }

  /** A QR code from WhatsApp: shown as it is, or (once) turned into a pairing code for the phone number. */
  private showLink(socket: WhatsAppSocket, qr: string, codeAsked: boolean): void {
    const wanted = this.wanted!;
    if (wanted.method === 'qr') {
      this.setState('linking', 'scan the QR code: WhatsApp → Settings → Linked devices → Link a device', {
        qr,
        expiresAt: this.now() + QR_TTL_MS,
      });
      return;
    }
    if (codeAsked) return;
    socket
      .requestPairingCode(wanted.phone)
      .then((code) => {
        if (this.socket === socket)
          this.setState(
            'linking',
            'type the code: WhatsApp → Settings → Linked devices → Link a device → Link with phone number instead',
            { code, expiresAt: this.now() + CODE_TTL_MS },
          );
      })
      .catch((error: unknown) => {
        this.adapter.onError?.(error);
        if (this.socket !== socket) return;
        this.wanted = undefined;
        this.loggedOutWhy = `WhatsApp gave no pairing code for +${wanted.phone} (${closedBy(error).reason}); check the number, or link by QR code`;
        this.closeSocket();
      });
  }

  private async onMessage(raw: Parameters<typeof parseWhatsAppMessage>[0], socket: WhatsAppSocket) {
    const inbound = parseWhatsAppMessage(raw);
    if (!inbound || this.sent.has(inbound.id)) return;
    const own = socket.user;
    // The account's own messages are input only in "Message yourself": elsewhere they are the owner
    // writing to other people from the phone, which is none of Wren's business.
    const selfChat = !inbound.group && isOwnJid(inbound.chatJid, own);
    if (inbound.fromMe && !selfChat) return;
    if (!inbound.fromMe && selfChat) return;
    const mentioned = inbound.mentions.some((jid) => isOwnJid(jid, own));
    let text = inbound.group ? withoutMentionOf(inbound.text, own) : inbound.text;
    if (this.isOwner(inbound.senderId)) {
      const answer = this.approvals.translate(text);
      if (answer === 'ambiguous') {
        this.notice(
          inbound.chatId,
          'Several approvals are waiting: reply with the number and the id, e.g. "1 ab12cd".',
        );
        return;
      }
      if (answer) text = answer;
    }
    const result = await this.receive({
      platformId: inbound.id,
      senderId: inbound.senderId,
      ...(inbound.senderName ? { senderName: inbound.senderName } : {}),
      chatId: inbound.chatId,
      text,
      files: inbound.media ? [this.fileOf(inbound, socket)] : [],
      ...(inbound.quote?.text ? { quote: inbound.quote.text } : {}),
      ...(inbound.group
        ? {
            group: {
              mentioned,
              repliedToBot: !!inbound.quote?.id && this.sent.has(inbound.quote.id),
            },
          }
        : {}),
    });
    if (result === 'accepted' && this.adapter.config().readReceipts && !selfChat)
      socket.readMessages([inbound.raw.key]).catch((error: unknown) => this.adapter.onError?.(error));
  }

  private fileOf(inbound: WhatsAppInbound, socket: WhatsAppSocket): PlatformFile {
    const media = inbound.media!;
    return {
      kind: media.kind,
      name: media.name,
      ...(media.size !== undefined ? { size: media.size } : {}),
      ...(media.kind === 'voice'
        ? {
            describe:
              media.seconds !== undefined
                ? `a ${media.seconds} s WhatsApp voice note`
                : 'a WhatsApp voice note',
          }
        : {}),
      download: (maxBytes) => this.driver!.download(inbound.raw, socket, maxBytes),
    };
  }

  private connectedSocket(): WhatsAppSocket {
    const socket = this.socket;
    if (!socket || this.status().state !== 'connected')
      throw new Error(`WhatsApp is not connected (${this.status().state})`);
    return socket;
  }

  /** Sends one message with an id chosen here, remembered first so its echo is never taken as input. */
  private async post(chatId: string, content: Parameters<WhatsAppSocket['sendMessage']>[1]) {
    const socket = this.connectedSocket();
    const messageId = this.driver!.messageId();
    this.sent.add(messageId);
    if (this.sent.size > 1000) this.sent.delete(this.sent.values().next().value as string);
    await this.retrying(() => socket.sendMessage(jidOfChat(chatId), content, { messageId }));
  }

  protected async sendText(chatId: string, text: string): Promise<void> {
    await this.post(chatId, { text });
  }

  /** Images as pictures, anything else as a document with its name. */
  protected override async sendFile(chatId: string, file: Attachment): Promise<void> {
    const bytes = await readFile(file.path);
    const type = imageType(bytes);
    const fileName = file.name.split('/').pop() || 'file';
    if (type) await this.post(chatId, { image: bytes, mimetype: type });
    else await this.post(chatId, { document: bytes, fileName, mimetype: 'application/octet-stream' });
  }

  protected override async typing(chatId: string): Promise<void> {
    await this.socket?.sendPresenceUpdate('composing', jidOfChat(chatId));
  }

  /** Buttons are unreliable on WhatsApp: the question is answered by number. */
  protected override async showApproval(request: ApprovalRequest): Promise<undefined> {
    await this.sendText(request.chatId, this.approvals.question(request));
    return undefined;
  }

  override async approvalResolved(event: Extract<ApprovalEvent, { type: 'approval-resolved' }>) {
    if (event.id) this.approvals.resolved(event.id);
    await super.approvalResolved(event);
  }
}
