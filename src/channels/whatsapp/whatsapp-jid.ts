/**
 * WhatsApp addresses (JIDs) as Wren names them. A person is known by their phone number when WhatsApp
 * shows it (`4915112345678@s.whatsapp.net` → `+4915112345678`, what `owner` lists), else by their
 * privacy id (`123456789@lid` → `lid:123456789`); a group keeps its JID (`…@g.us`, what `groups` lists).
 * Device suffixes (`:12`) are dropped: every device of a person is that person.
 */
const JID = /^([^@:]+)(?::\d+)?@([a-z.]+)$/;

export const PHONE_SERVER = 's.whatsapp.net';

function split(jid: string | null | undefined): { user: string; server: string } | undefined {
  const match = JID.exec(jid ?? '');
  return match ? { user: match[1]!, server: match[2]! } : undefined;
}

/** Whether `jid` is a group chat. */
export function isGroupJid(jid: string | null | undefined): boolean {
  return split(jid)?.server === 'g.us';
}

/** `+4915112345678` for a phone-number JID, `lid:123` for a privacy id; undefined for anything else. */
export function personOf(jid: string | null | undefined): string | undefined {
  const parts = split(jid);
  if (!parts) return undefined;
  if (parts.server === PHONE_SERVER && /^\d{6,15}$/.test(parts.user)) return `+${parts.user}`;
  if (parts.server === 'lid' && /^\d{1,30}$/.test(parts.user)) return `lid:${parts.user}`;
  return undefined;
}

/** The first of `jids` that names a person, preferring one with a phone number (what `owner` lists). */
export function bestPerson(...jids: Array<string | null | undefined>): string | undefined {
  const people = jids.map(personOf).filter((id): id is string => !!id);
  return people.find((id) => id.startsWith('+')) ?? people[0];
}

/** The JID a chat id of Wren's sends to (a person's number or privacy id, or a group's JID). */
export function jidOfChat(chatId: string): string {
  if (chatId.startsWith('+')) return `${chatId.slice(1)}@${PHONE_SERVER}`;
  if (chatId.startsWith('lid:')) return `${chatId.slice(4)}@lid`;
  return chatId;
}

/** Whether `jid` is one of the linked account's own addresses (its number or its privacy id). */
export function isOwnJid(jid: string | null | undefined, own: { id?: string; lid?: string } | undefined) {
  const who = personOf(jid);
  return !!who && (who === personOf(own?.id) || who === personOf(own?.lid));
}

/** A group message's text without the @mention of the account `own` (WhatsApp writes it as `@<number>`). */
export function withoutMentionOf(text: string, own: { id?: string; lid?: string | undefined } | undefined) {
  const users = [own?.id, own?.lid].map((jid) => /^(\d+)/.exec(jid ?? '')?.[1]).filter(Boolean);
  let out = text;
  for (const user of users) out = out.replaceAll(`@${user}`, '');
  return out.replace(/\s{2,}/g, ' ').trim();
}
