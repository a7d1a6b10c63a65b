import type {
  ButtonInteraction,
  ChatInputCommandInteraction,
  Client,
  Message,
  SendableChannels,
} from 'discord.js';
import type { ApprovalRequest, Attachment } from '../../bus/messages.js';
import {
  approvalButtonData,
  describeApprovalText,
  APPROVAL_LABELS as LABELS,
  parseApprovalButton,
} from '../approval-text.js';
import { fetchCapped } from '../fetch-capped.js';
import { IMAGE_MEDIA_TYPES as IMAGE_TYPES } from '../image-type.js';
import type { PlatformFile } from '../inbound-files.js';
import { PlatformChannel } from '../platform-channel.js';
import { type AdapterOptions, platformOptions } from '../platform-options.js';
import type { DiscordConfig } from './discord-config.js';

/** Nobody is pinged by what Wren writes, whatever the model put in the text. */
const NO_MENTIONS = { parse: [] as never[] };

export type DiscordChannelOptions = AdapterOptions<DiscordConfig>;

/**
 * Discord through discord.js: DMs, and guild channels (and their threads) listed in `groups` when the bot
 * is mentioned or replied to. Replies are Discord's own Markdown, split at 2,000 characters, sent with
 * mentions disabled; approvals are buttons only the owner's click answers; `/wren` is a slash command.
 * discord.js resumes the gateway session itself and waits out 429s.
 */
export class DiscordChannel extends PlatformChannel<Message> {
  protected readonly textLimit = 1900;
  private readonly discord: DiscordChannelOptions;
  private client: Client | undefined;
  private stopping = false;

  constructor(options: DiscordChannelOptions) {
    super(platformOptions('discord', options));
    this.discord = options;
  }

