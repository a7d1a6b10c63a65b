import * as z from 'zod';
import { type DiscordConfig, discordSectionSchema, toDiscordConfig } from './discord/discord-config.js';
import { type EmailConfig, emailSectionSchema, toEmailConfig } from './email/email-config.js';
import { type FeishuConfig, feishuSectionSchema, toFeishuConfig } from './feishu/feishu-config.js';
import { type SlackConfig, slackSectionSchema, toSlackConfig } from './slack/slack-config.js';
import { type TelegramConfig, telegramSectionSchema, toTelegramConfig } from './telegram/telegram-config.js';
import { type TranscriptionConfig, toTranscriptionConfig, transcriptionSchema } from './transcription.js';
import { toWecomConfig, type WecomConfig, wecomSectionSchema } from './wecom/wecom-config.js';

/** `channels:` in config.yaml: one optional section per chat platform (each schema lives in its folder). */
export const channelsSectionSchema = z.strictObject({
  telegram: telegramSectionSchema.optional(),
  email: emailSectionSchema.optional(),
  slack: slackSectionSchema.optional(),
  discord: discordSectionSchema.optional(),
  wecom: wecomSectionSchema.optional(),
  feishu: feishuSectionSchema.optional(),
  /** Voice messages to text, for platforms that give no transcript. */
  transcription: transcriptionSchema.optional(),
});

export interface ChannelsConfig {
  readonly telegram?: TelegramConfig;
  readonly email?: EmailConfig;
  readonly slack?: SlackConfig;
  readonly discord?: DiscordConfig;
  readonly wecom?: WecomConfig;
  readonly feishu?: FeishuConfig;
  readonly transcription?: TranscriptionConfig;
}

export function toChannelsConfig(section: z.output<typeof channelsSectionSchema>): ChannelsConfig {
  return {
    ...(section.telegram ? { telegram: toTelegramConfig(section.telegram) } : {}),
    ...(section.email ? { email: toEmailConfig(section.email) } : {}),
    ...(section.slack ? { slack: toSlackConfig(section.slack) } : {}),
    ...(section.discord ? { discord: toDiscordConfig(section.discord) } : {}),
    ...(section.wecom ? { wecom: toWecomConfig(section.wecom) } : {}),
    ...(section.feishu ? { feishu: toFeishuConfig(section.feishu) } : {}),
    ...(section.transcription ? { transcription: toTranscriptionConfig(section.transcription) } : {}),
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
  if (config.slack) secrets.push(config.slack.botToken, config.slack.appToken);
  if (config.discord) secrets.push(config.discord.token);
  if (config.wecom) secrets.push(config.wecom.secret);
  if (config.feishu) secrets.push(config.feishu.appSecret);
  if (config.transcription?.apiKey) secrets.push(config.transcription.apiKey);
  return secrets;
}
