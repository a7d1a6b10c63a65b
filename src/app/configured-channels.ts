import type { MessageBus } from '../bus/message-bus.js';
import type { ChannelLedger } from '../channels/channel-ledger.js';
import type { ChannelManager } from '../channels/channel-manager.js';
import { type ChannelsConfig, platformConfig, registeredPlatforms } from '../channels/channels-config.js';
import type { MailTrigger } from '../channels/email/email-channel.js';
import type { PlatformDescriptor, PlatformDrivers } from '../channels/platform-descriptor.js';
import { sdkImporter, sdkLoader } from '../channels/platform-sdk.js';
import { createTranscriber, type Transcribe } from '../channels/transcription.js';
import type { Logger } from '../util/logger.js';

export interface ConfiguredChannelsOptions {
  manager: ChannelManager;
  bus: MessageBus;
  ledger: ChannelLedger;
  workspace: () => string;
  /** `<home>/extensions`, where `wren channels add` installs the SDKs the package does not carry. */
  extensions: string;
  logger: Logger;
  /** A watched mail arrived: hand it to the proactive engine (stored before returning). */
  onMailTrigger: (trigger: MailTrigger) => void;
  /** The home's sealing key, made in `.env` on first use (see homeSecretKey). */
  secretKey: () => Uint8Array;
  drivers?: PlatformDrivers;
}

/** What makes a platform reconnect when edited (its descriptor's connection settings); '' when off. */
function connection(platform: PlatformDescriptor, config: ChannelsConfig): string {
  const section = platformConfig(config, platform.name);
  return section?.enabled ? JSON.stringify(platform.connection(section)) : '';
}

/**
 * Runs the chat platforms config.yaml enables (in `wren start`), in registry order: `apply` launches them,
 * and on a config edit restarts only the ones whose connection settings changed. Adapters are imported only
 * when configured (each descriptor's `load`), so their SDKs cost nothing otherwise.
 */
export function configuredChannels(options: ConfiguredChannelsOptions) {
  let current: ChannelsConfig = {};
  let queue: Promise<void> = Promise.resolve();
  const onError = (channel: string) => (error: unknown) =>
    options.logger.warn({ err: error, channel }, 'channel error');

  // One transcriber per transcription config in force (rebuilt when the section changes).
  let transcriber: { key: string; transcribe: Transcribe } | undefined;
  const transcribe = (): Transcribe | undefined => {
    const config = current.transcription;
    if (!config) return undefined;
    const key = JSON.stringify(config);
    if (transcriber?.key !== key) transcriber = { key, transcribe: createTranscriber(config) };
    return transcriber.transcribe;
  };

  const create = (platform: PlatformDescriptor) =>
    platform.load({
      bus: options.bus,
      ledger: options.ledger,
      workspace: options.workspace,
      transcribe,
      onError: onError(platform.name),
      config: () => platformConfig(current, platform.name)!,
      sdk: sdkLoader(platform.name, options.extensions),
      importSdk: sdkImporter(platform.name, options.extensions),
      onMailTrigger: options.onMailTrigger,
      secretKey: options.secretKey,
      ...(options.drivers ? { drivers: options.drivers } : {}),
    });

  const applyNow = async (next: ChannelsConfig) => {
    const previous = current;
    current = next;
    for (const platform of registeredPlatforms) {
      if (connection(platform, next) === connection(platform, previous)) continue;
      await options.manager.stop(platform.name);
      if (!platformConfig(next, platform.name)?.enabled) continue;
      options.manager.launch(await create(platform));
      options.logger.info({ channel: platform.name }, 'channel starting');
    }
  };

  return {
    /** Brings the running channels in line with `next` (serialised: edits apply in order). */
    apply(next: ChannelsConfig): Promise<void> {
      queue = queue.then(() => applyNow(next)).catch((error: unknown) => onError('channels')(error));
      return queue;
    },
  };
}
