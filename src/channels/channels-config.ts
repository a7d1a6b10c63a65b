import * as z from 'zod';
import type { PlatformDescriptor } from './platform-descriptor.js';
import type { PlatformSettings } from './platform-options.js';
import { platforms } from './platform-registry.js';
import { type TranscriptionConfig, toTranscriptionConfig, transcriptionSchema } from './transcription.js';

type Platform = (typeof platforms)[number];
/** The name of a registered chat platform (`telegram`, `email`, …). */
export type PlatformName = Platform['name'];
type ConfigOf<P extends Platform> = ReturnType<P['toConfig']>;
/** The registry with each platform's own types erased, for code that treats them all alike. */
export const registeredPlatforms: readonly PlatformDescriptor[] = platforms;

/** Each platform's section, optional, as zod parses it (built from the registry, in its order). */
const platformShape = Object.fromEntries(
  platforms.map((platform) => [platform.name, platform.schema.optional()]),
) as { [P in Platform as P['name']]: z.ZodOptional<P['schema']> };

/** `channels:` in config.yaml: one optional section per registered platform (each schema lives in its folder). */
export const channelsSectionSchema = z.strictObject({
  ...platformShape,
  /** Voice messages to text, for platforms that give no transcript. */
  transcription: transcriptionSchema.optional(),
});

export type ChannelsConfig = { readonly [P in Platform as P['name']]?: ConfigOf<P> } & {
  readonly transcription?: TranscriptionConfig;
};

/** The section of the registered platform `name`, when config.yaml has it (any other name: undefined). */
export function platformConfig(config: ChannelsConfig, name: string): PlatformSettings | undefined {
  if (!registeredPlatforms.some((platform) => platform.name === name) || !Object.hasOwn(config, name))
    return undefined;
  return (config as Readonly<Record<string, PlatformSettings | undefined>>)[name];
}

export function toChannelsConfig(section: z.output<typeof channelsSectionSchema>): ChannelsConfig {
  const sections = section as Readonly<Record<string, unknown>>;
  const config: Record<string, unknown> = {};
  for (const platform of registeredPlatforms) {
    const raw = sections[platform.name];
    if (raw) config[platform.name] = platform.toConfig(raw);
  }
  if (section.transcription) config['transcription'] = toTranscriptionConfig(section.transcription);
  return config as ChannelsConfig;
}

/** The secrets of every configured channel (for the redactor). */
export function channelSecrets(config: ChannelsConfig): string[] {
  const secrets: string[] = [];
  for (const platform of registeredPlatforms) {
    const section = platformConfig(config, platform.name);
    if (section) secrets.push(...platform.secrets(section));
  }
  if (config.transcription?.apiKey) secrets.push(config.transcription.apiKey);
  return secrets;
}
