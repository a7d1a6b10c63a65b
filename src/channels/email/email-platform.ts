import { definePlatform } from '../platform-descriptor.js';
import { emailSectionSchema, toEmailConfig } from './email-config.js';

/** Mail in the platform registry (imapflow and nodemailer load only when `channels.email` is enabled). */
export const emailPlatform = definePlatform({
  name: 'email',
  schema: emailSectionSchema,
  toConfig: toEmailConfig,
  connection: (config) => [config.address, config.password, config.imap, config.smtp, config.mailbox],
  secrets: (config) => [config.password],
  load: async (context) => {
    const { EmailChannel } = await import('./email-channel.js');
    return new EmailChannel({ ...context, onWatched: context.onMailTrigger });
  },
});
