/**
 * The parts of a signal-cli `receive` envelope Wren acts on, read defensively: the daemon's JSON is
 * checked field by field, and anything that is not a message, a reaction or a note to self is `undefined`
 * (typing, receipts, calls, stories, edits, deletions …).
 */

/** Who sent something: the phone number (absent when they hide it) and the account's UUID (ACI). */
export interface SignalAddress {
  number?: string;
  uuid?: string;
}

export interface SignalAttachment {
  id: string;
  contentType: string;
  filename?: string;
  size?: number;
  voiceNote: boolean;
}

export interface SignalMention extends SignalAddress {
  name?: string;
  start: number;
  length: number;
}

interface Common {
  /** The envelope's timestamp: with the sender, the message's identity (also after a redelivery). */
  timestamp: number;
  sender: SignalAddress;
  senderName?: string;
  /** The group it was sent in (its base64 id); absent for a direct message. */
  groupId?: string;
}

export type SignalInbound =
  | (Common & {
      kind: 'message';
      text: string;
      attachments: SignalAttachment[];
      mentions: SignalMention[];
      quote?: { id: number; text?: string; author: SignalAddress };
      /** Sent by the account itself to its own number from another device ("Note to Self"). */
      noteToSelf: boolean;
    })
  | (Common & {
      kind: 'reaction';
      emoji: string;
      targetTimestamp: number;
      targetAuthor: SignalAddress;
      isRemove: boolean;
    });

type Json = Record<string, unknown>;

const object = (value: unknown): Json | undefined =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : undefined;
const string = (value: unknown): string | undefined =>
  typeof value === 'string' && value.length > 0 && value.length <= 4096 ? value : undefined;
const count = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined;

/** `sourceNumber`/`sourceUuid`/`source` for prefix `source`; `number`/`uuid` for none (mentions). */
function address(from: Json, prefix: string): SignalAddress {
  const number = string(from[prefix ? `${prefix}Number` : 'number']);
  const uuid = string(from[prefix ? `${prefix}Uuid` : 'uuid']);
  const legacy = prefix ? string(from[prefix]) : undefined;
  return {
    ...(number ? { number } : legacy?.startsWith('+') ? { number: legacy } : {}),
    ...(uuid ? { uuid } : legacy && !legacy.startsWith('+') ? { uuid: legacy } : {}),
  };
}

/** Whether `who` is the account `account` (its number or its UUID). */
export function isAccount(who: SignalAddress, account: string, accountUuid?: string): boolean {
  return who.number === account || who.uuid === account || (!!accountUuid && who.uuid === accountUuid);
}

/**
 * Reads the params of one `receive` notification. `account`: the daemon's account (its number, or its
 * UUID for a numberless one), to tell a note to self from the account's other outgoing messages.
 */
export function parseEnvelope(params: unknown, account: string): SignalInbound | undefined {
  const envelope = object(object(params)?.['envelope']);
  if (!envelope) return undefined;
  const timestamp = count(envelope['timestamp']);
  const sender = address(envelope, 'source');
  if (timestamp === undefined || (!sender.number && !sender.uuid)) return undefined;
  const senderName = string(envelope['sourceName']);
  const common = { timestamp, sender, ...(senderName ? { senderName } : {}) };
  const data = object(envelope['dataMessage']);
  if (data) return fromData(data, common, false);
  const sent = object(object(envelope['syncMessage'])?.['sentMessage']);
  // Only what the account sent to itself: its messages to other people are not for Wren.
  if (sent && isAccount(sender, account) && isAccount(address(sent, 'destination'), account))
    return fromData(sent, common, true);
  return undefined;
}

function fromData(
  data: Json,
  common: { timestamp: number; sender: SignalAddress; senderName?: string },
  noteToSelf: boolean,
): SignalInbound | undefined {
  const groupId = string(object(data['groupInfo'])?.['groupId']) ?? string(object(data['groupV2'])?.['id']);
  const base = { ...common, ...(groupId ? { groupId } : {}) };
  const reaction = object(data['reaction']);
  if (reaction) {
    const emoji = string(reaction['emoji']);
    const targetTimestamp = count(reaction['targetSentTimestamp']);
    if (!emoji || targetTimestamp === undefined) return undefined;
    return {
      ...base,
      kind: 'reaction',
      emoji,
      targetTimestamp,
      targetAuthor: address(reaction, 'targetAuthor'),
      isRemove: reaction['isRemove'] === true,
    };
  }
  const text = typeof data['message'] === 'string' ? data['message'] : '';
  const attachments = (Array.isArray(data['attachments']) ? data['attachments'] : []).flatMap((item) => {
    const attachment = object(item);
    const id = string(attachment?.['id']);
    if (!attachment || !id) return [];
    const filename = string(attachment['filename']);
    const size = count(attachment['size']);
    return [
      {
        id,
        contentType: string(attachment['contentType']) ?? 'application/octet-stream',
        ...(filename ? { filename } : {}),
        ...(size !== undefined ? { size } : {}),
        voiceNote: attachment['voiceNote'] === true,
      },
    ];
  });
  if (!text && attachments.length === 0) return undefined;
  const mentions = (Array.isArray(data['mentions']) ? data['mentions'] : []).flatMap((item) => {
    const mention = object(item);
    const start = count(mention?.['start']);
    const length = count(mention?.['length']);
    if (!mention || start === undefined || length === undefined) return [];
    const name = string(mention['name']);
    return [{ ...address(mention, ''), ...(name ? { name } : {}), start, length }];
  });
  const quoted = object(data['quote']);
  const quoteId = count(quoted?.['id']);
  const quoteText = string(quoted?.['text']);
  return {
    ...base,
    kind: 'message',
    text,
    attachments,
    mentions,
    ...(quoted && quoteId !== undefined
      ? {
          quote: {
            id: quoteId,
            ...(quoteText ? { text: quoteText } : {}),
            author: address(quoted, 'author'),
          },
        }
      : {}),
    noteToSelf,
  };
}

/**
 * The text with each mention's placeholder (U+FFFC) replaced: mentions of the account removed, others
 * shown as `@name`. Positions are UTF-16 offsets, as Signal counts them; spans outside the text are skipped.
 */
export function textWithMentions(
  text: string,
  mentions: readonly SignalMention[],
  isSelf: (who: SignalAddress) => boolean,
): string {
  let result = text;
  for (const mention of [...mentions].sort((a, b) => b.start - a.start)) {
    if (mention.start + mention.length > result.length) continue;
    const shown = isSelf(mention) ? '' : `@${mention.name ?? mention.number ?? 'someone'}`;
    result = result.slice(0, mention.start) + shown + result.slice(mention.start + mention.length);
  }
  return result.trim();
}
