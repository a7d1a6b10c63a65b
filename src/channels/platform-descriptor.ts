import type * as z from 'zod';
import type { Channel } from './channel.js';
import type { MailTrigger } from './email/email-channel.js';
import type { AdapterOptions, PlatformSettings } from './platform-options.js';
import type { WhatsAppDriver } from './whatsapp/whatsapp-socket.js';

/**
 * Stand-ins for what cannot be served on loopback: WhatsApp's end-to-end encrypted protocol. Tests pass a
 * socket of Baileys' own interface; everything above it runs as it does in use. Absent: the real SDK.
 */
export interface PlatformDrivers {
  whatsapp?: WhatsAppDriver;
}

/** What the app hands a platform when it starts it (the section is read through `config` on each use). */
export type PlatformContext<Config extends PlatformSettings> = AdapterOptions<Config> & {
  /** A watched mail arrived (email only): hand it to the proactive engine, stored before returning. */
  onMailTrigger: (trigger: MailTrigger) => void;
  /** The home's sealing key (`WREN_SECRET_KEY`, made on first use), for secrets a platform stores. */
  secretKey: () => Uint8Array;
  drivers?: PlatformDrivers;
};

/**
 * One chat platform, as the registry lists it: everything the app needs to parse its `channels.<name>`
 * section, keep its secrets out of logs, decide when an edit restarts it, and start it. A platform folder
 * exports one; adding a platform is that folder plus one line in `platform-registry.ts`.
 */
export interface PlatformDescriptor<
  Name extends string = string,
  Schema extends z.ZodType = z.ZodType,
  Config extends PlatformSettings = PlatformSettings,
> {
  /** The key under `channels:` and the channel's name on the bus. */
  readonly name: Name;
  /** The zod schema of its section (it lives in `<name>-config.ts`). */
  readonly schema: Schema;
  /** The parsed section as the adapter reads it. Pure. */
  toConfig(section: z.output<Schema>): Config;
  /**
   * What makes a config edit restart the channel: its connection settings. Who may talk, progress and the
   * like are read per message, so editing them applies without a reconnect. Pure.
   */
  connection(config: Config): readonly unknown[];
  /**
   * npm packages the adapter loads through its SDK loader that the package does not carry, with the exact
   * versions `wren channels add NAME` installs (the ones this clone's lock file holds). Absent: built in.
   */
  readonly sdk?: Readonly<Record<string, string>>;
  /** The section's secrets, for the redactor. Pure. */
  secrets(config: Config): readonly string[];
  /**
   * Imports the adapter (and with it the platform's SDK, so an unconfigured platform costs nothing at start)
   * and builds the channel; the caller starts it.
   */
  load(context: PlatformContext<Config>): Promise<Channel>;
}

/** Types a platform's descriptor (the identity: it only lets TypeScript infer the three parameters). */
export function definePlatform<
  Name extends string,
  Schema extends z.ZodType,
  Config extends PlatformSettings,
>(descriptor: PlatformDescriptor<Name, Schema, Config>): PlatformDescriptor<Name, Schema, Config> {
  return descriptor;
}
