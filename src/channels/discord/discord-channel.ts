import { readFile } from 'node:fs/promises';
import type { API, Client } from '@discordjs/core';
import type { WebSocketManager } from '@discordjs/ws';
import {
  type APIInteraction,
  type APIUser,
  ApplicationCommandOptionType,
  ApplicationCommandType,
  ButtonStyle,
  ComponentType,
  GatewayDispatchEvents,
  GatewayIntentBits,
  type GatewayMessageCreateDispatchData,
  InteractionType,
  MessageFlags,
} from 'discord-api-types/v10';
import type { ApprovalRequest, Attachment } from '../../bus/messages.js';
import {
  approvalButtonData,
  describeApprovalText,
  APPROVAL_LABELS as LABELS,
  parseApprovalButton,
} from '../approval-text.js';
import { PlatformChannel } from '../platform-channel.js';
import { type AdapterOptions, platformOptions } from '../platform-options.js';
import type { DiscordConfig } from './discord-config.js';
import { isSpoken, lazyFile, tagOf, userOf } from './discord-message.js';
import { DiscordThreads } from './discord-threads.js';

/** Nobody is pinged by what Wren writes, whatever the model put in the text. */
const NO_MENTIONS = { parse: [] as never[] };

const INTENTS =
  GatewayIntentBits.Guilds |
  GatewayIntentBits.GuildMessages |
  GatewayIntentBits.DirectMessages |
  GatewayIntentBits.MessageContent;

/** Gateway close codes retrying cannot fix, with what to do about them. */
const FATAL_CLOSE: Readonly<Record<number, string>> = {
  4004: 'Discord refused the bot token: check channels.discord.token (Developer Portal → Bot)',
  4013: 'Discord refused the gateway intents Wren asks for',
  4014: 'Discord refused the Message Content intent: turn it on (Developer Portal → Bot → Privileged Gateway Intents)',
};

/** Chat ids remembered with the channel they resolve to (a user id resolves to the DM channel). */
const MAX_TARGETS = 1000;

export type DiscordChannelOptions = AdapterOptions<DiscordConfig>;

/** An approval question as posted: replaced by its outcome (without buttons) once answered. */
interface ShownApproval {
  channelId: string;
  messageId: string;
  content: string;
}

/**
 * Discord through the official small packages (@discordjs/ws for the gateway, @discordjs/rest and
 * @discordjs/core for the API): DMs, and guild channels (and their threads) listed in `groups` when the bot
 * is mentioned or replied to. Replies are Discord's own Markdown, split at 2,000 characters, sent with
 * mentions disabled; approvals are buttons only the owner's click answers; `/wren` is a slash command.
 * @discordjs/ws resumes the gateway session itself, and @discordjs/rest waits out 429s.
 */
export class DiscordChannel extends PlatformChannel<ShownApproval> {
  protected readonly textLimit = 1900;
  private readonly discord: DiscordChannelOptions;
  private api: API | undefined;
  private gateway: WebSocketManager | undefined;
  /** The bot's user id, from READY. */
  private me = '';
  private applicationId = '';
  private readonly threads = new DiscordThreads();
  private readonly targets = new Map<string, string>();
  /** Ends a start still waiting for READY (a fatal close, or stop). */
  private abandonStart: ((error: Error) => void) | undefined;
  private stopping = false;

  constructor(options: DiscordChannelOptions) {
    super(platformOptions('discord', options));
    this.discord = options;
  }

