import { definePlatform } from '../platform-descriptor.js';
import { dingtalkSectionSchema, toDingtalkConfig } from './dingtalk-config.js';

/** DingTalk in the platform registry (`dingtalk-stream` is loaded only when `channels.dingtalk` is enabled). */
export const dingtalkPlatform = definePlatform({
  name: 'dingtalk',
  schema: dingtalkSectionSchema,
  toConfig: toDingtalkConfig,
  sdk: { 'dingtalk-stream': '2.1.5' },
  connection: (config) => [
    config.clientSecret,
    config.clientId,
    config.robotCode,
    config.apiUrl,
    config.oapiUrl,
  ],
  secrets: (config) => [config.clientSecret],
  load: async (context) => {
    const { DingtalkChannel } = await import('./dingtalk-channel.js');
    return new DingtalkChannel(context);
  },
});
