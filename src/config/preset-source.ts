import type { Protocol } from '../llm/endpoint.js';
import { findProviderPreset, PROVIDER_PRESETS } from '../llm/provider-presets.js';

/** What a provider preset contributes to a `models:` entry. */
export interface PresetDefaults {
  /** Canonical preset name (aliases such as `google` resolve to `gemini`). */
  name: string;
  protocol: Protocol;
  baseUrl: string;
  /** The environment variable holding the API key; absent for servers that need none. */
  apiKeyEnv?: string;
  contextWindow: number;
  /** Headers the provider asks for; an entry's own `headers` win key by key. */
  headers?: Readonly<Record<string, string>>;
  /** `copilot`: the key is a GitHub token exchanged for Copilot API tokens (src/llm/copilot-auth.ts). */
  auth?: 'copilot';
}

/** Looks presets up by the name users write after `provider:`. Injectable so tests can supply their own. */
export interface PresetSource {
  get(name: string): PresetDefaults | undefined;
  names(): readonly string[];
}

/** The presets of src/llm/provider-presets.ts (case-insensitive, aliases accepted). */
export const defaultPresets: PresetSource = {
  get: (name) => findProviderPreset(name),
  names: () => PROVIDER_PRESETS.map((preset) => preset.name),
};
