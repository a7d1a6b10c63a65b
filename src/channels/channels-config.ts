import * as z from 'zod';
import { type EmailConfig, emailSectionSchema, toEmailConfig } from './email/email-config.js';
import { type TelegramConfig, telegramSectionSchema, toTelegramConfig } from './telegram/telegram-config.js';

/** `channels:` in config.yaml: one optional section per chat platform (each schema lives in its folder). */
export const channelsSectionSchema = z.strictObject({
  telegram: telegramSectionSchema.optional(),
  email: emailSectionSchema.optional(),
});

export interface ChannelsConfig {
  readonly telegram?: TelegramConfig;
  readonly email?: EmailConfig;
}

export function toChannelsConfig(section: z.output<typeof channelsSectionSchema>): ChannelsConfig {
  return {
    ...(section.telegram ? { telegram: toTelegramConfig(section.telegram) } : {}),
    ...(section.email ? { email: toEmailConfig(section.email) } : {}),
  };
}

/** The secrets of every configured channel (for the redactor). */
export function channelSecrets(config: ChannelsConfig): string[] {
  const secrets: string[] = [];
  if (config.telegram) {
    secrets.push(config.telegram.token);
    if (config.telegram.webhook) secrets.push(config.telegram.webhook.secret);
  }
  if (config.email) secrets.push(config.email.password);
  return secrets;
}
