import { definePlatform } from '../platform-descriptor.js';
import { signalSectionSchema, toSignalConfig } from './signal-config.js';

/** Signal in the platform registry: no SDK, only a JSON-RPC client of the owner's signal-cli daemon. */
export const signalPlatform = definePlatform({
  name: 'signal',
  schema: signalSectionSchema,
  toConfig: toSignalConfig,
  connection: (config) => [config.account, config.url, config.token ?? ''],
  secrets: (config) => (config.token ? [config.token] : []),
  load: async (context) => {
    const { SignalChannel } = await import('./signal-channel.js');
    return new SignalChannel(context);
  },
});
