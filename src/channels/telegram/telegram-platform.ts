import { definePlatform } from '../platform-descriptor.js';
import { telegramSectionSchema, toTelegramConfig } from './telegram-config.js';

/** Telegram in the platform registry (grammY is imported only when `channels.telegram` is enabled). */
export const telegramPlatform = definePlatform({
  name: 'telegram',
  schema: telegramSectionSchema,
  toConfig: toTelegramConfig,
  connection: (config) => [config.token, config.mode, config.webhook, config.apiRoot],
  secrets: (config) => [config.token, ...(config.webhook ? [config.webhook.secret] : [])],
  load: async (context) => {
    const { TelegramChannel } = await import('./telegram-channel.js');
    return new TelegramChannel(context);
  },
});
