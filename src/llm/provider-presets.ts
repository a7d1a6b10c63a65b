/**
 * Provider presets: what a user gets by writing `provider: deepseek` instead of a base URL and key name.
 * A preset only fills defaults; every field can still be overridden per endpoint in config.yaml.
 */
import { COPILOT_API_URL, COPILOT_EDITOR_HEADERS, COPILOT_TOKEN_ENV } from './copilot-auth.js';
import type { Protocol } from './endpoint.js';

export interface ProviderPreset {
  /** The name used in config (`provider: <name>`), lower-case. */
  name: string;
  /** Human-readable name for lists and prompts. */
  label: string;
  protocol: Protocol;
  /** Base URL up to the version segment. */
  baseUrl: string;
  /** Environment variable that conventionally holds the key; absent for local servers that need none. */
  apiKeyEnv?: string;
  /** A context window that is safe for the provider's usual models. */
  contextWindow: number;
  /** A model id to suggest; model line-ups change, so this is a hint, never a default that is sent. */
  exampleModel: string;
  /** True for servers that run on the user's machine (probed by `probeLocalModels`). */
  local: boolean;
  /** Extra headers the provider asks clients to send. */
  headers?: Record<string, string>;
  /** One line for the CLI: where to get a key or how to start the server, and gotchas. */
  docs: string;
  /**
   * `copilot`: the key is a GitHub token from `wren models login copilot`, exchanged for short-lived Copilot
   * API tokens (see copilot-token-source.ts); nobody pastes it.
   */
  auth?: 'copilot';
}

