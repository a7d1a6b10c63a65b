import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { COPILOT_TOKEN_URL } from '../llm/copilot-auth.js';
import { findProviderPreset } from '../llm/provider-presets.js';
import { ConfigError } from '../util/config-error.js';
import { loadConfig, resolveEndpoints } from './load-config.js';

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'wren-copilot-config-'));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const TOKEN = 'gho_configTestToken0123456789';
const entry = (extra = '') =>
  `models:\n  - name: copilot\n    provider: copilot\n    model: gpt-4.1\n${extra}`;

function loadError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(home, env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('expected loadConfig to throw');
}

describe('provider: copilot', () => {
  it('reads the GitHub token from .env, sends the editor headers and follows the API base of the exchange', () => {
    writeFileSync(join(home, 'config.yaml'), entry());
    writeFileSync(join(home, '.env'), `WREN_COPILOT_GITHUB_TOKEN=${TOKEN}\n`, { mode: 0o600 });
    const [endpoint] = resolveEndpoints(loadConfig(home, {}));
    expect(endpoint).toMatchObject({
      protocol: 'openai',
      baseUrl: 'https://api.githubcopilot.com',
      apiKey: TOKEN,
      contextWindow: 64_000,
      copilot: { tokenUrl: COPILOT_TOKEN_URL, useTokenApiBase: true },
    });
    expect(endpoint?.headers).toMatchObject({
      'Editor-Version': expect.stringMatching(/^vscode\//),
      'Editor-Plugin-Version': expect.stringMatching(/^copilot-chat\//),
      'Copilot-Integration-Id': 'vscode-chat',
      'User-Agent': expect.stringMatching(/^GitHubCopilotChat\//),
    });
    expect(findProviderPreset('github-copilot')?.name).toBe('copilot');
  });

  it('keeps an explicit base_url, takes the exchange from WREN_COPILOT_TOKEN_URL and lets headers override', () => {
    writeFileSync(
      join(home, 'config.yaml'),
      entry('    base_url: http://127.0.0.1:9/api/\n    headers: { Editor-Version: "vscode/9.9.9" }\n'),
    );
    const [endpoint] = resolveEndpoints(
      loadConfig(home, {
        WREN_COPILOT_GITHUB_TOKEN: TOKEN,
        WREN_COPILOT_TOKEN_URL: 'http://127.0.0.1:9/copilot_internal/v2/token/',
      }),
    );
    expect(endpoint?.baseUrl).toBe('http://127.0.0.1:9/api');
    expect(endpoint?.copilot).toEqual({
      tokenUrl: 'http://127.0.0.1:9/copilot_internal/v2/token',
      useTokenApiBase: false,
    });
    expect(endpoint?.headers?.['Editor-Version']).toBe('vscode/9.9.9');
    expect(endpoint?.headers?.['Copilot-Integration-Id']).toBe('vscode-chat');
  });

  it('says to sign in when no GitHub token is saved', () => {
    writeFileSync(join(home, 'config.yaml'), entry());
    const error = loadError({});
    expect(error.message).toContain('WREN_COPILOT_GITHUB_TOKEN');
    expect(error.message).toContain('wren models login copilot');
    expect(error.envVar).toBe('WREN_COPILOT_GITHUB_TOKEN');
  });

  it('accepts a disabled Copilot model without a token', () => {
    writeFileSync(join(home, 'config.yaml'), entry('    enabled: false\n'));
    expect(resolveEndpoints(loadConfig(home, {}))[0]?.enabled).toBe(false);
  });

  it('refuses a token exchange address that is not http(s), naming the variable', () => {
    writeFileSync(join(home, 'config.yaml'), entry());
    const error = loadError({ WREN_COPILOT_GITHUB_TOKEN: TOKEN, WREN_COPILOT_TOKEN_URL: 'ftp://example' });
    expect(error.message).toMatch(/WREN_COPILOT_TOKEN_URL must be an http\(s\) URL/);
  });

  it('refuses another wire protocol', () => {
    writeFileSync(join(home, 'config.yaml'), entry('    protocol: anthropic\n'));
    expect(loadError({ WREN_COPILOT_GITHUB_TOKEN: TOKEN }).message).toMatch(
      /models\[0\]\.protocol.*OpenAI chat API only/,
    );
  });

  it('leaves other providers without a Copilot part', () => {
    writeFileSync(join(home, 'config.yaml'), 'models:\n  - name: m\n    provider: openai\n    model: x\n');
    expect(resolveEndpoints(loadConfig(home, { OPENAI_API_KEY: 'sk-123456' }))[0]?.copilot).toBeUndefined();
  });
});
