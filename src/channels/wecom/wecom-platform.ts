import { definePlatform } from '../platform-descriptor.js';
import { toWecomConfig, wecomSectionSchema } from './wecom-config.js';

/** WeCom in the platform registry (its SDK is imported only when `channels.wecom` is enabled). */
export const wecomPlatform = definePlatform({
  name: 'wecom',
  schema: wecomSectionSchema,
  toConfig: toWecomConfig,
  connection: (config) => [config.botId, config.secret, config.wsUrl],
  secrets: (config) => [config.secret],
  load: async (context) => {
    const { WecomChannel } = await import('./wecom-channel.js');
    return new WecomChannel(context);
  },
});
