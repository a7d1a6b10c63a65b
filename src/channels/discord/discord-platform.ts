import { definePlatform } from '../platform-descriptor.js';
import { discordSectionSchema, toDiscordConfig } from './discord-config.js';

/**
 * Discord in the platform registry (the adapter, and with it @discordjs/core, ws and rest, is imported only
 * when `channels.discord` is enabled).
 */
export const discordPlatform = definePlatform({
  name: 'discord',
  schema: discordSectionSchema,
  toConfig: toDiscordConfig,
  sdk: { '@discordjs/core': '2.6.0', '@discordjs/rest': '2.6.3', '@discordjs/ws': '2.0.4' },
  connection: (config) => [config.token, config.apiUrl, config.slashCommand],
  secrets: (config) => [config.token],
  load: async (context) => {
    const { DiscordChannel } = await import('./discord-channel.js');
    return new DiscordChannel(context);
  },
});
