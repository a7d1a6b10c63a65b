import type { MessageBus } from '../bus/message-bus.js';
import type { ChannelAccess } from './channel-access.js';
import type { ChannelLedger } from './channel-ledger.js';
import type { SdkImporter, SdkLoader } from './platform-sdk.js';
import type { Transcribe } from './transcription.js';
import type { ProgressMode } from './turn-progress.js';

/** The file cap when a platform's section sets none. */
export const DEFAULT_MAX_FILE_BYTES = 20 * 1024 * 1024;

export interface PlatformChannelOptions {
  name: string;
  bus: MessageBus;
  /** Read per message, so a config edit applies at once. */
  access: () => ChannelAccess;
  ledger: ChannelLedger;
  /** Longest inbound text taken in (default 32,000 characters); longer gets a notice, no turn. */
  maxInboundChars?: number;
  /** Tool progress shown in the chat (default `hints`). */
  progress?: () => ProgressMode;
  /** Where received files are saved (its `inbox/` folder); without it files are only described. */
  workspace?: () => string;
  /** Largest file downloaded from a message, in bytes (default 20 MB; read per message). */
  maxFileBytes?: () => number;
  /** Voice to text, when `channels.transcription` is configured (read per message). */
  transcribe?: () => Transcribe | undefined;
  /** Milliseconds before reconnect attempt `n` (default 1 s doubling to 60 s, ±20 %). */
  backoff?: (attempt: number) => number;
  clock?: () => number;
  onError?: (error: unknown) => void;
  /** Loads the platform's SDK packages (default: from Wren's own dependencies only). */
  sdk?: SdkLoader;
  /** Imports the platform's ESM-only SDK packages (default: from Wren's own dependencies only). */
  importSdk?: SdkImporter;
}

/** What every platform's config section carries that the base reads on each message. */
export interface PlatformSettings {
  readonly enabled: boolean;
  readonly access: ChannelAccess;
  /** Absent: the platform shows no tool progress. */
  readonly progress?: ProgressMode;
  /** Absent: {@link DEFAULT_MAX_FILE_BYTES}. */
  readonly maxFileBytes?: number;
}

/**
 * What every adapter's constructor takes: the base's shared options, its own config section (read on each
 * message, so an edit of who may talk applies at once) and the workspace received files are saved in.
 */
export type AdapterOptions<Config extends PlatformSettings> = Omit<
  PlatformChannelOptions,
  'name' | 'access' | 'progress' | 'maxFileBytes'
> & {
  config: () => Config;
  workspace: () => string;
};

/**
 * The base's options for the adapter `name`: access, progress and the file cap read from its config
 * section on every message. The one place the config-to-access mapping lives. Pure.
 */
export function platformOptions<Config extends PlatformSettings>(
  name: string,
  options: AdapterOptions<Config>,
): PlatformChannelOptions {
  return {
    ...options,
    name,
    access: () => options.config().access,
    progress: () => options.config().progress ?? 'off',
    maxFileBytes: () => options.config().maxFileBytes ?? DEFAULT_MAX_FILE_BYTES,
  };
}
