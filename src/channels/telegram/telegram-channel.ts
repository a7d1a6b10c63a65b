import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { Bot, Context } from 'grammy';
import type { CallbackQuery, Message, Update } from 'grammy/types';
import type { ApprovalChoice, ApprovalRequest, Attachment } from '../../bus/messages.js';
import {
  approvalButtonData,
  describeApprovalText,
  APPROVAL_LABELS as LABELS,
  parseApprovalButton,
} from '../approval-text.js';
import { FileTooLargeError, fetchCapped } from '../fetch-capped.js';
import type { PlatformFile } from '../inbound-files.js';
import { escapeHtml, toTelegramHtml } from '../markdown/to-telegram-html.js';
import { PlatformChannel } from '../platform-channel.js';
import { type AdapterOptions, platformOptions } from '../platform-options.js';
import type { TelegramConfig } from './telegram-config.js';
import { type TelegramFiles, toPlatformMessage } from './telegram-message.js';

/** Telegram's limit is 4096 characters of text after entity parsing; leave room for the HTML tags. */
const TEXT_LIMIT = 3800;
const IMAGE_TYPES = new Set(['.png', '.jpg', '.jpeg', '.gif', '.webp']);

export type TelegramChannelOptions = AdapterOptions<TelegramConfig>;

/** An approval question as sent: edited to its outcome (without buttons) once answered. */
interface ShownApproval {
  chatId: string;
  messageId: number;
  text: string;
}

/**
 * Telegram through grammY (long polling by default; a webhook with secret-token verification on request;
 * `api_root` for a self-hosted Bot API server). Replies are Telegram HTML (plain text when Telegram refuses
 * the markup); approvals are inline buttons only the owner's press counts; sends retry 429/5xx after
 * `retry_after` (grammY's auto-retry). The update offset is stored, so a restart neither repeats nor skips.
 */
export class TelegramChannel extends PlatformChannel<ShownApproval> {
  protected readonly textLimit = TEXT_LIMIT;
  private readonly telegram: TelegramChannelOptions;
  private bot: Bot | undefined;
  private server: Server | undefined;
  private running: Promise<void> | undefined;
  private readonly controller = new AbortController();

  constructor(options: TelegramChannelOptions) {
    super(platformOptions('telegram', options));
    this.telegram = options;
  }

  async start(signal?: AbortSignal): Promise<void> {
    signal?.addEventListener('abort', () => this.controller.abort(), { once: true });
    const config = this.telegram.config();
    // Loaded only when Telegram is configured: grammY is not part of every start.
    const [{ Bot }, { autoRetry }] = await Promise.all([import('grammy'), import('@grammyjs/auto-retry')]);
    const bot = new Bot(config.token, { client: { apiRoot: config.apiRoot } });
    // Network errors reach keepConnected (state `reconnecting`); 429 and 5xx wait `retry_after` and retry.
    bot.api.config.use(autoRetry({ maxRetryAttempts: 4, maxDelaySeconds: 300, rethrowHttpErrors: true }));
    bot.on('message', (ctx) => this.onMessage(ctx.message));
    bot.on('callback_query:data', (ctx) => this.onButton(ctx));
    bot.catch((error) => this.telegram.onError?.(error.error));
    this.bot = bot;
    this.attachPlatform();
    this.running =
      config.mode === 'webhook' ? this.serveWebhook(bot, config) : this.poll(bot, this.controller.signal);
  }

  async stop(): Promise<void> {
    this.controller.abort();
    this.detachPlatform();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    await this.running?.catch(() => {});
    this.setState('stopped');
  }

