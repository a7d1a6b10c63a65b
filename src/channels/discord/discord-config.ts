import * as z from 'zod';
import { fromString } from '../../util/from-string.js';
import { type ChannelAccess, channelAccessShape, toChannelAccess } from '../channel-access.js';
import type { ProgressMode } from '../turn-progress.js';

const flag = z.preprocess(fromString, z.boolean());
const integer = (min: number, max: number) => z.preprocess(fromString, z.number().int().min(min).max(max));

/**
 * `channels.discord`:
 *
 * ```yaml
 * channels:
 *   discord:
 *     token: ${DISCORD_BOT_TOKEN}     # Developer Portal → Bot → Reset Token (enable Message Content Intent)
 *     owner: ["123456789012345678"]  # your user id (Developer Mode → right-click yourself → Copy User ID)
 *     groups: ["223456789012345678"] # guild channel ids where a mention is answered
 * ```
 */
export const discordSectionSchema = z.strictObject({
  enabled: flag.default(true),
  token: z
    .string()
    .trim()
    .min(20, 'set the bot token (Developer Portal → Bot), e.g. token: ${DISCORD_BOT_TOKEN}'),
  ...channelAccessShape('Discord', {
    pattern: /^\d{15,22}$/,
    explain:
      'use the numeric user id (Settings → Advanced → Developer Mode, then right-click → Copy User ID).',
  }),
  progress: z.enum(['off', 'hints', 'full']).default('hints'),
  /** Register the `/wren` slash command at start. */
  slash_command: flag.default(true),
  /** Discord's REST root (tests). */
  api_url: z.string().trim().url().default('https://discord.com/api'),
  max_file_mb: integer(1, 500).default(20),
});

export interface DiscordConfig {
  readonly enabled: boolean;
  /** Secret: the redactor knows it. */
  readonly token: string;
  readonly access: ChannelAccess;
  readonly progress: ProgressMode;
  readonly slashCommand: boolean;
  readonly apiUrl: string;
  readonly maxFileBytes: number;
}

export function toDiscordConfig(section: z.output<typeof discordSectionSchema>): DiscordConfig {
  return {
    enabled: section.enabled,
    token: section.token,
    access: toChannelAccess(section),
    progress: section.progress,
    slashCommand: section.slash_command,
    apiUrl: section.api_url.replace(/\/+$/, ''),
    maxFileBytes: section.max_file_mb * 1024 * 1024,
  };
}
