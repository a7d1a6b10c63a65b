import { definePlatform } from '../platform-descriptor.js';
import { toWhatsAppConfig, whatsappSectionSchema } from './whatsapp-config.js';

/**
 * WhatsApp in the platform registry: Baileys, imported only when the channel is configured. Nothing in the
 * section is a connection setting or a secret: the session lives (sealed) in the database, made by linking.
 */
export const whatsappPlatform = definePlatform({
  name: 'whatsapp',
  schema: whatsappSectionSchema,
  toConfig: toWhatsAppConfig,
  sdk: { '@whiskeysockets/baileys': '7.0.0-rc14' },
  connection: () => [],
  secrets: () => [],
  load: async (context) => {
    const { WhatsAppChannel } = await import('./whatsapp-channel.js');
    return new WhatsAppChannel({
      ...context,
      ...(context.drivers?.whatsapp ? { driver: context.drivers.whatsapp } : {}),
    });
  },
});
