import { definePlatform } from '../platform-descriptor.js';
import { slackSectionSchema, toSlackConfig } from './slack-config.js';

/**
 * Slack in the platform registry (`@slack/socket-mode` and `@slack/web-api` are imported only when
 * `channels.slack` is enabled).
 */
export const slackPlatform = definePlatform({
  name: 'slack',
  schema: slackSectionSchema,
  toConfig: toSlackConfig,
  sdk: { '@slack/socket-mode': '3.1.0', '@slack/web-api': '8.2.0' },
  connection: (config) => [config.botToken, config.appToken, config.apiUrl],
  secrets: (config) => [config.botToken, config.appToken],
  load: async (context) => {
    const { SlackChannel } = await import('./slack-channel.js');
    return new SlackChannel(context);
  },
});
