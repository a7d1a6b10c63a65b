import type {
  AnyMessageContent,
  AuthenticationState,
  MiscMessageGenerationOptions,
  WAMessage,
  WAMessageKey,
  WAPresence,
} from '@whiskeysockets/baileys';
import { FileTooLargeError } from '../../src/channels/fetch-capped.js';
import type {
  WhatsAppDriver,
  WhatsAppEvents,
  WhatsAppSocket,
} from '../../src/channels/whatsapp/whatsapp-socket.js';

/** One thing the channel sent through a socket. */
export interface SentMessage {
  jid: string;
  content: AnyMessageContent;
  options?: MiscMessageGenerationOptions;
}

/**
 * A Baileys socket as the channel sees it (Baileys' event names and payloads, its send calls). WhatsApp's
 * own protocol is end-to-end encrypted to Meta's servers and cannot run on loopback, so this is the one fake
 * below the network in the suite; the test plays WhatsApp by emitting the events Baileys emits.
 */
export class FakeSocket implements WhatsAppSocket {
  user: WhatsAppSocket['user'];
  readonly sent: SentMessage[] = [];
  readonly presence: Array<{ type: WAPresence; jid?: string }> = [];
  readonly reads: WAMessageKey[] = [];
  readonly pairingRequests: string[] = [];
  logouts = 0;
  ended = false;
  /** What requestPairingCode answers (an Error is thrown). */
  pairingCode: string | Error = 'WREN2468';
  private readonly listeners = new Map<string, Array<(arg: unknown) => void>>();

  constructor(readonly auth: AuthenticationState) {}

  readonly ev = {
    on: <E extends keyof WhatsAppEvents>(event: E, listener: (arg: WhatsAppEvents[E]) => void) => {
      const list = this.listeners.get(event) ?? [];
      list.push(listener as (arg: unknown) => void);
      this.listeners.set(event, list);
    },
  };

  emit<E extends keyof WhatsAppEvents>(event: E, arg: WhatsAppEvents[E]): void {
    for (const listener of this.listeners.get(event) ?? []) listener(arg);
  }

  async sendMessage(jid: string, content: AnyMessageContent, options?: MiscMessageGenerationOptions) {
    this.sent.push({ jid, content, ...(options ? { options } : {}) });
    return { key: { remoteJid: jid, fromMe: true, id: options?.messageId ?? 'X' } } as WAMessage;
  }
  async sendPresenceUpdate(type: WAPresence, jid?: string) {
    this.presence.push({ type, ...(jid ? { jid } : {}) });
  }
  async readMessages(keys: WAMessageKey[]) {
    this.reads.push(...keys);
  }
  async requestPairingCode(phoneNumber: string) {
    this.pairingRequests.push(phoneNumber);
    if (this.pairingCode instanceof Error) throw this.pairingCode;
    return this.pairingCode;
  }
  async logout() {
    this.logouts++;
    this.close(401, 'Intentional Logout');
  }
  end() {
    this.ended = true;
  }

  /** WhatsApp offers a QR code (Baileys emits one every ~20 s while unlinked). */
  qr(payload: string): void {
    this.emit('connection.update', { qr: payload, connection: 'connecting' });
  }

  /** The phone scanned the code: the session gets its identity, then WhatsApp asks for a restart (515). */
  scanned(number: string): void {
    const creds = this.auth.creds as unknown as Record<string, unknown>;
    creds['me'] = { id: `${number}:7@s.whatsapp.net`, lid: `88${number.slice(-6)}:7@lid`, name: 'Owner' };
    creds['account'] = { details: Buffer.from('signed-identity'), accountSignature: Buffer.from('sig') };
    this.emit('creds.update', { me: creds['me'] as never });
    this.close(515, 'Stream Errored (restart required)');
  }

  /** The connection is up as `number`'s linked device. */
  open(number: string): void {
    this.user = { id: `${number}:7@s.whatsapp.net`, lid: `88${number.slice(-6)}:7@lid` };
    this.emit('connection.update', { connection: 'open' });
  }

  /** The connection ends with Baileys' status code (a Boom in `lastDisconnect.error`). */
  close(statusCode: number, message = 'Connection Closed'): void {
    const error = Object.assign(new Error(message), { output: { statusCode } });
    this.emit('connection.update', { connection: 'close', lastDisconnect: { error, date: new Date() } });
  }

  deliver(messages: unknown[], type: 'notify' | 'append' = 'notify'): void {
    this.emit('messages.upsert', { messages: messages as WAMessage[], type });
  }

  /** The texts sent to `jid`. */
  textsTo(jid: string): string[] {
    return this.sent
      .filter((message) => message.jid === jid && 'text' in message.content)
      .map((message) => String((message.content as { text: string }).text));
  }
}

/** Makes fake sockets and serves media bytes by message id, as Baileys would after decrypting them. */
export class FakeWhatsApp implements WhatsAppDriver {
  readonly sockets: FakeSocket[] = [];
  readonly media = new Map<string, Buffer>();
  downloads = 0;
  private ids = 0;
  /** Called with each new socket (e.g. to open it at once with a stored session). */
  onConnect: ((socket: FakeSocket) => void) | undefined;

  connect(auth: AuthenticationState): FakeSocket {
    const socket = new FakeSocket(auth);
    this.sockets.push(socket);
    queueMicrotask(() => this.onConnect?.(socket));
    return socket;
  }

  async download(message: WAMessage, _socket: WhatsAppSocket, maxBytes: number) {
    this.downloads++;
    const bytes = this.media.get(message.key.id ?? '');
    if (!bytes) throw new Error('media not found');
    if (bytes.length > maxBytes) throw new FileTooLargeError(maxBytes);
    return bytes;
  }

  messageId(): string {
    return `3EB0WREN${String(++this.ids).padStart(6, '0')}`;
  }

  get socket(): FakeSocket {
    const socket = this.sockets.at(-1);
    if (!socket) throw new Error('no socket yet');
    return socket;
  }
}