  async start(signal?: AbortSignal): Promise<void> {
    signal?.addEventListener('abort', () => void this.stop(), { once: true });
    const config = this.discord.config();
    const { Client: DiscordClient } = this.requireSdk<typeof import('@discordjs/core')>('@discordjs/core');
    const { REST } = this.requireSdk<typeof import('@discordjs/rest')>('@discordjs/rest');
    const { WebSocketManager, WebSocketShardEvents } =
      this.requireSdk<typeof import('@discordjs/ws')>('@discordjs/ws');
    const rest = new REST({ api: config.apiUrl }).setToken(config.token);
    const gateway = new WebSocketManager({ token: config.token, intents: INTENTS, rest });
    const client = new DiscordClient({ rest, gateway });
    this.api = client.api;
    this.gateway = gateway;
    this.listen(client);
    gateway.on(WebSocketShardEvents.Ready, (ready) => {
      this.me = ready.user.id;
      this.applicationId = ready.application.id;
      this.setState('connected');
    });
    gateway.on(WebSocketShardEvents.Resumed, () => this.setState('connected'));
    gateway.on(WebSocketShardEvents.Closed, (code) => this.onClosed(code));
    gateway.on(WebSocketShardEvents.Error, this.failed);
    this.attachPlatform();
    this.setState('starting');
    try {
      const connecting = gateway.connect();
      // Left behind when the race below is lost (a fatal close, a stop): its end no longer matters.
      connecting.catch(() => {});
      await Promise.race([
        connecting,
        new Promise<never>((_, reject) => {
          this.abandonStart = reject;
        }),
      ]);
      this.abandonStart = undefined;
      this.setState('connected');
      if (config.slashCommand) await this.registerCommand();
    } catch (error) {
      this.abandonStart = undefined;
      if (this.stopping) return;
      this.setState('failed', fatalReason(error));
      throw error;
    }
  }

  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.abandonStart?.(new Error('stopped'));
    this.detachPlatform();
    await Promise.resolve(this.gateway?.destroy()).catch(() => {});
    this.threads.clear();
    this.setState('stopped');
  }

  private readonly failed = (error: unknown) => this.discord.onError?.(error);

  /** The dispatches Wren reads; each handler catches its own errors (nothing may reject in an emitter). */
  private listen(client: Client): void {
    client.on(
      GatewayDispatchEvents.MessageCreate,
      ({ data }) => void this.onMessage(data).catch(this.failed),
    );
    client.on(GatewayDispatchEvents.InteractionCreate, ({ data }) => void this.onInteraction(data));
    client.on(GatewayDispatchEvents.GuildCreate, ({ data }) => {
      if ('threads' in data) for (const thread of data.threads) this.threads.note(thread);
    });
    client.on(GatewayDispatchEvents.ThreadCreate, ({ data }) => this.threads.note(data));
    client.on(GatewayDispatchEvents.ThreadUpdate, ({ data }) => this.threads.note(data));
    client.on(GatewayDispatchEvents.ThreadListSync, ({ data }) => {
      for (const thread of data.threads) this.threads.note(thread);
    });
    client.on(GatewayDispatchEvents.ThreadDelete, ({ data }) => this.threads.forget(data.id));
  }

  /** A closed gateway connection: @discordjs/ws resumes it, except after a code retrying cannot fix. */
  private onClosed(code: number): void {
    if (this.stopping) return;
    const fatal = FATAL_CLOSE[code];
    if (!fatal) {
      this.setState('reconnecting', 'the gateway connection closed');
      return;
    }
    this.setState('failed', fatal);
    this.abandonStart?.(new Error(fatal));
  }

  private async registerCommand(): Promise<void> {
    await this.api!.applicationCommands.bulkOverwriteGlobalCommands(this.applicationId, [
      {
        name: 'wren',
        description: 'Ask Wren',
        type: ApplicationCommandType.ChatInput,
        options: [
          {
            type: ApplicationCommandOptionType.String,
            name: 'message',
            description: 'What to ask',
            required: true,
          },
        ],
      },
    ]);
  }

  private async onMessage(message: GatewayMessageCreateDispatchData): Promise<void> {
    const me = this.me;
    if (!me || message.author.bot || !isSpoken(message.type)) return;
    this.remember(message.channel_id, message.channel_id);
    const direct = message.guild_id === undefined;
    const mentioned = message.mentions.some((user) => user.id === me);
    const repliedToBot = message.referenced_message?.author.id === me;
    const text = message.content.replace(new RegExp(`<@!?${me}>`, 'g'), '').trim();
    // Only an addressed guild message needs its thread's parent (an unaddressed one is ignored anyway).
    const parent =
      !direct && (mentioned || repliedToBot)
        ? await this.threads.parentOf(message.channel_id, (id) => this.api!.channels.get(id))
        : undefined;
    const reference = message.message_reference;
    // Nothing is fetched here: the base downloads only for a sender it admitted, within the size cap.
    await this.receive({
      platformId: message.id,
      senderId: message.author.id,
      senderName: tagOf(message.author),
      chatId: message.channel_id,
      text,
      files: message.attachments.map(lazyFile),
      ...(direct ? {} : { group: { mentioned, repliedToBot, id: parent ?? message.channel_id } }),
      ...(message.referenced_message
        ? { quote: message.referenced_message.content }
        : reference?.message_id
          ? {
              // Read (a REST call) only once the sender is admitted.
              loadQuote: () =>
                this.api!.channels.getMessage(
                  reference.channel_id ?? message.channel_id,
                  reference.message_id!,
                ).then((referenced) => referenced.content),
            }
          : {}),
    });
  }

  private async onInteraction(interaction: APIInteraction): Promise<void> {
    try {
      if (interaction.type === InteractionType.MessageComponent) {
        if (interaction.data.component_type === ComponentType.Button)
          await this.onButton(
            interaction.id,
            interaction.token,
            userOf(interaction),
            interaction.data.custom_id,
          );
      } else if (
        interaction.type === InteractionType.ApplicationCommand &&
        interaction.data.type === ApplicationCommandType.ChatInput &&
        interaction.data.name === 'wren'
      ) {
        const option = interaction.data.options?.find((each) => each.name === 'message');
        const text = option?.type === ApplicationCommandOptionType.String ? option.value : '';
        await this.onCommand(interaction, text);
      }
    } catch (error) {
      this.failed(error);
    }
  }

  private async onCommand(interaction: APIInteraction, text: string): Promise<void> {
    const user = userOf(interaction);
    const chatId = interaction.channel?.id ?? interaction.channel_id ?? user.id;
    this.remember(chatId, chatId);
    const result = await this.receive({
      platformId: interaction.id,
      senderId: user.id,
      senderName: tagOf(user),
      chatId,
      text,
      // A slash command is addressed to Wren by definition.
      ...(interaction.guild_id === undefined ? {} : { group: { mentioned: true, repliedToBot: false } }),
    });
    const accepted = result === 'accepted';
    await this.api!.interactions.reply(interaction.id, interaction.token, {
      content: accepted ? `> ${text.slice(0, 1800)}` : 'Wren does not take requests from you here.',
      ...(accepted ? {} : { flags: MessageFlags.Ephemeral }),
      allowed_mentions: NO_MENTIONS,
    });
  }

  private async onButton(id: string, token: string, user: APIUser, customId: string): Promise<void> {
    const parsed = parseApprovalButton(customId);
    if (!parsed) return;
    const result = await this.answerPresented(user.id, parsed.shortId, parsed.choice);
    if (result.ok) await this.api!.interactions.deferMessageUpdate(id, token);
    else
      await this.api!.interactions.reply(id, token, {
        content: result.message,
        flags: MessageFlags.Ephemeral,
        allowed_mentions: NO_MENTIONS,
      });
  }

  private remember(chatId: string, channelId: string): void {
    this.targets.delete(chatId);
    this.targets.set(chatId, channelId);
    if (this.targets.size > MAX_TARGETS) this.targets.delete(this.targets.keys().next().value!);
  }

  /**
   * The channel to write to for a chat id: a channel as it is; a user id (the owner's, for a delivery or a
   * pairing notice) is no channel, so their DM channel is opened. Remembered, so that costs REST calls once.
   */
  private async target(chatId: string): Promise<string> {
    const known = this.targets.get(chatId);
    if (known) return known;
    const api = this.api!;
    const channel = await api.channels.get(chatId).catch(() => undefined);
    const id = channel ? channel.id : (await api.users.createDM(chatId)).id;
    this.remember(chatId, id);
    return id;
  }

  protected async sendText(chatId: string, text: string): Promise<void> {
    await this.api!.channels.createMessage(await this.target(chatId), {
      content: text,
      allowed_mentions: NO_MENTIONS,
    });
  }

  protected override async sendFile(chatId: string, file: Attachment): Promise<void> {
    const data = await readFile(file.path);
    await this.api!.channels.createMessage(await this.target(chatId), {
      files: [{ name: file.name.split('/').pop() || 'file', data }],
      allowed_mentions: NO_MENTIONS,
    });
  }

  protected override async typing(chatId: string): Promise<void> {
    await this.api!.channels.showTyping(await this.target(chatId));
  }

  protected override async postStatus(chatId: string, text: string, handle?: string) {
    const channelId = await this.target(chatId);
    const body = { content: text, allowed_mentions: NO_MENTIONS };
    if (!handle) return (await this.api!.channels.createMessage(channelId, body)).id;
    await this.api!.channels.editMessage(channelId, handle, body);
    return handle;
  }

  protected override async showApproval(request: ApprovalRequest): Promise<ShownApproval> {
    const channelId = await this.target(request.chatId);
    const content = describeApprovalText(request, true).slice(0, 1900);
    const sent = await this.api!.channels.createMessage(channelId, {
      content,
      allowed_mentions: NO_MENTIONS,
      components: [
        {
          type: ComponentType.ActionRow,
          components: request.choices.map((choice) => ({
            type: ComponentType.Button as const,
            custom_id: approvalButtonData(request, choice),
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
    return { channelId, messageId: sent.id, content: sent.content || content };
  }

  protected override async closeApproval(shown: ShownApproval, outcome: string): Promise<void> {
    // Without its buttons: a late click has nothing to act on.
    await this.api!.channels.editMessage(shown.channelId, shown.messageId, {
      content: `${shown.content}\n\n→ ${outcome}`.slice(0, 2000),
      components: [],
      allowed_mentions: NO_MENTIONS,
    });
  }
}

function fatalReason(error: unknown): string {
  const text = (error as Error).message ?? String(error);
  const status = (error as { status?: number }).status;
  if (status === 401 || /invalid token|401|Unauthorized/i.test(text)) return FATAL_CLOSE[4004]!;
  return text;
}
