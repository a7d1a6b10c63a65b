import type {
  AnyMessageContent,
  AuthenticationState,
  BaileysEventMap,
  MiscMessageGenerationOptions,
  WAMessage,
  WAMessageKey,
  WAPresence,
} from '@whiskeysockets/baileys';
import { FileTooLargeError } from '../fetch-capped.js';

/** The Baileys events the channel listens to. */
export type WhatsAppEvents = Pick<BaileysEventMap, 'connection.update' | 'creds.update' | 'messages.upsert'>;

/**
 * The part of a Baileys socket (`makeWASocket`) the channel uses: its event emitter and its send calls,
 * with Baileys' own types. Tests pass an object of this shape (WhatsApp's end-to-end encrypted protocol
 * cannot be served on loopback); everything above it is the channel as it runs.
 */
export interface WhatsAppSocket {
  ev: {
    on<E extends keyof WhatsAppEvents>(event: E, listener: (arg: WhatsAppEvents[E]) => void): void;
  };
  /** The linked account once connected: `4915112345678:12@s.whatsapp.net`, and its privacy id. */
  user?: { id: string; lid?: string | undefined } | undefined;
  sendMessage(
    jid: string,
    content: AnyMessageContent,
    options?: MiscMessageGenerationOptions,
  ): Promise<WAMessage | undefined>;
  sendPresenceUpdate(type: WAPresence, jid?: string): Promise<void>;
  readMessages(keys: WAMessageKey[]): Promise<void>;
  /** Asks WhatsApp for an 8-character code to type on the phone (digits of the number, no `+`). */
  requestPairingCode(phoneNumber: string): Promise<string>;
  logout(message?: string): Promise<void>;
  end(error: Error | undefined): void | Promise<void>;
}

/** How the channel makes sockets and fetches media: Baileys itself, or a test's stand-in. */
export interface WhatsAppDriver {
  connect(auth: AuthenticationState): WhatsAppSocket;
  /** The decrypted bytes of a message's media, reading at most `maxBytes` (FileTooLargeError beyond). */
  download(message: WAMessage, socket: WhatsAppSocket, maxBytes: number): Promise<Uint8Array>;
  /** A fresh message id (Wren's own messages are known by it, so "Message yourself" never loops). */
  messageId(): string;
}

type Baileys = typeof import('@whiskeysockets/baileys');

/** Baileys logs through a pino-shaped logger; the channel reports what matters itself, so it is silent. */
const silent = {
  level: 'silent',
  child: () => silent,
  trace: () => {},
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
};

/** The driver over the real Baileys module (imported by the channel through the SDK importer). */
export function baileysDriver(sdk: Baileys): WhatsAppDriver {
  return {
    connect: (auth) =>
      sdk.makeWASocket({
        auth: { creds: auth.creds, keys: sdk.makeCacheableSignalKeyStore(auth.keys, silent) },
        logger: silent,
        browser: sdk.Browsers.appropriate('Wren'),
        markOnlineOnConnect: false,
        syncFullHistory: false,
        shouldSyncHistoryMessage: () => false,
        // Wren's own sends are not echoed back as new messages.
        emitOwnEvents: false,
      }),
    download: async (message, socket, maxBytes) => {
      const stream = await sdk.downloadMediaMessage(
        message,
        'stream',
        {},
        {
          logger: silent,
          reuploadRequest: (socket as ReturnType<Baileys['makeWASocket']>).updateMediaMessage,
        },
      );
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > maxBytes) {
          stream.destroy();
          throw new FileTooLargeError(maxBytes);
        }
        chunks.push(chunk);
      }
      return Buffer.concat(chunks);
    },
    messageId: () => sdk.generateMessageIDV2(),
  };
}