  private poll(bot: Bot, signal: AbortSignal): Promise<void> {
    const ledger = this.platform.ledger;
    return this.keepConnected(
      signal,
      async (signal, connected) => {
        // grammY types its signal with the abort-controller polyfill's class; Node's is the same at run time.
        const abort = signal as unknown as Parameters<Bot['api']['getMe']>[0];
        bot.botInfo = await bot.api.getMe(abort);
        // A webhook left set (mode changed) makes getUpdates fail with 409.
        await bot.api.deleteWebhook({ drop_pending_updates: false }, abort);
        connected();
        for (;;) {
          const offset = Number(ledger.cursor(this.name, 'offset') ?? 0);
          const updates = await bot.api.getUpdates(
            { offset, timeout: 25, allowed_updates: ['message', 'callback_query'] },
            abort,
          );
          for (const update of updates) {
            await bot.handleUpdate(update);
            ledger.setCursor(this.name, 'offset', String(update.update_id + 1));
          }
        }
      },
      fatalReason,
    );
  }

  private async serveWebhook(bot: Bot, config: TelegramConfig): Promise<void> {
    const webhook = config.webhook!;
    const { webhookCallback } = await import('grammy');
    this.setState('starting');
    try {
      await bot.init();
      const handle = webhookCallback(bot, 'http', { secretToken: webhook.secret, onTimeout: 'return' });
      const server = createServer((request, response) => {
        if (request.method !== 'POST' || request.url !== new URL(webhook.url).pathname) {
          response.writeHead(404).end();
          return;
        }
        void handle(request, response).catch((error: unknown) => {
          this.telegram.onError?.(error);
          if (!response.headersSent) response.writeHead(500).end();
        });
      });
      this.server = server;
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(webhook.port, webhook.host, () => resolve());
      });
      await bot.api.setWebhook(webhook.url, {
        secret_token: webhook.secret,
        allowed_updates: ['message', 'callback_query'],
      });
      this.setState('connected');
    } catch (error) {
      this.setState('failed', fatalReason(error) ?? (error instanceof Error ? error.message : String(error)));
      throw error;
    }
  }

  /** The port the webhook listens on (tests bind port 0). */
  webhookPort(): number | undefined {
    const address = this.server?.address();
    return address && typeof address === 'object' ? address.port : undefined;
  }

  private async onMessage(message: Message): Promise<void> {
    const { message: platform, files } = toPlatformMessage(
      message,
      this.bot!.botInfo,
      this.telegram.config().maxFileBytes,
    );
    // Nothing is fetched here: the base downloads only for a sender it admitted, within the size cap.
    await this.receive({ ...platform, files: this.lazyFiles(files) });
  }

  private lazyFiles(files: TelegramFiles): PlatformFile[] {
    const lazy: PlatformFile[] = [];
    const fetch = (fileId: string) => (maxBytes: number) => this.download(fileId, maxBytes);
    if (files.photo)
      lazy.push({
        kind: 'image',
        name: 'photo.jpg',
        size: files.photo.size,
        download: fetch(files.photo.fileId),
      });
    if (files.document)
      lazy.push({
        kind: 'file',
        name: files.document.name,
        size: files.document.size,
        download: fetch(files.document.fileId),
      });
    if (files.voice)
      lazy.push({
        kind: 'voice',
        name: 'voice.ogg',
        size: files.voice.size,
        describe: `a ${files.voice.seconds} s voice message`,
        download: fetch(files.voice.fileId),
      });
    return lazy;
  }

  /** One file through the Bot API: its path from getFile (with Telegram's size), then the capped bytes. */
  private async download(fileId: string, maxBytes: number): Promise<Buffer> {
    const config = this.telegram.config();
    const file = await this.bot!.api.getFile(fileId);
    if (!file.file_path) throw new Error('Telegram gave no path for the file');
    if ((file.file_size ?? 0) > maxBytes) throw new FileTooLargeError(maxBytes);
    return fetchCapped(`${config.apiRoot}/file/bot${config.token}/${file.file_path}`, maxBytes);
  }

  private async onButton(ctx: Context): Promise<void> {
    const query = ctx.callbackQuery as CallbackQuery & { data: string };
    const parsed = parseApprovalButton(query.data);
    if (!parsed) {
      await ctx.answerCallbackQuery();
      return;
    }
    const result = await this.answerPresented(String(query.from.id), parsed.shortId, parsed.choice);
    await ctx.answerCallbackQuery({ text: result.ok ? `${LABELS[parsed.choice]}: done` : result.message });
  }

  protected async sendText(chatId: string, text: string, options: { notice: boolean }): Promise<void> {
    const api = this.bot!.api;
    const html = options.notice ? escapeHtml(text) : toTelegramHtml(text);
    if (html.length > 4096) {
      await api.sendMessage(chatId, text.slice(0, 4096));
      return;
    }
    try {
      await api.sendMessage(chatId, html, {
        parse_mode: 'HTML',
        link_preview_options: { is_disabled: true },
      });
    } catch (error) {
      // Telegram refused the markup (an entity it cannot parse): the words matter more than the styling.
      if (!isParseError(error)) throw error;
      await api.sendMessage(chatId, text);
    }
  }

  protected override async sendFile(chatId: string, file: Attachment): Promise<void> {
    const { InputFile } = await import('grammy');
    const input = new InputFile(await readFile(file.path), file.name.split('/').pop());
    const image = IMAGE_TYPES.has(file.name.slice(file.name.lastIndexOf('.')).toLowerCase());
    if (image) await this.bot!.api.sendPhoto(chatId, input);
    else await this.bot!.api.sendDocument(chatId, input);
  }

  protected override async typing(chatId: string): Promise<void> {
    await this.bot?.api.sendChatAction(chatId, 'typing');
  }

  protected override async postStatus(chatId: string, text: string, handle?: string) {
    const api = this.bot!.api;
    if (!handle) return String((await api.sendMessage(chatId, text)).message_id);
    await api.editMessageText(chatId, Number(handle), text).catch((error: unknown) => {
      if (!String((error as Error).message).includes('message is not modified')) throw error;
    });
    return handle;
  }

  protected override async showApproval(request: ApprovalRequest): Promise<ShownApproval> {
    const text = describeApprovalText(request, true);
    const sent = await this.bot!.api.sendMessage(request.chatId, text, {
      reply_markup: { inline_keyboard: approvalKeyboard(request) },
    });
    return { chatId: request.chatId, messageId: sent.message_id, text };
  }

  protected override async closeApproval(shown: ShownApproval, outcome: string): Promise<void> {
    // Editing away the buttons: a late press then has nothing to act on.
    await this.bot!.api.editMessageText(shown.chatId, shown.messageId, `${shown.text}\n\n→ ${outcome}`);
  }
}

