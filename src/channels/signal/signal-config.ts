import * as z from 'zod';
import { fromString } from '../../util/from-string.js';
import { type ChannelAccess, channelAccessShape, toChannelAccess } from '../channel-access.js';
import type { ProgressMode } from '../turn-progress.js';

const flag = z.preprocess(fromString, z.boolean());

/** A phone number in E.164 (`+` and the country code) or an account UUID (ACI): Signal's stable ids. */
export const SIGNAL_ID = /^(\+[1-9]\d{5,14}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;

/**
 * `channels.signal`, through signal-cli's JSON-RPC daemon (`signal-cli -a +NUMBER daemon --http
 * 127.0.0.1:8080`, or `--tcp` / `--socket`):
 *
 * ```yaml
 * channels:
 *   signal:
 *     account: "+15550100001"        # the number signal-cli is registered or linked as
 *     url: http://127.0.0.1:8080     # or tcp://127.0.0.1:7583, unix:///run/user/1000/signal-cli/socket
 *     owner: ["+15550100002"]        # your number in E.164, or your account UUID
 * ```
 */
export const signalSectionSchema = z.strictObject({
  enabled: flag.default(true),
  account: z
    .string()
    .trim()
    .regex(SIGNAL_ID, 'the number signal-cli runs as, in E.164 with the country code, e.g. "+15550100001"'),
  url: z
    .string()
    .trim()
    .regex(
      /^(https?:\/\/[^\s/]+|tcp:\/\/[^\s/]+:\d+|unix:\/\/\/\S+)\/?$/,
      'http://HOST:PORT (daemon --http), tcp://HOST:PORT (daemon --tcp) or unix:///PATH (daemon --socket)',
    )
    .default('http://127.0.0.1:8080'),
  /** Sent as `Authorization: Bearer …` (a daemon behind an authenticating proxy); signal-cli has none. */
  token: z.string().trim().min(1).optional(),
  ...channelAccessShape('Signal', {
    pattern: SIGNAL_ID,
    explain:
      'use the phone number in E.164 ("+" and the country code, no spaces, e.g. "+15550100002") or the account UUID (signal-cli listContacts shows both).',
  }),
  /** Read receipts for the messages Wren takes in. */
  read_receipts: flag.default(false),
  /** Signal cannot edit a status message: progress is "typing…" only (`off` turns that off too). */
  progress: z.enum(['off', 'hints', 'full']).default('hints'),
});

export interface SignalConfig {
  readonly enabled: boolean;
  readonly account: string;
  readonly url: string;
  /** Secret: the redactor knows it. */
  readonly token?: string;
  readonly access: ChannelAccess;
  readonly readReceipts: boolean;
  readonly progress: ProgressMode;
}

export function toSignalConfig(section: z.output<typeof signalSectionSchema>): SignalConfig {
  return {
    enabled: section.enabled,
    account: section.account,
    url: section.url.replace(/\/+$/, ''),
    ...(section.token ? { token: section.token } : {}),
    access: toChannelAccess(section),
    readReceipts: section.read_receipts,
    progress: section.progress,
  };
}