const presets: ProviderPreset[] = [
  {
    name: 'openai',
    label: 'OpenAI',
    protocol: 'openai',
    baseUrl: 'https://api.openai.com/v1',
    apiKeyEnv: 'OPENAI_API_KEY',
    contextWindow: 128_000,
    exampleModel: 'gpt-4.1-mini',
    local: false,
    docs: 'Create a key at https://platform.openai.com/api-keys.',
  },
  {
    name: 'anthropic',
    label: 'Anthropic',
    protocol: 'anthropic',
    baseUrl: 'https://api.anthropic.com/v1',
    apiKeyEnv: 'ANTHROPIC_API_KEY',
    contextWindow: 200_000,
    exampleModel: 'claude-sonnet-4-5',
    local: false,
    docs: 'Create a key at https://console.anthropic.com/settings/keys. Prompt caching is used automatically.',
  },
  {
    name: 'gemini',
    label: 'Google Gemini (OpenAI-compatible endpoint)',
    protocol: 'openai',
    baseUrl: 'https://generativelanguage.googleapis.com/v1beta/openai',
    apiKeyEnv: 'GEMINI_API_KEY',
    contextWindow: 1_000_000,
    exampleModel: 'gemini-2.5-flash',
    local: false,
    docs: 'Create a key at https://aistudio.google.com/apikey. Use provider gemini-native for the native API.',
  },
  {
    name: 'gemini-native',
    label: 'Google Gemini (native API)',
    protocol: 'gemini',
    baseUrl: 'https://generativelanguage.googleapis.com/v1beta',
    apiKeyEnv: 'GEMINI_API_KEY',
    contextWindow: 1_000_000,
    exampleModel: 'gemini-2.5-flash',
    local: false,
    docs: 'Create a key at https://aistudio.google.com/apikey.',
  },
  {
    name: 'deepseek',
    label: 'DeepSeek',
    protocol: 'openai',
    baseUrl: 'https://api.deepseek.com/v1',
    apiKeyEnv: 'DEEPSEEK_API_KEY',
    contextWindow: 128_000,
    exampleModel: 'deepseek-chat',
    local: false,
    docs: 'Create a key at https://platform.deepseek.com/api_keys. Cache hits are billed lower automatically.',
  },
  {
    name: 'openrouter',
    label: 'OpenRouter',
    protocol: 'openai',
    baseUrl: 'https://openrouter.ai/api/v1',
    apiKeyEnv: 'OPENROUTER_API_KEY',
    contextWindow: 128_000,
    exampleModel: 'openai/gpt-4.1-mini',
    local: false,
    headers: { 'X-Title': 'Wren' },
    docs: 'Create a key at https://openrouter.ai/keys. Model ids are vendor/model; check each model page for its context.',
  },
  {
    name: 'groq',
    label: 'Groq',
    protocol: 'openai',
    baseUrl: 'https://api.groq.com/openai/v1',
    apiKeyEnv: 'GROQ_API_KEY',
    contextWindow: 131_072,
    exampleModel: 'llama-3.3-70b-versatile',
    local: false,
    docs: 'Create a key at https://console.groq.com/keys. Free tier rate limits are low; pair it with a fallback.',
  },
  {
    name: 'mistral',
    label: 'Mistral AI',
    protocol: 'openai',
    baseUrl: 'https://api.mistral.ai/v1',
    apiKeyEnv: 'MISTRAL_API_KEY',
    contextWindow: 128_000,
    exampleModel: 'mistral-large-latest',
    local: false,
    docs: 'Create a key at https://console.mistral.ai/api-keys.',
  },
  {
    name: 'xai',
    label: 'xAI',
    protocol: 'openai',
    baseUrl: 'https://api.x.ai/v1',
    apiKeyEnv: 'XAI_API_KEY',
    contextWindow: 128_000,
    exampleModel: 'grok-4',
    local: false,
    docs: 'Create a key at https://console.x.ai.',
  },
  {
    name: 'together',
    label: 'Together AI',
    protocol: 'openai',
    baseUrl: 'https://api.together.xyz/v1',
    apiKeyEnv: 'TOGETHER_API_KEY',
    contextWindow: 128_000,
    exampleModel: 'meta-llama/Llama-3.3-70B-Instruct-Turbo',
    local: false,
    docs: 'Create a key at https://api.together.ai/settings/api-keys.',
  },
  {
    name: 'moonshot',
    label: 'Moonshot AI (Kimi)',
    protocol: 'openai',
    baseUrl: 'https://api.moonshot.cn/v1',
    apiKeyEnv: 'MOONSHOT_API_KEY',
    contextWindow: 128_000,
    exampleModel: 'kimi-k2-0905-preview',
    local: false,
    docs: 'Create a key at https://platform.moonshot.cn. Outside China use base_url https://api.moonshot.ai/v1.',
  },
  {
    name: 'dashscope',
    label: 'Alibaba Cloud Model Studio (Qwen)',
    protocol: 'openai',
    baseUrl: 'https://dashscope.aliyuncs.com/compatible-mode/v1',
    apiKeyEnv: 'DASHSCOPE_API_KEY',
    contextWindow: 128_000,
    exampleModel: 'qwen-plus',
    local: false,
    docs: 'Create a key in the Model Studio console. International accounts use dashscope-intl.aliyuncs.com.',
  },
  {
    name: 'github-models',
    label: 'GitHub Models',
    protocol: 'openai',
    baseUrl: 'https://models.github.ai/inference',
    apiKeyEnv: 'GITHUB_TOKEN',
    contextWindow: 8_000,
    exampleModel: 'openai/gpt-4.1-mini',
    local: false,
    docs: 'Use a fine-grained GitHub token with the models:read permission. Free tier caps requests at ~8k input tokens.',
  },
  {
    name: 'copilot',
    label: 'GitHub Copilot',
    protocol: 'openai',
    baseUrl: COPILOT_API_URL,
    apiKeyEnv: COPILOT_TOKEN_ENV,
    contextWindow: 64_000,
    exampleModel: 'gpt-4.1',
    local: false,
    headers: { ...COPILOT_EDITOR_HEADERS },
    auth: 'copilot',
    docs: 'Needs a Copilot subscription. Sign in with `wren models login copilot` (GitHub device flow); the token is kept in .env.',
  },
  {
    name: 'ollama',
    label: 'Ollama',
    protocol: 'openai',
    baseUrl: 'http://127.0.0.1:11434/v1',
    contextWindow: 8_192,
    exampleModel: 'qwen3:8b',
    local: true,
    docs: 'Run `ollama serve` and `ollama pull <model>`. Set OLLAMA_CONTEXT_LENGTH >= context_window: Ollama silently cuts longer prompts.',
  },
  {
    name: 'vllm',
    label: 'vLLM',
    protocol: 'openai',
    baseUrl: 'http://127.0.0.1:8000/v1',
    contextWindow: 32_768,
    exampleModel: 'Qwen/Qwen3-8B',
    local: true,
    docs: 'Run `vllm serve <model> --enable-auto-tool-choice --tool-call-parser <parser>` for tool calls.',
  },
  {
    name: 'lmstudio',
    label: 'LM Studio',
    protocol: 'openai',
    baseUrl: 'http://127.0.0.1:1234/v1',
    contextWindow: 8_192,
    exampleModel: 'qwen/qwen3-8b',
    local: true,
    docs: 'Start the server in LM Studio (Developer tab) and load a model with a context length >= context_window.',
  },
  {
    name: 'llamacpp',
    label: 'llama.cpp server',
    protocol: 'openai',
    baseUrl: 'http://127.0.0.1:8080/v1',
    contextWindow: 8_192,
    exampleModel: 'local-model',
    local: true,
    docs: 'Run `llama-server -m model.gguf --jinja -c 8192` (--jinja enables tool calls).',
  },
];

/** Every preset, in display order. Frozen: copy before changing. */
export const PROVIDER_PRESETS: readonly ProviderPreset[] = Object.freeze(
  presets.map((preset) => Object.freeze(preset)),
);

const aliases: Record<string, string> = {
  google: 'gemini',
  'google-native': 'gemini-native',
  claude: 'anthropic',
  'lm-studio': 'lmstudio',
  'llama.cpp': 'llamacpp',
  'llama-cpp': 'llamacpp',
  github: 'github-models',
  'github-copilot': 'copilot',
  qwen: 'dashscope',
  kimi: 'moonshot',
  grok: 'xai',
};

/** Finds a preset by name (case-insensitive, common aliases like `google` or `llama.cpp` accepted). */
export function findProviderPreset(name: string): ProviderPreset | undefined {
  const key = name.trim().toLowerCase();
  const resolved = aliases[key] ?? key;
  return PROVIDER_PRESETS.find((preset) => preset.name === resolved);
}

/** Finds the preset whose base URL matches (scheme, host, port and path; trailing slashes ignored). */
export function findProviderPresetByBaseUrl(baseUrl: string): ProviderPreset | undefined {
  const normalize = (url: string) =>
    url.trim().replace(/\/+$/, '').toLowerCase().replace('//localhost', '//127.0.0.1');
  const wanted = normalize(baseUrl);
  return PROVIDER_PRESETS.find((preset) => normalize(preset.baseUrl) === wanted);
}
