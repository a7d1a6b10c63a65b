/**
 * GitHub Copilot as a model provider: the addresses, the OAuth client and the editor headers its API expects,
 * and where each can be overridden. Everything here is a default; `copilotSettings` applies the environment.
 */
import type { CopilotAuth } from './endpoint.js';

/** The `.env` variable `wren models login copilot` stores the long-lived GitHub token in. */
export const COPILOT_TOKEN_ENV = 'WREN_COPILOT_GITHUB_TOKEN';

/** Environment variables that override the defaults below (flags of `wren models login copilot` win). */
export const COPILOT_ENV = {
  clientId: 'WREN_COPILOT_CLIENT_ID',
  githubUrl: 'WREN_COPILOT_GITHUB_URL',
  tokenUrl: 'WREN_COPILOT_TOKEN_URL',
} as const;

/**
 * The OAuth client id of GitHub's Copilot editor integration (the one VS Code and copilot.vim sign in with).
 * The Copilot token exchange only accepts GitHub tokens issued to clients GitHub enabled for Copilot, so a
 * client id of one's own OAuth app does not work there.
 */
export const COPILOT_CLIENT_ID = 'Iv1.b507a08c87ecfe98';
/** Where the device flow runs: `<url>/login/device/code` and `<url>/login/oauth/access_token`. */
export const COPILOT_GITHUB_URL = 'https://github.com';
/** Exchanges the GitHub token for a short-lived Copilot API token. */
export const COPILOT_TOKEN_URL = 'https://api.github.com/copilot_internal/v2/token';
/** The chat API when the exchange names none (OpenAI-compatible: `<url>/chat/completions`). */
export const COPILOT_API_URL = 'https://api.githubcopilot.com';
/** The scope the device flow asks for; the exchange needs no more. */
export const COPILOT_SCOPE = 'read:user';

/**
 * Headers Copilot's API expects from an editor integration; sent on the token exchange and every chat call.
 * They are the preset's `headers`, so a models entry's `headers:` can override each one.
 */
export const COPILOT_EDITOR_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Editor-Version': 'vscode/1.99.3',
  'Editor-Plugin-Version': 'copilot-chat/0.26.7',
  'Copilot-Integration-Id': 'vscode-chat',
  'User-Agent': 'GitHubCopilotChat/0.26.7',
});

/** The device flow's and the exchange's settings in force. */
export interface CopilotSettings {
  clientId: string;
  githubUrl: string;
  tokenUrl: string;
}

/**
 * The settings from `env` (blank values count as unset), defaults otherwise; URLs lose trailing slashes.
 * @throws Error naming the variable when a URL in it is not http(s).
 */
export function copilotSettings(env: Readonly<Record<string, string | undefined>>): CopilotSettings {
  const pick = (name: string) => env[name]?.trim() || undefined;
  return {
    clientId: pick(COPILOT_ENV.clientId) ?? COPILOT_CLIENT_ID,
    githubUrl: httpUrl(pick(COPILOT_ENV.githubUrl) ?? COPILOT_GITHUB_URL, COPILOT_ENV.githubUrl),
    tokenUrl: httpUrl(pick(COPILOT_ENV.tokenUrl) ?? COPILOT_TOKEN_URL, COPILOT_ENV.tokenUrl),
  };
}

/**
 * The `copilot` part of a Copilot endpoint. `explicitBaseUrl`: the user set `base_url`, which then wins over
 * the API address the exchange names. @throws Error naming WREN_COPILOT_TOKEN_URL when it is not http(s).
 */
export function copilotAuth(
  env: Readonly<Record<string, string | undefined>>,
  explicitBaseUrl: boolean,
): CopilotAuth {
  const tokenUrl = env[COPILOT_ENV.tokenUrl]?.trim() || COPILOT_TOKEN_URL;
  return { tokenUrl: httpUrl(tokenUrl, COPILOT_ENV.tokenUrl), useTokenApiBase: !explicitBaseUrl };
}

/** `value` without trailing slashes. @throws Error naming `source` when it is not an http(s) URL. */
export function httpUrl(value: string, source: string): string {
  const trimmed = value.trim().replace(/\/+$/, '');
  if (/^https?:\/\/[^\s/]+/.test(trimmed) && URL.canParse(trimmed)) return trimmed;
  throw new Error(`${source} must be an http(s) URL such as https://github.com (got "${value}")`);
}
