import * as z from 'zod';
import { fromString } from '../../util/from-string.js';
import { type ChannelAccess, channelAccessShape, toChannelAccess } from '../channel-access.js';

const flag = z.preprocess(fromString, z.boolean());
const httpUrl = (what: string) =>
  z
    .string()
    .trim()
    .regex(/^https?:\/\/[^\s/]+/, `${what}: an http:// or https:// address`)
    .transform((url) => url.replace(/\/+$/, ''));

/** The bot API's address, and the sandbox's (a bot not yet published talks only to its sandbox). */
export const QQ_API_BASE = 'https://api.sgroup.qq.com';
export const QQ_SANDBOX_API_BASE = 'https://sandbox.api.sgroup.qq.com';
export const QQ_TOKEN_URL = 'https://bots.qq.com/app/getAppAccessToken';

/**
 * `channels.qq` (QQ 开放平台 bot, API v2, WebSocket gateway: no public URL needed):
 *
 * ```yaml
 * channels:
 *   qq:
 *     app_id: "102012345"               # q.qq.com → your bot → 开发设置 → AppID
 *     app_secret: ${QQ_APP_SECRET}      # … → AppSecret
 *     owner: [E4F4AEA33253A2797FB897C50B81D7ED]   # your user openid (Wren logs it when you first write)
 * ```
 */
export const qqSectionSchema = z.strictObject({
  enabled: flag.default(true),
  app_id: z
    .union([z.string(), z.number().int()])
    .transform((value) => String(value).trim())
    .pipe(z.string().regex(/^\d{4,20}$/, 'set the bot AppID (digits) from q.qq.com → 开发设置')),
  app_secret: z.string().trim().min(1, 'set the AppSecret, e.g. app_secret: ${QQ_APP_SECRET}'),
  ...channelAccessShape('QQ', {
    pattern: /^[A-Za-z0-9_-]{8,128}$/,
    explain:
      'QQ shows no openid in the app: write to the bot once, and Wren logs the openid of the message it ignored.',
  }),
  /** The sandbox API (for a bot still in 沙箱 / testing); ignored when `api_base` is set. */
  sandbox: flag.default(false),
  /** The bot API's address (tests point it at a fake). */
  api_base: httpUrl('api_base').optional(),
  /** Where the access token is fetched. */
  token_url: httpUrl('token_url').default(QQ_TOKEN_URL),
  /** The gateway's ws:// or wss:// address; absent: asked from `GET /gateway` at each connect. */
  gateway_url: z
    .string()
    .trim()
    .regex(/^wss?:\/\/\S+$/, 'a ws:// or wss:// address')
    .optional(),
});

export interface QqConfig {
  readonly enabled: boolean;
  readonly appId: string;
  /** Secret: the redactor knows it. */
  readonly appSecret: string;
  readonly access: ChannelAccess;
  readonly apiBase: string;
  readonly tokenUrl: string;
  readonly gatewayUrl: string | undefined;
}

export function toQqConfig(section: z.output<typeof qqSectionSchema>): QqConfig {
  return {
    enabled: section.enabled,
    appId: section.app_id,
    appSecret: section.app_secret,
    access: toChannelAccess(section),
    apiBase: section.api_base ?? (section.sandbox ? QQ_SANDBOX_API_BASE : QQ_API_BASE),
    tokenUrl: section.token_url,
    gatewayUrl: section.gateway_url,
  };
}
