import * as z from 'zod';
import { fromString } from '../../util/from-string.js';
import { type ChannelAccess, channelAccessShape, toChannelAccess } from '../channel-access.js';
import type { ProgressMode } from '../turn-progress.js';

const flag = z.preprocess(fromString, z.boolean());
const integer = (min: number, max: number) => z.preprocess(fromString, z.number().int().min(min).max(max));

/**
 * `channels.slack` (Socket Mode: nothing to expose):
 *
 * ```yaml
 * channels:
 *   slack:
 *     bot_token: ${SLACK_BOT_TOKEN}   # xoxb-… (OAuth & Permissions)
 *     app_token: ${SLACK_APP_TOKEN}   # xapp-… with connections:write (Basic Information → App-Level Tokens)
 *     owner: [U0123ABCD]              # your member id (profile → ⋮ → Copy member ID)
 *     groups: [C0123ABCD]             # channels where Wren answers when mentioned (in a thread)
 * ```
 */
export const slackSectionSchema = z.strictObject({
  enabled: flag.default(true),
  bot_token: z
    .string()
    .trim()
    .regex(/^xoxb-[\w-]+$/, 'the bot token starts with xoxb- (OAuth & Permissions)'),
  app_token: z
    .string()
    .trim()
    .regex(/^xapp-[\w-]+$/, 'the app-level token starts with xapp- (Basic Information → App-Level Tokens)'),
  ...channelAccessShape('Slack', {
    pattern: /^[UW][A-Z0-9]{2,20}$/,
    explain: 'use the member id (U…): profile → ⋮ → Copy member ID.',
  }),
  progress: z.enum(['off', 'hints', 'full']).default('hints'),
  /** Slack's Web API root (tests, Enterprise Grid proxies). */
  api_url: z.string().trim().url().default('https://slack.com/api/'),
  max_file_mb: integer(1, 1000).default(20),
});

export interface SlackConfig {
  readonly enabled: boolean;
  /** Secrets: the redactor knows them. */
  readonly botToken: string;
  readonly appToken: string;
  readonly access: ChannelAccess;
  readonly progress: ProgressMode;
  readonly apiUrl: string;
  readonly maxFileBytes: number;
}

export function toSlackConfig(section: z.output<typeof slackSectionSchema>): SlackConfig {
  return {
    enabled: section.enabled,
    botToken: section.bot_token,
    appToken: section.app_token,
    access: toChannelAccess(section),
    progress: section.progress,
    apiUrl: section.api_url.endsWith('/') ? section.api_url : `${section.api_url}/`,
    maxFileBytes: section.max_file_mb * 1024 * 1024,
  };
}
