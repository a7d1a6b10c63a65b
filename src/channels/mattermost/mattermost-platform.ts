import { definePlatform } from '../platform-descriptor.js';
import { mattermostSectionSchema, toMattermostConfig } from './mattermost-config.js';

/**
 * Mattermost in the platform registry (`@mattermost/client` is loaded only when `channels.mattermost` is
 * enabled; its Client4 needs `@mattermost/types` at run time too).
 */
export const mattermostPlatform = definePlatform({
  name: 'mattermost',
  schema: mattermostSectionSchema,
  toConfig: toMattermostConfig,
  sdk: { '@mattermost/client': '11.9.0', '@mattermost/types': '11.9.0' },
  connection: (config) => [config.url, config.token, config.actions?.url, config.actions?.port],
  secrets: (config) => [config.token],
  load: async (context) => {
    const { MattermostChannel } = await import('./mattermost-channel.js');
    return new MattermostChannel(context);
  },
});
