import { COPILOT_ENV, copilotAuth } from '../llm/copilot-auth.js';
import { EMBEDDING_TAG } from '../llm/embedding-endpoint.js';
import type { CopilotAuth } from '../llm/endpoint.js';
import { closestMatch } from '../util/closest-match.js';
import type { ConfigIssue } from '../util/config-issues.js';
import type { ParsedModel } from './config-schema.js';
import type { PresetSource } from './preset-source.js';
import type { ModelConfig } from './wren-config.js';

/** Context window assumed for a model with neither `provider:` nor `context_window:`; deliberately modest. */
export const DEFAULT_CONTEXT_WINDOW = 32_768;

export interface ResolveModelsOptions {
  /** Variables the preset's API key is read from (environment over `.env`). */
  env: Readonly<Record<string, string>>;
  presets: PresetSource;
  /** Path of `<home>/.env`, named in messages. */
  envFile: string;
}

function resolveModel(
  entry: ParsedModel,
  index: number,
  options: ResolveModelsOptions,
): ModelConfig | ConfigIssue[] {
  const { env, presets } = options;
  const at = (key: string): Array<string | number> => ['models', index, key];
  const issues: ConfigIssue[] = [];
  const preset = entry.provider === undefined ? undefined : presets.get(entry.provider);
  if (entry.provider !== undefined && !preset) {
    const guess = closestMatch(entry.provider, presets.names());
    const hint = guess ? `did you mean ${guess}?` : `known providers: ${presets.names().join(', ')}`;
    issues.push({
      path: at('provider'),
      message: `unknown provider "${entry.provider}" (${hint}); or drop provider: and set protocol and base_url`,
    });
    return issues;
  }
  const protocol = entry.protocol ?? preset?.protocol;
  const baseUrl = entry.base_url ?? preset?.baseUrl;
  const how = 'set it, or name a preset with provider: (e.g. provider: openai)';
  if (!protocol)
    issues.push({ path: at('protocol'), message: `missing (openai, anthropic or gemini); ${how}` });
  if (!baseUrl) issues.push({ path: at('base_url'), message: `missing; ${how}` });

  let apiKey = entry.api_key === '' ? undefined : entry.api_key;
  const apiKeyEnv = entry.api_key === undefined ? preset?.apiKeyEnv : undefined;
  if (apiKeyEnv) {
    apiKey = env[apiKeyEnv] || undefined;
    if (!apiKey && entry.enabled) {
      issues.push({
        path: at('api_key'),
        envVar: apiKeyEnv,
        message:
          preset?.auth === 'copilot'
            ? `provider copilot reads its GitHub token from ${apiKeyEnv}, which is not set; sign in with ` +
              `\`wren models login copilot\` (it saves the token in ${options.envFile}), or set enabled: false`
            : `provider ${entry.provider} reads its API key from ${apiKeyEnv}, which is not set; set ${apiKeyEnv} ` +
              `in the environment or in ${options.envFile}, set api_key, or set enabled: false`,
      });
    }
  }
  const contextWindow = entry.context_window ?? preset?.contextWindow ?? DEFAULT_CONTEXT_WINDOW;
  if (entry.max_output_tokens >= contextWindow) {
    issues.push({
      path: at('max_output_tokens'),
      message: `${entry.max_output_tokens} must be less than the context window (${contextWindow}); lower it or set context_window`,
    });
  }
  issues.push(...embeddingIssues({ entry, protocol, at }));
  const copilot = preset?.auth === 'copilot' ? copilotOf({ entry, protocol, env, at }) : undefined;
  if (copilot && !('tokenUrl' in copilot)) issues.push(copilot);
  if (issues.length > 0 || !protocol || !baseUrl) return issues;
  const headers = preset?.headers || entry.headers ? { ...preset?.headers, ...entry.headers } : undefined;
  return {
    name: entry.name,
    ...(preset ? { provider: preset.name } : {}),
    protocol,
    baseUrl,
    ...(apiKey !== undefined ? { apiKey } : {}),
    ...(apiKeyEnv ? { apiKeyEnv } : {}),
    model: entry.model,
    tags: entry.tags,
    priority: entry.priority,
    contextWindow,
    maxOutputTokens: entry.max_output_tokens,
    enabled: entry.enabled,
    ...(headers ? { headers } : {}),
    timeoutSeconds: entry.timeout,
    vision: entry.vision,
    ...(copilot && 'tokenUrl' in copilot ? { copilot } : {}),
  };
}

/** How a `provider: copilot` entry gets its API tokens, or what is wrong with it. */
function copilotOf(options: {
  entry: ParsedModel;
  protocol: string | undefined;
  env: Readonly<Record<string, string>>;
  at: (key: string) => Array<string | number>;
}): CopilotAuth | ConfigIssue {
  const { entry, protocol, env, at } = options;
  if (protocol !== 'openai')
    return {
      path: at('protocol'),
      message: `Copilot speaks the OpenAI chat API only; drop protocol: (or write protocol: openai)`,
    };
  try {
    return copilotAuth(env, entry.base_url !== undefined);
  } catch (error) {
    return { path: at('provider'), envVar: COPILOT_ENV.tokenUrl, message: (error as Error).message };
  }
}

/** An embedding model speaks OpenAI's `/embeddings` and does nothing else. */
function embeddingIssues(options: {
  entry: ParsedModel;
  protocol: string | undefined;
  at: (key: string) => Array<string | number>;
}): ConfigIssue[] {
  const { entry, protocol, at } = options;
  if (!entry.tags.includes(EMBEDDING_TAG)) return [];
  const issues: ConfigIssue[] = [];
  if (entry.tags.length > 1)
    issues.push({
      path: at('tags'),
      message: `an embedding model is used only for memory search and never chats; write tags: [${EMBEDDING_TAG}] alone and add the chat model as its own entry`,
    });
  if (protocol && protocol !== 'openai')
    issues.push({
      path: at('protocol'),
      message: `an embedding model needs an OpenAI-compatible /embeddings endpoint (protocol: openai), not ${protocol}`,
    });
  return issues;
}

/**
 * Applies provider presets to validated `models:` entries. An explicit field always wins over the preset; a
 * preset's API key variable is read from `env` when `api_key` is absent (an enabled model whose variable is
 * unset is an issue). Pure: returns the models, or every issue found.
 */
export function resolveModels(
  entries: readonly ParsedModel[],
  options: ResolveModelsOptions,
): { models: ModelConfig[]; issues: ConfigIssue[] } {
  const models: ModelConfig[] = [];
  const issues: ConfigIssue[] = [];
  entries.forEach((entry, index) => {
    const result = resolveModel(entry, index, options);
    if (Array.isArray(result)) issues.push(...result);
    else models.push(result);
  });
  return { models, issues };
}
