import type { MessageBus } from './bus/message-bus.js';
import type { Channel } from './channels/channel.js';
import type { ChannelLedger } from './channels/channel-ledger.js';
import type { ChannelManager } from './channels/channel-manager.js';
import type { ChannelsConfig } from './channels/channels-config.js';
import type { MailTrigger } from './channels/email/email-channel.js';
import { createTranscriber, type Transcribe } from './channels/transcription.js';
import type { Logger } from './util/logger.js';

export interface ConfiguredChannelsOptions {
  manager: ChannelManager;
  bus: MessageBus;
  ledger: ChannelLedger;
  workspace: () => string;
  logger: Logger;
  /** A watched mail arrived: hand it to the proactive engine (stored before returning). */
  onMailTrigger: (trigger: MailTrigger) => void;
}

type Name = Exclude<keyof ChannelsConfig, 'transcription'>;

/**
 * What makes a channel reconnect when edited: its connection settings. Who may talk, progress and watch
 * rules are read per message, so editing them applies without a reconnect.
 */
function connection(name: Name, config: ChannelsConfig): string {
  const section = config[name];
  if (!section?.enabled) return '';
  switch (name) {
    case 'telegram': {
      const telegram = config.telegram!;
      return JSON.stringify([telegram.token, telegram.mode, telegram.webhook, telegram.apiRoot]);
    }
    case 'slack':
      return JSON.stringify([config.slack!.botToken, config.slack!.appToken, config.slack!.apiUrl]);
    case 'discord':
      return JSON.stringify([config.discord!.token, config.discord!.apiUrl, config.discord!.slashCommand]);
    case 'wecom':
      return JSON.stringify([config.wecom!.botId, config.wecom!.secret, config.wecom!.wsUrl]);
    case 'feishu':
      return JSON.stringify([config.feishu!.appId, config.feishu!.appSecret, config.feishu!.domain]);
    case 'email': {
      const email = config.email!;
      return JSON.stringify([email.address, email.password, email.imap, email.smtp, email.mailbox]);
    }
  }
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

  // One transcriber per transcription config in force (rebuilt when the section changes).
  let transcriber: { key: string; transcribe: Transcribe } | undefined;
  const transcribe = (): Transcribe | undefined => {
    const config = current.transcription;
    if (!config) return undefined;
    const key = JSON.stringify(config);
    if (transcriber?.key !== key) transcriber = { key, transcribe: createTranscriber(config) };
    return transcriber.transcribe;
  };

  const create = async (name: Name): Promise<Channel> => {
    const common = {
      bus: options.bus,
      ledger: options.ledger,
      workspace: options.workspace,
      transcribe,
      onError: onError(name),
    };
    if (name === 'telegram') {
      const { TelegramChannel } = await import('./channels/telegram/telegram-channel.js');
      return new TelegramChannel({ ...common, config: () => current.telegram! });
    }
    if (name === 'slack') {
      const { SlackChannel } = await import('./channels/slack/slack-channel.js');
      return new SlackChannel({ ...common, config: () => current.slack! });
    }
    if (name === 'discord') {
      const { DiscordChannel } = await import('./channels/discord/discord-channel.js');
      return new DiscordChannel({ ...common, config: () => current.discord! });
    }
    if (name === 'feishu') {
      const { FeishuChannel } = await import('./channels/feishu/feishu-channel.js');
      return new FeishuChannel({ ...common, config: () => current.feishu! });
    }
    if (name === 'wecom') {
      const { WecomChannel } = await import('./channels/wecom/wecom-channel.js');
      return new WecomChannel({ ...common, config: () => current.wecom! });
    }
    const { EmailChannel } = await import('./channels/email/email-channel.js');
    return new EmailChannel({ ...common, config: () => current.email!, onWatched: options.onMailTrigger });
  };

  const applyNow = async (next: ChannelsConfig) => {
    const previous = current;
    current = next;
    for (const name of ['telegram', 'slack', 'discord', 'feishu', 'wecom', 'email'] as const) {
      if (connection(name, next) === connection(name, previous)) continue;
      await options.manager.stop(name);
      if (!next[name]?.enabled) continue;
      options.manager.launch(await create(name));
      options.logger.info({ channel: name }, 'channel starting');
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