/** The order buttons are laid out in: the everyday answers first. */
const BUTTON_ORDER: ApprovalChoice[] = ['once', 'deny', 'session', 'always'];

/**
 * The approval buttons, two to a row ("Allow once" beside "Deny" on top, the longer-lived grants below):
 * four in one row cut every label short on a 360 px phone. Pure.
 */
export function approvalKeyboard(
  request: ApprovalRequest,
): Array<Array<{ text: string; callback_data: string }>> {
  const buttons = BUTTON_ORDER.filter((choice) => request.choices.includes(choice)).map((choice) => ({
    text: LABELS[choice],
    callback_data: approvalButtonData(request, choice),
  }));
  const rows: Array<Array<{ text: string; callback_data: string }>> = [];
  for (let index = 0; index < buttons.length; index += 2) rows.push(buttons.slice(index, index + 2));
  return rows;
}

/** Errors retrying cannot fix, in words for `wren status`. */
function fatalReason(error: unknown): string | undefined {
  const code = (error as { error_code?: number }).error_code;
  if (code === 401 || code === 404)
    return 'Telegram refused the bot token (401): check channels.telegram.token (from @BotFather)';
  return undefined;
}

function isParseError(error: unknown): boolean {
  const description = String((error as { description?: string }).description ?? '');
  return (error as { error_code?: number }).error_code === 400 && /can't parse|entities/i.test(description);
}

export type { Update };
