import * as z from 'zod';
import { fromString } from '../../util/from-string.js';
import { type ChannelAccess, channelAccessShape, toChannelAccess } from '../channel-access.js';
import type { ProgressMode } from '../turn-progress.js';

const flag = z.preprocess(fromString, z.boolean());

/**
 * `channels.wecom` (企业微信 intelligent bot, long-connection mode):
 *
 * ```yaml
 * channels:
 *   wecom:
 *     bot_id: ${WECOM_BOT_ID}
 *     secret: ${WECOM_BOT_SECRET}
 *     owner: [zhangsan]              # your WeCom userid (admin console → Contacts → account)
 * ```
 */
export const wecomSectionSchema = z.strictObject({
  enabled: flag.default(true),
  bot_id: z.string().trim().min(1, 'set the bot id from the WeCom admin console'),
  secret: z.string().trim().min(1, 'set the bot secret, e.g. secret: ${WECOM_BOT_SECRET}'),
  ...channelAccessShape('WeCom', {
    pattern: /^[A-Za-z0-9_.@-]{1,64}$/,
    explain:
      'use the account userid (admin console → Contacts → the member → Account), not the display name.',
  }),
  /** Tool progress streamed into the reply while it is worked on (`off`, `hints`, `full`). */
  progress: z.enum(['off', 'hints', 'full']).default('hints'),
  /** The long-connection address (private deployments show theirs in the admin console). */
  ws_url: z
    .string()
    .trim()
    .regex(/^wss?:\/\//, 'a ws:// or wss:// address')
    .default('wss://openws.work.weixin.qq.com'),
});

export interface WecomConfig {
  readonly enabled: boolean;
  readonly botId: string;
  /** Secret: the redactor knows it. */
  readonly secret: string;
  readonly access: ChannelAccess;
  readonly progress: ProgressMode;
  readonly wsUrl: string;
}

export function toWecomConfig(section: z.output<typeof wecomSectionSchema>): WecomConfig {
  return {
    enabled: section.enabled,
    botId: section.bot_id,
    secret: section.secret,
    access: toChannelAccess(section),
    progress: section.progress,
    wsUrl: section.ws_url,
  };
}
