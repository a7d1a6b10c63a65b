import { definePlatform } from '../platform-descriptor.js';
import { qqSectionSchema, toQqConfig } from './qq-config.js';

/** QQ in the platform registry: no SDK (its gateway and REST API are spoken directly), loaded when enabled. */
export const qqPlatform = definePlatform({
  name: 'qq',
  schema: qqSectionSchema,
  toConfig: toQqConfig,
  connection: (config) => [
    config.appId,
    config.appSecret,
    config.apiBase,
    config.tokenUrl,
    config.gatewayUrl,
  ],
  secrets: (config) => [config.appSecret],
  load: async (context) => {
    const { QqChannel } = await import('./qq-channel.js');
    return new QqChannel(context);
  },
});
