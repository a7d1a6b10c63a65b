import type { MessageBus } from './bus/message-bus.js';
import type { ChannelLedger } from './channels/channel-ledger.js';
import type { ChannelManager } from './channels/channel-manager.js';
import type { ChannelsConfig } from './channels/channels-config.js';
import type { TelegramConfig } from './channels/telegram/telegram-config.js';
import type { Logger } from './util/logger.js';

export interface ConfiguredChannelsOptions {
  manager: ChannelManager;
  bus: MessageBus;
  ledger: ChannelLedger;
  workspace: () => string;
  logger: Logger;
}

/** What makes a Telegram channel reconnect when edited (who may talk and progress apply live). */
function telegramConnection(config: TelegramConfig | undefined): string {
  if (!config?.enabled) return '';
  return JSON.stringify([config.token, config.mode, config.webhook, config.apiRoot]);
}

/**
 * Runs the chat platforms config.yaml enables (in `wren start`): `apply` launches them, and on a config edit
 * restarts only the ones whose connection settings changed. Adapters are imported only when configured,
 * so their SDKs cost nothing otherwise.
 */
export function configuredChannels(options: ConfiguredChannelsOptions) {
  let current: ChannelsConfig = {};
  let queue: Promise<void> = Promise.resolve();
  const onError = (channel: string) => (error: unknown) =>
    options.logger.warn({ err: error, channel }, 'channel error');

  const applyNow = async (next: ChannelsConfig) => {
    const before = telegramConnection(current.telegram);
    current = next;
    if (telegramConnection(next.telegram) === before) return;
    await options.manager.stop('telegram');
    if (!next.telegram?.enabled) return;
    const { TelegramChannel } = await import('./channels/telegram/telegram-channel.js');
    options.manager.launch(
      new TelegramChannel({
        bus: options.bus,
        ledger: options.ledger,
        config: () => current.telegram ?? next.telegram!,
        workspace: options.workspace,
        onError: onError('telegram'),
      }),
    );
    options.logger.info({ channel: 'telegram', mode: next.telegram.mode }, 'channel starting');
  };

  return {
    /** Brings the running channels in line with `next` (serialised: edits apply in order). */
    apply(next: ChannelsConfig): Promise<void> {
      queue = queue.then(() => applyNow(next)).catch((error: unknown) => onError('channels')(error));
      return queue;
    },
  };
}
