import { describe, expect, it } from 'vitest';
import { findProviderPreset, findProviderPresetByBaseUrl, PROVIDER_PRESETS } from './provider-presets.js';

const REQUIRED = [
  'openai',
  'anthropic',
  'gemini',
  'deepseek',
  'openrouter',
  'groq',
  'mistral',
  'ollama',
  'vllm',
  'lmstudio',
  'llamacpp',
  'github-models',
];

describe('provider presets', () => {
  it('cover the required providers with complete, unique entries', () => {
    const names = PROVIDER_PRESETS.map((preset) => preset.name);
    expect(names).toEqual(expect.arrayContaining(REQUIRED));
    expect(new Set(names).size).toBe(names.length);
    for (const preset of PROVIDER_PRESETS) {
      expect(['openai', 'anthropic', 'gemini']).toContain(preset.protocol);
      expect(() => new URL(preset.baseUrl)).not.toThrow();
      expect(preset.baseUrl.endsWith('/')).toBe(false);
      expect(preset.contextWindow).toBeGreaterThanOrEqual(4_096);
      expect(preset.docs.length).toBeGreaterThan(10);
      if (preset.local) expect(preset.apiKeyEnv).toBeUndefined();
      else expect(preset.apiKeyEnv).toMatch(/^[A-Z][A-Z_]+$/);
    }
  });

  it('point local servers at 127.0.0.1 on their usual ports', () => {
    const port = (name: string) => new URL(findProviderPreset(name)!.baseUrl).port;
    expect(findProviderPreset('ollama')!.baseUrl).toBe('http://127.0.0.1:11434/v1');
    expect([port('vllm'), port('lmstudio'), port('llamacpp')]).toEqual(['8000', '1234', '8080']);
  });

  it("use Google's OpenAI-compatible endpoint for gemini", () => {
    expect(findProviderPreset('gemini')).toMatchObject({
      protocol: 'openai',
      baseUrl: 'https://generativelanguage.googleapis.com/v1beta/openai',
      apiKeyEnv: 'GEMINI_API_KEY',
    });
    expect(findProviderPreset('gemini-native')?.protocol).toBe('gemini');
  });

  it('look up by name case-insensitively, by alias, and by base URL', () => {
    expect(findProviderPreset('DeepSeek')?.name).toBe('deepseek');
    expect(findProviderPreset('llama.cpp')?.name).toBe('llamacpp');
    expect(findProviderPreset('google')?.name).toBe('gemini');
    expect(findProviderPreset('nope')).toBeUndefined();
    expect(findProviderPresetByBaseUrl('https://api.groq.com/openai/v1/')?.name).toBe('groq');
    expect(findProviderPresetByBaseUrl('http://localhost:11434/v1')?.name).toBe('ollama');
  });

  it('are frozen', () => {
    expect(Object.isFrozen(PROVIDER_PRESETS)).toBe(true);
    expect(Object.isFrozen(PROVIDER_PRESETS[0])).toBe(true);
  });
});
