import * as z from 'zod';
import { type TelegramConfig, telegramSectionSchema, toTelegramConfig } from './telegram/telegram-config.js';

/** `channels:` in config.yaml: one optional section per chat platform (each schema lives in its folder). */
export const channelsSectionSchema = z.strictObject({
  telegram: telegramSectionSchema.optional(),
});

export interface ChannelsConfig {
  readonly telegram?: TelegramConfig;
}

export function toChannelsConfig(section: z.output<typeof channelsSectionSchema>): ChannelsConfig {
  return section.telegram ? { telegram: toTelegramConfig(section.telegram) } : {};
}

/** The secrets of every configured channel (for the redactor). */
export function channelSecrets(config: ChannelsConfig): string[] {
  const secrets: string[] = [];
  if (config.telegram) {
    secrets.push(config.telegram.token);
    if (config.telegram.webhook) secrets.push(config.telegram.webhook.secret);
  }
  return secrets;
}
