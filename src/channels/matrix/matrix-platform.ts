import { definePlatform } from '../platform-descriptor.js';
import { matrixSectionSchema, toMatrixConfig } from './matrix-config.js';

/** Matrix in the platform registry (`matrix-js-sdk`, ESM-only, is imported only when `channels.matrix` is enabled). */
export const matrixPlatform = definePlatform({
  name: 'matrix',
  schema: matrixSectionSchema,
  toConfig: toMatrixConfig,
  sdk: { 'matrix-js-sdk': '37.5.0' },
  connection: (config) => [config.homeserver, config.accessToken, config.user, config.password],
  secrets: (config) => [config.accessToken, config.password].filter((secret): secret is string => !!secret),
  load: async (context) => {
    const { MatrixChannel } = await import('./matrix-channel.js');
    return new MatrixChannel(context);
  },
});
