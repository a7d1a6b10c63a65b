import type { Message, UserFromGetMe } from 'grammy/types';
import { escapeRegExp } from '../../util/escape-reg-exp.js';
import type { PlatformMessage } from '../platform-channel.js';

/** What of a Telegram message needs a download before it can be passed on. */
export interface TelegramFiles {
  /** The largest photo size within the cap, to pass to the model as an image. */
  photo?: { fileId: string; size: number };
  /** A document, audio or video: saved to the workspace inbox. */
  document?: { fileId: string; name: string; size: number; mimeType?: string };
  /** A voice note or video note: Telegram gives bots no transcript. */
  voice?: { fileId: string; seconds: number; size: number };
}

/**
 * Translates one Telegram message to the platform contract (everything but the downloads). Pure. Group
 * messages are marked addressed when they mention the bot (`@name`, or a text mention of its id), use a
 * command meant for it (`/new@name`), or reply to one of its messages; the mention is removed from the text.
 */
export function toPlatformMessage(
  message: Message,
  me: UserFromGetMe,
  maxPhotoBytes = Number.POSITIVE_INFINITY,
): { message: PlatformMessage; files: TelegramFiles } {
  const raw = message.text ?? message.caption ?? '';
  const entities = message.entities ?? message.caption_entities ?? [];
  const group = message.chat.type === 'group' || message.chat.type === 'supergroup';
  const handle = `@${me.username}`.toLowerCase();
  let mentioned = false;
  let text = raw;
  for (const entity of entities) {
    const part = raw.slice(entity.offset, entity.offset + entity.length).toLowerCase();
    if (entity.type === 'mention' && part === handle) mentioned = true;
    if (entity.type === 'text_mention' && entity.user.id === me.id) mentioned = true;
    if (entity.type === 'bot_command' && part.endsWith(handle)) mentioned = true;
  }
  // "/new@WrenBot" → "/new"; "@WrenBot what's up" → "what's up".
  text = text.replace(new RegExp(`@${escapeRegExp(me.username)}\\b`, 'gi'), '').replace(/^\s+/, '');
  const quoted = message.reply_to_message;
  const repliedToBot = quoted?.from?.id === me.id;
  const quote = message.quote?.text ?? quoted?.text ?? quoted?.caption;
  const files: TelegramFiles = {};
  if (message.photo?.length) {
    // Telegram lists a photo's sizes smallest first: take the largest within the cap (else the smallest,
    // which the cap then refuses).
    const fitting = message.photo.filter((size) => (size.file_size ?? 0) <= maxPhotoBytes);
    const chosen = fitting.at(-1) ?? message.photo[0]!;
    files.photo = { fileId: chosen.file_id, size: chosen.file_size ?? 0 };
  }
  const document = message.document ?? message.audio ?? message.video;
  if (document) {
    files.document = {
      fileId: document.file_id,
      name: ('file_name' in document ? document.file_name : undefined) ?? `${message.message_id}`,
      size: document.file_size ?? 0,
      ...(document.mime_type ? { mimeType: document.mime_type } : {}),
    };
  }
  const voice = message.voice ?? message.video_note;
  if (voice) files.voice = { fileId: voice.file_id, seconds: voice.duration, size: voice.file_size ?? 0 };
  const from = message.from;
  const name = [from?.first_name, from?.last_name].filter(Boolean).join(' ');
  return {
    message: {
      platformId: String(message.message_id),
      senderId: String(from?.id ?? message.chat.id),
      senderName: from?.username ? `${name} (@${from.username})` : name,
      chatId: String(message.chat.id),
      text,
      ...(group ? { group: { mentioned, repliedToBot } } : {}),
      ...(quote ? { quote } : {}),
    },
    files,
  };
}