  async start(signal?: AbortSignal): Promise<void> {
    signal?.addEventListener('abort', () => void this.stop(), { once: true });
    const config = this.discord.config();
    const { Client, Events, GatewayIntentBits, Partials } = await import('discord.js');
    const client = new Client({
      intents: [
        GatewayIntentBits.Guilds,
        GatewayIntentBits.GuildMessages,
        GatewayIntentBits.DirectMessages,
        GatewayIntentBits.MessageContent,
      ],
      // DM channels are not cached before their first message: partials let that message through.
      partials: [Partials.Channel],
      rest: { api: config.apiUrl },
      allowedMentions: NO_MENTIONS,
    });
    client.on(Events.MessageCreate, (message) => void this.onMessage(message).catch(this.failed));
    client.on(Events.InteractionCreate, (interaction) => {
      if (interaction.isButton()) void this.onButton(interaction).catch(this.failed);
      else if (interaction.isChatInputCommand() && interaction.commandName === 'wren')
        void this.onCommand(interaction).catch(this.failed);
    });
    client.on(Events.ShardDisconnect, () => {
      if (!this.stopping) this.setState('reconnecting', 'the gateway connection closed');
    });
    client.on(Events.ShardReconnecting, () =>
      this.setState('reconnecting', 'the gateway connection dropped'),
    );
    client.on(Events.ShardResume, () => this.setState('connected'));
    client.on(Events.ShardReady, () => this.setState('connected'));
    client.on(Events.Error, this.failed);
    this.client = client;
    this.attachPlatform();
    this.setState('starting');
    try {
      await client.login(config.token);
      await new Promise<void>((resolve) =>
        client.isReady() ? resolve() : client.once(Events.ClientReady, () => resolve()),
      );
      this.setState('connected');
      if (config.slashCommand)
        await client.application?.commands.set([
          {
            name: 'wren',
            description: 'Ask Wren',
            options: [{ type: 3, name: 'message', description: 'What to ask', required: true }],
          },
        ]);
    } catch (error) {
      this.setState('failed', fatalReason(error));
      throw error;
    }
  }

  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.detachPlatform();
    await this.client?.destroy().catch(() => {});
    this.setState('stopped');
  }

  private readonly failed = (error: unknown) => this.discord.onError?.(error);

  private async onMessage(message: Message): Promise<void> {
    const me = this.client?.user;
    if (!me || message.author.bot || message.system) return;
    const direct = message.guildId === null;
    const mentioned = message.mentions.users.has(me.id);
    const repliedToBot = message.mentions.repliedUser?.id === me.id;
    const text = message.content.replace(new RegExp(`<@!?${me.id}>`, 'g'), '').trim();
    const channel = message.channel;
    const parent = 'isThread' in channel && channel.isThread() ? channel.parentId : undefined;
    // Nothing is fetched here: the base downloads only for a sender it admitted, within the size cap.
    await this.receive({
      platformId: message.id,
      senderId: message.author.id,
      senderName: message.author.tag,
      chatId: message.channelId,
      text,
      files: [...message.attachments.values()].map(lazyFile),
      ...(direct ? {} : { group: { mentioned, repliedToBot, id: parent ?? message.channelId } }),
      // Read (a REST call) only once the sender is admitted.
      ...(message.reference?.messageId
        ? { loadQuote: () => message.fetchReference().then((referenced) => referenced.content) }
        : {}),
    });
  }

  private async onCommand(interaction: ChatInputCommandInteraction): Promise<void> {
    const text = interaction.options.getString('message', true);
    const direct = interaction.guildId === null;
    const result = await this.receive({
      platformId: interaction.id,
      senderId: interaction.user.id,
      senderName: interaction.user.tag,
      chatId: interaction.channelId,
      text,
      // A slash command is addressed to Wren by definition.
      ...(direct ? {} : { group: { mentioned: true, repliedToBot: false } }),
    });
    await interaction.reply({
      content:
        result === 'accepted' ? `> ${text.slice(0, 1800)}` : 'Wren does not take requests from you here.',
      ephemeral: result !== 'accepted',
      allowedMentions: NO_MENTIONS,
    });
  }

  private async onButton(interaction: ButtonInteraction): Promise<void> {
    const parsed = parseApprovalButton(interaction.customId);
    if (!parsed) return;
    const result = await this.answerPresented(interaction.user.id, parsed.shortId, parsed.choice);
    if (result.ok) await interaction.deferUpdate();
    else await interaction.reply({ content: result.message, ephemeral: true });
  }

  /** A DM target is a user id (the owner's): Discord needs the DM channel opened first. */
  private async target(chatId: string): Promise<SendableChannels> {
    const client = this.client!;
    const channel = await client.channels.fetch(chatId).catch(() => null);
    if (channel?.isSendable()) return channel;
    const user = await client.users.fetch(chatId);
    return user.createDM();
  }

  protected async sendText(chatId: string, text: string): Promise<void> {
    await (await this.target(chatId)).send({ content: text, allowedMentions: NO_MENTIONS });
  }

  protected override async sendFile(chatId: string, file: Attachment): Promise<void> {
    await (await this.target(chatId)).send({
      files: [{ attachment: file.path, name: file.name.split('/').pop() ?? 'file' }],
      allowedMentions: NO_MENTIONS,
    });
  }

  protected override async typing(chatId: string): Promise<void> {
    await (await this.target(chatId)).sendTyping();
  }

  protected override async postStatus(chatId: string, text: string, handle?: string) {
    const channel = await this.target(chatId);
    if (!handle) return (await channel.send({ content: text, allowedMentions: NO_MENTIONS })).id;
    await channel.messages.edit(handle, { content: text });
    return handle;
  }

  protected override async showApproval(request: ApprovalRequest): Promise<Message> {
    const { ButtonStyle, ComponentType } = await import('discord.js');
    const sent = await (await this.target(request.chatId)).send({
      content: describeApprovalText(request, true).slice(0, 1900),
      allowedMentions: NO_MENTIONS,
      components: [
        {
          type: ComponentType.ActionRow,
          components: request.choices.map((choice) => ({
            type: ComponentType.Button,
            customId: approvalButtonData(request, choice),
            label: LABELS[choice],
            style:
              choice === 'deny'
                ? ButtonStyle.Danger
                : choice === 'once'
                  ? ButtonStyle.Primary
                  : ButtonStyle.Secondary,
          })),
        },
      ],
    });
    return sent;
  }

  protected override async closeApproval(shown: Message, outcome: string): Promise<void> {
    // Without its buttons: a late click has nothing to act on.
    await shown.edit({ content: `${shown.content}\n\n→ ${outcome}`.slice(0, 2000), components: [] });
  }
}

/** A Discord attachment as a file the base may fetch (from the CDN URL Discord gave) once admitted. */
function lazyFile(file: {
  name: string;
  contentType: string | null;
  size: number;
  url: string;
}): PlatformFile {
  const type = file.contentType ?? '';
  return {
    kind: type.startsWith('audio/') ? 'voice' : IMAGE_TYPES.has(type) ? 'image' : 'file',
    name: file.name,
    size: file.size,
    describe: `a voice message (${file.name})`,
    download: (maxBytes) => fetchCapped(file.url, maxBytes),
  };
}

function fatalReason(error: unknown): string {
  const text = (error as Error).message ?? String(error);
  if (
    /TokenInvalid|invalid token|401|Unauthorized/i.test(`${(error as { code?: string }).code ?? ''} ${text}`)
  )
    return 'Discord refused the bot token: check channels.discord.token (Developer Portal → Bot)';
  return text;
}
