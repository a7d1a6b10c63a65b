/** Reading Discord's raw gateway objects: who wrote or clicked, whether a person wrote it, its files. */
import { type APIAttachment, type APIInteraction, type APIUser, MessageType } from 'discord-api-types/v10';
import { fetchCapped } from '../fetch-capped.js';
import { IMAGE_MEDIA_TYPES as IMAGE_TYPES } from '../image-type.js';
import type { PlatformFile } from '../inbound-files.js';

/** What people write (a system message — a join, a pin — is not). */
const SPOKEN: ReadonlySet<number> = new Set([
  MessageType.Default,
  MessageType.Reply,
  MessageType.ChatInputCommand,
  MessageType.ContextMenuCommand,
]);

/** Whether a message type is something a person wrote. */
export function isSpoken(type: MessageType): boolean {
  return SPOKEN.has(type);
}

/** Who ran an interaction: `member.user` in a guild, `user` in a DM. */
export function userOf(interaction: APIInteraction): APIUser {
  return (interaction.member?.user ?? interaction.user)!;
}

/** `name` for the new unique usernames, `name#1234` for the old ones (as Discord shows them). */
export function tagOf(user: APIUser): string {
  return user.discriminator === '0' ? user.username : `${user.username}#${user.discriminator}`;
}

/** A Discord attachment as a file the base may fetch (from the CDN URL Discord gave) once admitted. */
export function lazyFile(file: APIAttachment): PlatformFile {
  const type = file.content_type ?? '';
  return {
    kind: type.startsWith('audio/') ? 'voice' : IMAGE_TYPES.has(type) ? 'image' : 'file',
    name: file.filename,
    size: file.size,
    describe: `a voice message (${file.filename})`,
    download: (maxBytes) => fetchCapped(file.url, maxBytes),
  };
}
