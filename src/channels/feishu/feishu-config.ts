import * as z from 'zod';
import { fromString } from '../../util/from-string.js';
import { type ChannelAccess, channelAccessShape, toChannelAccess } from '../channel-access.js';

const flag = z.preprocess(fromString, z.boolean());

/**
 * `channels.feishu` (Feishu or Lark, long connection: nothing to expose):
 *
 * ```yaml
 * channels:
 *   feishu:
 *     app_id: ${FEISHU_APP_ID}
 *     app_secret: ${FEISHU_APP_SECRET}
 *     domain: feishu                 # feishu | lark | a URL (private deployments)
 *     owner: [ou_0123456789abcdef0123456789abcdef]   # your open_id for this app
 * ```
 */
export const feishuSectionSchema = z.strictObject({
  enabled: flag.default(true),
  app_id: z
    .string()
    .trim()
    .regex(/^cli_[0-9a-fA-F]{16}$/, 'the app id is cli_ and 16 hex digits (Developer Console → Credentials)'),
  app_secret: z.string().trim().min(1, 'set the app secret, e.g. app_secret: ${FEISHU_APP_SECRET}'),
  domain: z
    .string()
    .trim()
    .refine(
      (text) => text === 'feishu' || text === 'lark' || /^https?:\/\//.test(text),
      'feishu, lark, or a URL',
    )
    .default('feishu'),
  ...channelAccessShape('Feishu', {
    pattern: /^ou_[A-Za-z0-9]{8,64}$/,
    explain:
      'use your open_id for this app (ou_…; with pairing on, write to the bot and see `wren pairing list`).',
  }),
});

export interface FeishuConfig {
  readonly enabled: boolean;
  readonly appId: string;
  /** Secret: the redactor knows it. */
  readonly appSecret: string;
  /** The API root: https://open.feishu.cn, https://open.larksuite.com, or the configured URL. */
  readonly domain: string;
  readonly access: ChannelAccess;
}

export function toFeishuConfig(section: z.output<typeof feishuSectionSchema>): FeishuConfig {
  const domain =
    section.domain === 'feishu'
      ? 'https://open.feishu.cn'
      : section.domain === 'lark'
        ? 'https://open.larksuite.com'
        : section.domain.replace(/\/+$/, '');
  return {
    enabled: section.enabled,
    appId: section.app_id,
    appSecret: section.app_secret,
    domain,
    access: toChannelAccess(section),
  };
}
