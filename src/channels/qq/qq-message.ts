import { fetchCapped } from '../fetch-capped.js';
import type { PlatformFile } from '../inbound-files.js';
import type { PlatformMessage } from '../platform-channel.js';

/** The message events Wren reads: direct (C2C) messages, and group messages that @mention the bot. */
export const C2C_MESSAGE = 'C2C_MESSAGE_CREATE';
export const GROUP_AT_MESSAGE = 'GROUP_AT_MESSAGE_CREATE';

/** At most this many attachments of one message are looked at (the base takes fewer still). */
const MAX_ATTACHMENTS = 20;

/** The fields of a QQ message event Wren reads; each is checked, since a frame may carry anything. */
interface QqMessageEvent {
  id?: unknown;
  content?: unknown;
  group_openid?: unknown;
  author?: { user_openid?: unknown; member_openid?: unknown } | null;
  attachments?: unknown;
}

interface QqAttachment {
  content_type?: unknown;
  filename?: unknown;
  url?: unknown;
  size?: unknown;
  voice_wav_url?: unknown;
}

/** A non-empty id-like string, else undefined. */
function idOf(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 && value.length <= 256 ? value : undefined;
}

/**
 * A message event as the base takes it, or undefined for any other event type and for an event missing its
 * id or sender. Direct chats are keyed by the user's openid, groups by `group:<group_openid>` (a group's
 * events come only when the bot is @mentioned). Attachments are described, not fetched.
 */
export function translateQqEvent(type: string, data: unknown): PlatformMessage | undefined {
  if ((type !== C2C_MESSAGE && type !== GROUP_AT_MESSAGE) || !data || typeof data !== 'object')
    return undefined;
  const event = data as QqMessageEvent;
  const platformId = idOf(event.id);
  if (!platformId) return undefined;
  // In a group the @mention itself is cut out by QQ, leaving the space that followed it.
  const text = typeof event.content === 'string' ? event.content.trim() : '';
  const files = attachmentsOf(event.attachments);
  if (type === C2C_MESSAGE) {
    const senderId = idOf(event.author?.user_openid);
    if (!senderId) return undefined;
    return { platformId, senderId, chatId: senderId, text, files };
  }
  const group = idOf(event.group_openid);
  const senderId = idOf(event.author?.member_openid);
  if (!group || !senderId) return undefined;
  return {
    platformId,
    senderId,
    chatId: `group:${group}`,
    text,
    files,
    group: { mentioned: true, repliedToBot: false, id: group },
  };
}

/**
 * The attachments of an event as files the base may fetch: images (by their declared content type; the
 * base checks the bytes), voice (the WAV QQ offers when there is one), anything else as a file. Downloads
 * carry no token: the bot's token goes only to the API and token addresses.
 */
function attachmentsOf(raw: unknown): PlatformFile[] {
  if (!Array.isArray(raw)) return [];
  const files: PlatformFile[] = [];
  for (const item of raw.slice(0, MAX_ATTACHMENTS) as Array<QqAttachment | null>) {
    if (!item || typeof item !== 'object') continue;
    const contentType = typeof item.content_type === 'string' ? item.content_type.toLowerCase() : '';
    const kind = contentType.startsWith('image/') ? 'image' : contentType === 'voice' ? 'voice' : 'file';
    const source = kind === 'voice' && typeof item.voice_wav_url === 'string' ? item.voice_wav_url : item.url;
    const url = typeof source === 'string' ? attachmentUrl(source) : undefined;
    if (!url) continue;
    const name = typeof item.filename === 'string' && item.filename ? item.filename : kind;
    const size = typeof item.size === 'number' && Number.isFinite(item.size) ? item.size : undefined;
    files.push({
      kind,
      name,
      ...(size !== undefined ? { size } : {}),
      download: (maxBytes) => fetchCapped(url, maxBytes),
    });
  }
  return files;
}

/** QQ's attachment address as a URL: it often comes without a scheme (`gchat.qpic.cn/…`). http(s) only. */
export function attachmentUrl(raw: string): string | undefined {
  const text = raw.trim();
  const full = text.startsWith('//')
    ? `https:${text}`
    : /^[a-z][a-z0-9+.-]*:/i.test(text)
      ? text
      : `https://${text}`;
  try {
    const url = new URL(full);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}
