import * as z from 'zod';
import { fromString } from '../../util/from-string.js';
import { type ChannelAccess, channelAccessShape, toChannelAccess } from '../channel-access.js';
import type { ProgressMode } from '../turn-progress.js';

const flag = z.preprocess(fromString, z.boolean());
const integer = (min: number, max: number) => z.preprocess(fromString, z.number().int().min(min).max(max));
const httpUrl = (example: string) =>
  z
    .string()
    .trim()
    .refine((text) => /^https?:\/\//.test(text) && URL.canParse(text), {
      message: `must be an http(s) URL such as ${example}`,
    });

/**
 * `channels.telegram` in config.yaml:
 *
 * ```yaml
 * channels:
 *   telegram:
 *     token: ${TELEGRAM_BOT_TOKEN}   # from @BotFather
 *     owner: [123456789]             # your numeric Telegram user id
 *     allow_from: []                 # others who may talk (never approve); empty: only you
 *     pairing: false                 # strangers get a code you can approve with `wren pairing approve`
 *     groups: []                     # group chat ids where Wren answers when mentioned or replied to
 *     progress: hints                # off | hints | full: tool progress as one edited message
 *     mode: polling                  # or webhook (then set webhook.url and webhook.secret)
 *     api_root: https://api.telegram.org   # a self-hosted Bot API server
 * ```
 */
export const telegramSectionSchema = z
  .strictObject({
    enabled: flag.default(true),
    token: z
      .string()
      .trim()
      .min(1, 'set the bot token from @BotFather, e.g. token: ${TELEGRAM_BOT_TOKEN}')
      .regex(/^\d+:[A-Za-z0-9_-]+$/, 'a bot token looks like 123456:ABC-DEF… (from @BotFather)'),
    ...channelAccessShape('Telegram', {
      pattern: /^\d{1,20}$/,
      explain:
        'use the numeric id (message @userinfobot from that account, or let them write to the bot with pairing on and see `wren pairing list`).',
    }),
    progress: z.enum(['off', 'hints', 'full']).default('hints'),
    mode: z.enum(['polling', 'webhook']).default('polling'),
    webhook: z
      .strictObject({
        url: httpUrl('https://example.com/telegram'),
        secret: z
          .string()
          .regex(
            /^[A-Za-z0-9_-]{16,256}$/,
            'use 16-256 letters, digits, _ and - (e.g. openssl rand -hex 24)',
          ),
        listen: z
          .string()
          .regex(/^[^\s:]+:\d{1,5}$/, 'host:port, e.g. 127.0.0.1:8443')
          .default('127.0.0.1:8443'),
      })
      .optional(),
    api_root: httpUrl('https://api.telegram.org').default('https://api.telegram.org'),
    max_file_mb: integer(1, 2000).default(20),
  })
  .superRefine((section, ctx) => {
    if (section.mode === 'webhook' && !section.webhook)
      ctx.addIssue({
        code: 'custom',
        path: ['webhook'],
        message: 'mode: webhook needs webhook: {url, secret} (Telegram posts updates to the url)',
      });
  });

export interface TelegramConfig {
  readonly enabled: boolean;
  /** Secret: never logged (the redactor knows it). */
  readonly token: string;
  readonly access: ChannelAccess;
  readonly progress: ProgressMode;
  readonly mode: 'polling' | 'webhook';
  readonly webhook?: {
    readonly url: string;
    readonly secret: string;
    readonly host: string;
    readonly port: number;
  };
  readonly apiRoot: string;
  readonly maxFileBytes: number;
}

export function toTelegramConfig(section: z.output<typeof telegramSectionSchema>): TelegramConfig {
  const webhook = section.webhook;
  const at = webhook?.listen.lastIndexOf(':') ?? -1;
  return {
    enabled: section.enabled,
    token: section.token,
    access: toChannelAccess(section),
    progress: section.progress,
    mode: section.mode,
    ...(webhook
      ? {
          webhook: {
            url: webhook.url,
            secret: webhook.secret,
            host: webhook.listen.slice(0, at),
            port: Number(webhook.listen.slice(at + 1)),
          },
        }
      : {}),
    apiRoot: section.api_root.replace(/\/+$/, ''),
    maxFileBytes: section.max_file_mb * 1024 * 1024,
  };
}
