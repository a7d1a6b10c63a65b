import * as z from 'zod';
import { fromString } from '../../util/from-string.js';
import { type ChannelAccess, channelAccessShape, toChannelAccess } from '../channel-access.js';

const flag = z.preprocess(fromString, z.boolean());

const httpBase = (what: string, fallback: string) =>
  z
    .string()
    .trim()
    .regex(/^https?:\/\/[^\s?#]+$/, `${what}: an http:// or https:// address without a query`)
    .transform((url) => url.replace(/\/+$/, ''))
    .default(fallback);

/**
 * `channels.dingtalk` (钉钉 robot in Stream mode: an outgoing WebSocket, no public URL needed):
 *
 * ```yaml
 * channels:
 *   dingtalk:
 *     client_id: ${DINGTALK_CLIENT_ID}          # the app's AppKey / Client ID
 *     client_secret: ${DINGTALK_CLIENT_SECRET}  # the app's AppSecret / Client Secret
 *     owner: [manager1234]                      # your staff id (admin console → Contacts → the member)
 * ```
 */
export const dingtalkSectionSchema = z.strictObject({
  enabled: flag.default(true),
  client_id: z.string().trim().min(1, 'set the AppKey (Client ID) from the DingTalk developer console'),
  client_secret: z
    .string()
    .trim()
    .min(1, 'set the AppSecret (Client Secret), e.g. client_secret: ${DINGTALK_CLIENT_SECRET}'),
  /** The robot's code (the console shows it with the robot); for an internal app it is the AppKey. */
  robot_code: z.string().trim().min(1).optional(),
  ...channelAccessShape('DingTalk', {
    pattern: /^[A-Za-z0-9_.@-]{1,64}$/,
    explain:
      'use the staff id (userid): admin console → Contacts → the member → 员工UserID, not the display name.',
  }),
  /** The OpenAPI (stream gateway, tokens, robot sends, file downloads); a fake one in tests. */
  api_url: httpBase('api_url', 'https://api.dingtalk.com'),
  /** The older API that takes media uploads (files the model sends). */
  oapi_url: httpBase('oapi_url', 'https://oapi.dingtalk.com'),
});

export interface DingtalkConfig {
  readonly enabled: boolean;
  readonly clientId: string;
  /** Secret: the redactor knows it. */
  readonly clientSecret: string;
  readonly robotCode: string;
  readonly access: ChannelAccess;
  readonly apiUrl: string;
  readonly oapiUrl: string;
}

export function toDingtalkConfig(section: z.output<typeof dingtalkSectionSchema>): DingtalkConfig {
  return {
    enabled: section.enabled,
    clientId: section.client_id,
    clientSecret: section.client_secret,
    robotCode: section.robot_code ?? section.client_id,
    access: toChannelAccess(section),
    apiUrl: section.api_url,
    oapiUrl: section.oapi_url,
  };
}
