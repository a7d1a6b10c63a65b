import { definePlatform } from '../platform-descriptor.js';
import { feishuSectionSchema, toFeishuConfig } from './feishu-config.js';

/** Feishu / Lark in the platform registry (its SDK is imported only when `channels.feishu` is enabled). */
export const feishuPlatform = definePlatform({
  name: 'feishu',
  schema: feishuSectionSchema,
  toConfig: toFeishuConfig,
  sdk: { '@larksuiteoapi/node-sdk': '1.74.0' },
  connection: (config) => [config.appId, config.appSecret, config.domain],
  secrets: (config) => [config.appSecret],
  load: async (context) => {
    const { FeishuChannel } = await import('./feishu-channel.js');
    return new FeishuChannel(context);
  },
});
