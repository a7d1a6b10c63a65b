import { join } from 'node:path';
import { setEnvVar } from '../../config/config-writer.js';
import { ensureHome } from '../../config/home.js';
import { loadConfig } from '../../config/load-config.js';
import { COPILOT_TOKEN_ENV } from '../../llm/copilot-auth.js';
import { type CopilotSignInFlags, signInSettings, signInToCopilot } from '../copilot-sign-in.js';
import { EXIT } from '../report-failure.js';

const out = (line: string) => process.stdout.write(`${line}\n`);

/**
 * `wren models login copilot`: GitHub's device flow, a check that the account may use Copilot, then the
 * GitHub token saved to `<home>/.env` (0600) as WREN_COPILOT_GITHUB_TOKEN. The token is never printed.
 * Failures throw with a message for the user (exit 1); nothing is saved then.
 */
export async function runModelsLogin(
  options: { home: string; provider: string } & CopilotSignInFlags,
): Promise<number> {
  const provider = options.provider.trim().toLowerCase();
  if (provider !== 'copilot' && provider !== 'github-copilot') {
    process.stderr.write(
      `wren: only copilot signs in (\`wren models login copilot\`); "${options.provider}" takes an API key: ` +
        'run `wren onboard`, or put the key in .env\n',
    );
    return EXIT.usage;
  }
  const { home } = options;
  ensureHome(home);
  const settings = signInSettings(home, options, process.env);
  const signIn = await signInToCopilot({ settings, say: out });
  setEnvVar(home, COPILOT_TOKEN_ENV, signIn.githubToken);
  const api = signIn.apiBase ? ` (chat API ${signIn.apiBase})` : '';
  out(`Signed in; this GitHub account can use Copilot${api}.`);
  out(`Saved the GitHub token to ${join(home, '.env')} as ${COPILOT_TOKEN_ENV}.`);
  if (process.env[COPILOT_TOKEN_ENV])
    out(
      `Note: ${COPILOT_TOKEN_ENV} is also set in this shell's environment, which wins over .env; unset it ` +
        'so Wren uses the new token.',
    );
  out(nextStep(home));
  return EXIT.ok;
}

/** What to do next: test the Copilot models config.yaml has, or add one. */
function nextStep(home: string): string {
  let names: string[] = [];
  try {
    names = loadConfig(home).models.flatMap((model) => (model.provider === 'copilot' ? [model.name] : []));
  } catch {
    // A config that does not load yet is reported by the commands that need it.
  }
  if (names.length > 0) return `Test it with \`wren models test ${names[0]}\`.`;
  return [
    'Add a model to config.yaml (or run `wren onboard`):',
    '  models:',
    '    - name: copilot',
    '      provider: copilot',
    '      model: gpt-4.1',
  ].join('\n');
}
