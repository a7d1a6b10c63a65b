import * as z from 'zod';
import { fromString } from '../../util/from-string.js';
import { type ChannelAccess, channelAccessShape, toChannelAccess } from '../channel-access.js';
import type { ProgressMode } from '../turn-progress.js';

const flag = z.preprocess(fromString, z.boolean());
const integer = (min: number, max: number) => z.preprocess(fromString, z.number().int().min(min).max(max));
const httpUrl = (example: string) =>
  z
    .string()
    .trim()
    .regex(/^https?:\/\/[^\s/]+/, `an http(s) address, e.g. ${example}`);

/**
 * `channels.mattermost` (a bot account over the REST API v4 and the WebSocket: nothing to expose, unless
 * approval buttons are wanted):
 *
 * ```yaml
 * channels:
 *   mattermost:
 *     url: https://chat.example.com      # the server's address (Site URL)
 *     token: ${MATTERMOST_BOT_TOKEN}     # System Console → Integrations → Bot Accounts → the bot's token
 *     owner: [8ajn7w3c1bfgzq5x4ykmr6hdte]  # your user id (26 characters)
 *     groups: [4xp1dqk8w7f3mbyhjzc9a5egun] # channel ids where Wren answers when @-mentioned (in a thread)
 *     actions:                           # optional: approval buttons (Mattermost posts each click here)
 *       url: http://wren.lan:8787/mattermost/actions
 *       listen: 0.0.0.0:8787
 * ```
 */
export const mattermostSectionSchema = z.strictObject({
  enabled: flag.default(true),
  url: httpUrl('https://chat.example.com'),
  token: z
    .string()
    .trim()
    .regex(
      /^[A-Za-z0-9_-]{16,128}$/,
      'the bot token is 26 letters and digits (System Console → Integrations → Bot Accounts)',
    ),
  ...channelAccessShape('Mattermost', {
    pattern: /^[a-z0-9]{26}$/,
    explain:
      'use the 26-character user id (System Console → User Management → Users → the user), not the @username.',
  }),
  progress: z.enum(['off', 'hints', 'full']).default('hints'),
  /**
   * Approval buttons: Mattermost's server posts each click to `url`, which must reach `listen` (and be
   * allowed under System Console → Developer → Allow untrusted internal connections when it is private).
   * Without it approvals are answered by typing `once <id>`.
   */
  actions: z
    .strictObject({
      url: httpUrl('http://wren.lan:8787/mattermost/actions'),
      listen: z
        .string()
        .regex(/^[^\s:]+:\d{1,5}$/, 'host:port, e.g. 0.0.0.0:8787')
        .default('127.0.0.1:8787'),
    })
    .optional(),
  max_file_mb: integer(1, 1000).default(20),
});

export interface MattermostConfig {
  readonly enabled: boolean;
  /** The server's base address, without a trailing slash. */
  readonly url: string;
  /** Secret: the redactor knows it. */
  readonly token: string;
  readonly access: ChannelAccess;
  readonly progress: ProgressMode;
  readonly actions?: { readonly url: string; readonly host: string; readonly port: number };
  readonly maxFileBytes: number;
}

export function toMattermostConfig(section: z.output<typeof mattermostSectionSchema>): MattermostConfig {
  const actions = section.actions;
  const at = actions?.listen.lastIndexOf(':') ?? -1;
  return {
    enabled: section.enabled,
    url: section.url.replace(/\/+$/, ''),
    token: section.token,
    access: toChannelAccess(section),
    progress: section.progress,
    ...(actions
      ? {
          actions: {
            url: actions.url,
            host: actions.listen.slice(0, at),
            port: Number(actions.listen.slice(at + 1)),
          },
        }
      : {}),
    maxFileBytes: section.max_file_mb * 1024 * 1024,
  };
}
