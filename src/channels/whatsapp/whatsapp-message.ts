import type { proto, WAMessage } from '@whiskeysockets/baileys';
import { bestPerson, isGroupJid } from './whatsapp-jid.js';

/** A file in a WhatsApp message, as declared (its bytes are fetched later, only for an admitted sender). */
export interface WhatsAppMedia {
  kind: 'image' | 'voice' | 'file';
  name: string;
  mimetype: string;
  size?: number;
  seconds?: number;
}

/** One WhatsApp message in the parts Wren reads; the raw message is kept to download its media. */
export interface WhatsAppInbound {
  id: string;
  /** The chat's JID as WhatsApp sent it (a person, a privacy id, or a group). */
  chatJid: string;
  /** Wren's id of the chat: the person (see whatsapp-jid.ts) or the group's JID. */
  chatId: string;
  /** Wren's id of who wrote it (in a group: the participant). */
  senderId: string;
  senderName?: string;
  fromMe: boolean;
  group: boolean;
  text: string;
  /** JIDs @mentioned. */
  mentions: string[];
  quote?: { id?: string; author?: string; text?: string };
  media?: WhatsAppMedia;
  raw: WAMessage;
}

type Content = proto.IMessage;

/** Parts of a message that carry no content of their own (keys for the group, device metadata). */
const NOT_CONTENT = new Set(['messageContextInfo', 'senderKeyDistributionMessage']);

/** The content inside the wrappers WhatsApp puts around it (disappearing, view-once, captioned documents). */
function unwrap(content: Content | null | undefined): Content | undefined {
  let current = content ?? undefined;
  for (let depth = 0; current && depth < 5; depth++) {
    const inner =
      current.ephemeralMessage?.message ??
      current.viewOnceMessage?.message ??
      current.viewOnceMessageV2?.message ??
      current.viewOnceMessageV2Extension?.message ??
      current.documentWithCaptionMessage?.message;
    if (!inner) return current;
    current = inner;
  }
  return current;
}

const str = (value: unknown): string => (typeof value === 'string' ? value : '');
const num = (value: unknown): number | undefined => {
  const n = typeof value === 'number' ? value : Number(value?.toString?.());
  return Number.isFinite(n) && n >= 0 ? n : undefined;
};

/** The words of a message, a quoted message included (text, or a caption). */
export function textOf(content: Content | null | undefined): string {
  const inner = unwrap(content);
  if (!inner) return '';
  return (
    str(inner.conversation) ||
    str(inner.extendedTextMessage?.text) ||
    str(inner.imageMessage?.caption) ||
    str(inner.videoMessage?.caption) ||
    str(inner.documentMessage?.caption)
  );
}

function mediaOf(inner: Content): WhatsAppMedia | undefined {
  if (inner.imageMessage)
    return {
      kind: 'image',
      name: 'image',
      mimetype: str(inner.imageMessage.mimetype) || 'image/jpeg',
      ...sized(inner.imageMessage.fileLength),
    };
  if (inner.audioMessage) {
    const seconds = num(inner.audioMessage.seconds);
    return {
      kind: 'voice',
      name: inner.audioMessage.ptt ? 'voice note' : 'audio',
      mimetype: str(inner.audioMessage.mimetype) || 'audio/ogg',
      ...sized(inner.audioMessage.fileLength),
      ...(seconds !== undefined ? { seconds } : {}),
    };
  }
  const file = inner.documentMessage ?? inner.videoMessage;
  if (file)
    return {
      kind: 'file',
      name:
        str(inner.documentMessage?.fileName) ||
        str(inner.documentMessage?.title) ||
        (inner.videoMessage ? 'video.mp4' : 'file'),
      mimetype: str(file.mimetype) || 'application/octet-stream',
      ...sized(file.fileLength),
    };
  return undefined;
}

function sized(length: unknown): { size?: number } {
  const size = num(length);
  return size !== undefined ? { size } : {};
}

function contextOf(inner: Content): proto.IContextInfo | undefined {
  return (
    inner.extendedTextMessage?.contextInfo ??
    inner.imageMessage?.contextInfo ??
    inner.videoMessage?.contextInfo ??
    inner.documentMessage?.contextInfo ??
    inner.audioMessage?.contextInfo ??
    undefined
  );
}

/**
 * A message Wren can act on, or undefined for everything else: protocol traffic (edits, deletions, key
 * shares), reactions, status broadcasts, stubs, and anything malformed. A message of a kind Wren does not read
 * (a sticker, a location, a contact card) is kept with a note as its text, so the sender hears what was not
 * understood. Pure; never throws.
 */
export function parseWhatsAppMessage(raw: WAMessage): WhatsAppInbound | undefined {
  const key = raw?.key;
  const chatJid = str(key?.remoteJid);
  const id = str(key?.id);
  if (!chatJid || !id || chatJid === 'status@broadcast' || chatJid.endsWith('@broadcast')) return undefined;
  const inner = unwrap(raw.message);
  const kinds = Object.keys(inner ?? {}).filter(
    (name) => !NOT_CONTENT.has(name) && inner?.[name as keyof Content] != null,
  );
  if (!inner || kinds.length === 0 || inner.protocolMessage || inner.reactionMessage) return undefined;
  const group = isGroupJid(chatJid);
  const chatId = group ? chatJid : bestPerson(key.remoteJidAlt, chatJid);
  const senderId = group ? bestPerson(key.participantAlt, key.participant) : chatId;
  if (!chatId || !senderId) return undefined;
  const context = contextOf(inner);
  const media = mediaOf(inner);
  let text = textOf(inner);
  if (!text && !media) {
    // A text message without words is malformed, not a kind Wren does not read.
    if (kinds.every((name) => name === 'conversation' || name === 'extendedTextMessage')) return undefined;
    const kind = kinds[0]!.replace(/Message$/, '').slice(0, 40);
    text = `[a WhatsApp ${kind} message; Wren reads text, voice notes, pictures and files]`;
  }
  const quoted = context?.quotedMessage;
  return {
    id,
    chatJid,
    chatId,
    senderId,
    ...(str(raw.pushName) ? { senderName: str(raw.pushName).slice(0, 100) } : {}),
    fromMe: key.fromMe === true,
    group,
    text,
    mentions: (context?.mentionedJid ?? []).filter((jid): jid is string => typeof jid === 'string'),
    ...(context?.stanzaId || quoted
      ? {
          quote: {
            ...(context?.stanzaId ? { id: context.stanzaId } : {}),
            ...(context?.participant ? { author: context.participant } : {}),
            ...(quoted ? { text: textOf(quoted) } : {}),
          },
        }
      : {}),
    ...(media ? { media } : {}),
    raw,
  };
}
