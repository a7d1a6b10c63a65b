import {
  COPILOT_EDITOR_HEADERS,
  COPILOT_SCOPE,
  type CopilotSettings,
  copilotSettings,
  httpUrl,
} from '../llm/copilot-auth.js';
import { CopilotTokenSource } from '../llm/copilot-token-source.js';
import { runDeviceFlow } from '../llm/run-device-flow.js';
import { mergeEnv, readDotEnv } from '../util/interpolate.js';

/** Flags of `wren models login copilot`; each wins over its environment variable. */
export interface CopilotSignInFlags {
  clientId?: string;
  githubUrl?: string;
  tokenUrl?: string;
}

/** What a finished sign-in gives: the long-lived GitHub token (a secret: store it, never show it). */
export interface CopilotSignIn {
  githubToken: string;
  /** The chat API the account was given (`endpoints.api` of the exchange), when GitHub named one. */
  apiBase?: string;
}

/**
 * The device flow's and the exchange's settings: flags, then the environment, then `<home>/.env`, then the
 * defaults. @throws Error naming the flag or variable when a URL is not http(s).
 */
export function signInSettings(
  home: string,
  flags: CopilotSignInFlags,
  env: NodeJS.ProcessEnv,
): CopilotSettings {
  const fromEnv = copilotSettings(mergeEnv(readDotEnv(home), env));
  return {
    clientId: flags.clientId?.trim() || fromEnv.clientId,
    githubUrl: flags.githubUrl ? httpUrl(flags.githubUrl, '--github-url') : fromEnv.githubUrl,
    tokenUrl: flags.tokenUrl ? httpUrl(flags.tokenUrl, '--token-url') : fromEnv.tokenUrl,
  };
}

/**
 * Signs in to GitHub with the device flow (`say` shows the code and where to enter it), then exchanges the
 * new token once to prove the account may use Copilot. Nothing is stored here.
 * @throws DeviceFlowError (expired, denied, refused, unreachable) or CopilotTokenError (no Copilot access,
 * exchange unreachable) with a message for the user; the signal's reason on abort.
 */
export async function signInToCopilot(
  options: { settings: CopilotSettings; say: (line: string) => void },
  signal?: AbortSignal,
): Promise<CopilotSignIn> {
  const { settings, say } = options;
  const githubToken = await runDeviceFlow(
    {
      githubUrl: settings.githubUrl,
      clientId: settings.clientId,
      scope: COPILOT_SCOPE,
      headers: { 'User-Agent': COPILOT_EDITOR_HEADERS['User-Agent']! },
      onCode: (code) => {
        const minutes = Math.max(1, Math.round(code.expiresInSeconds / 60));
        say(`Sign in to GitHub Copilot: open ${code.verificationUri} and enter the code ${code.userCode}`);
        say(`(the code is valid for ${minutes} minute${minutes === 1 ? '' : 's'}; Ctrl+C cancels)`);
        say('Waiting for GitHub…');
      },
    },
    signal,
  );
  const check = new CopilotTokenSource({
    githubToken,
    tokenUrl: settings.tokenUrl,
    headers: COPILOT_EDITOR_HEADERS,
  });
  const token = await check.get(signal);
  return { githubToken, ...(token.apiBase ? { apiBase: token.apiBase } : {}) };
}
