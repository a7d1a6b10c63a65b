import * as z from 'zod';

/**
 * What a stable platform user id looks like on one platform, and what to tell an owner who wrote something
 * else (a username or display name can change hands; an id cannot).
 */
export interface IdRule {
  pattern: RegExp;
  /** Finishes "… is not a <platform> user id: ": how to find the right id. */
  explain: string;
}

/** Ids as YAML may spell them: `12345` or `"12345"`. */
const idList = z.array(z.union([z.string(), z.number().int()]).transform((value) => String(value).trim()));

/**
 * The part of every channel's config section that says who may talk:
 * - `owner`: the owner's ids on this platform (may answer approvals; their DM is the owner's conversation);
 * - `allow_from`: other people who may talk (never approve); `["*"]` anyone; empty: the owner only;
 * - `pairing`: an unknown sender in a direct message gets a code the owner can approve (`wren pairing`);
 * - `groups`: group chats Wren takes part in, only when mentioned or replied to by an allowed sender;
 * - `rate_limit`: messages per sender per minute before the rest are dropped (the owner's too).
 * Ids must match the platform's `rule`, so usernames and display names are refused with a reason.
 */
export function channelAccessShape(platform: string, rule: IdRule) {
  const ids = (key: string, allowStar: boolean) =>
    idList.superRefine((list, ctx) => {
      for (const [index, id] of list.entries()) {
        if (allowStar && id === '*') continue;
        if (rule.pattern.test(id)) continue;
        const looks = id.startsWith('@') ? 'a username' : /\s/.test(id) ? 'a display name' : 'not a user id';
        ctx.addIssue({
          code: 'custom',
          path: [index],
          message: `${key}: "${id}" is ${looks}, not a ${platform} user id. Names can change hands; Wren only trusts stable ids: ${rule.explain}`,
        });
      }
    });
  return {
    owner: ids('owner', false).default([]),
    allow_from: ids('allow_from', true).default([]),
    pairing: z.boolean().default(false),
    groups: idList.default([]),
    rate_limit: z.number().int().min(1).max(600).default(20),
  };
}

export interface ChannelAccess {
  readonly owner: readonly string[];
  readonly allowFrom: readonly string[];
  readonly pairing: boolean;
  readonly groups: readonly string[];
  /** Messages per sender per minute. */
  readonly rateLimit: number;
}

/** Maps a parsed access section to {@link ChannelAccess}. Pure. */
export function toChannelAccess(parsed: {
  owner: string[];
  allow_from: string[];
  pairing: boolean;
  groups: string[];
  rate_limit: number;
}): ChannelAccess {
  return {
    owner: parsed.owner,
    allowFrom: parsed.allow_from,
    pairing: parsed.pairing,
    groups: parsed.groups,
    rateLimit: parsed.rate_limit,
  };
}

/** Where a platform message came from: a direct chat, or a group where Wren may have been addressed. */
export interface Addressing {
  /**
   * Absent: a direct message. `id`: the group's id as `groups` lists it, when the chat id is narrower (a
   * thread inside a channel); default the chat id.
   */
  group?: { mentioned: boolean; repliedToBot: boolean; id?: string };
}

/** Who a sender is on a channel: the owner, someone allowed (or paired), or nobody Wren talks to. */
export type Standing = 'owner' | 'allowed' | 'stranger';

export function standingOf(access: ChannelAccess, senderId: string, paired: boolean): Standing {
  if (access.owner.includes(senderId)) return 'owner';
  if (access.allowFrom.includes('*') || access.allowFrom.includes(senderId) || paired) return 'allowed';
  return 'stranger';
}

/**
 * Whether a message is for Wren at all: direct messages always; in a group only when the group is listed
 * and Wren was mentioned or replied to.
 */
export function isAddressed(access: ChannelAccess, chatId: string, where: Addressing): boolean {
  if (!where.group) return true;
  return (
    access.groups.includes(where.group.id ?? chatId) && (where.group.mentioned || where.group.repliedToBot)
  );
}
