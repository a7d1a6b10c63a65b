import * as z from 'zod';
import { fromString } from '../../util/from-string.js';
import { type ChannelAccess, channelAccessShape, toChannelAccess } from '../channel-access.js';
import type { ProgressMode } from '../turn-progress.js';

const flag = z.preprocess(fromString, z.boolean());

/** A WhatsApp user: the phone number in E.164 (`+`, the country code, the number; no spaces). */
export const WHATSAPP_NUMBER = /^\+[1-9]\d{6,14}$/;

/**
 * `channels.whatsapp`: Wren as a linked device of a WhatsApp account (yours, or a second number), through
 * Baileys. Link it once with `wren channels link whatsapp` (or Settings in the web app):
 *
 * ```yaml
 * channels:
 *   whatsapp:
 *     owner: ["+4915112345678"]     # your number; when Wren runs on your own account, "Message yourself"
 *     groups: ["120363012345678901@g.us"]   # optional: groups where an @mention of Wren is answered
 * ```
 */
export const whatsappSectionSchema = z.strictObject({
  enabled: flag.default(true),
  ...channelAccessShape('WhatsApp', {
    pattern: WHATSAPP_NUMBER,
    explain: 'use the phone number in E.164: "+", the country code and the number, e.g. "+4915112345678".',
  }),
  /** Marks the messages Wren takes in as read (blue ticks). */
  read_receipts: flag.default(true),
  /** WhatsApp shows "typing…" while a turn runs (`off` turns it off); tool progress is not posted. */
  progress: z.enum(['off', 'hints', 'full']).default('hints'),
});

export interface WhatsAppConfig {
  readonly enabled: boolean;
  readonly access: ChannelAccess;
  readonly readReceipts: boolean;
  readonly progress: ProgressMode;
}

export function toWhatsAppConfig(section: z.output<typeof whatsappSectionSchema>): WhatsAppConfig {
  return {
    enabled: section.enabled,
    access: toChannelAccess(section),
    readReceipts: section.read_receipts,
    progress: section.progress,
  };
}
