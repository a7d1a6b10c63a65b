import { ToolError } from '../agent/tool.js';
import {
  replaceVaultReferences,
  resolveVault,
  type VaultOpener,
  vaultReferences,
} from './vault-references.js';

/**
 * Names `env` may not set: they change how the shell, the loader or an interpreter behaves before or beside
 * the command (code the command analysis never saw).
 */
const RESERVED_ENV =
  /^(PATH|HOME|IFS|ENV|BASH_ENV|SHELLOPTS|BASHOPTS|PS4|PROMPT_COMMAND|CDPATH|GLOBIGNORE|NODE_OPTIONS|RUBYOPT|RUBYLIB|PERLLIB|LESSOPEN|LESSCLOSE|JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|LD_.*|DYLD_.*|BASH_FUNC_.*|WREN_.*|PYTHON.*|PERL5.*|GIT_.*)$/i;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/** The variable that carries a secret referenced in an exec command (the value never enters shell source). */
export const commandVariable = (name: string) => `WREN_VAULT_${name}`;

/**
 * What exec runs for a call with vault references: in `command`, each `{{vault:NAME}}` becomes the expansion
 * `${WREN_VAULT_NAME}` (so the value is never shell source: quotes or `$` in it cannot change the command;
 * write it inside double quotes), and the variables to add: those of `env` with references resolved, plus
 * one `WREN_VAULT_NAME` per secret the command names.
 * @throws ToolError for an `env` name that is not a plain variable or is reserved (PATH, LD_*, BASH_ENV …).
 */
export function execVaultPlan(
  command: string,
  env: Record<string, string> | undefined,
  opener: VaultOpener | undefined,
): { command: string; env: Record<string, string> } {
  const extra: Record<string, string> = {};
  for (const [name, value] of Object.entries(env ?? {})) {
    if (!ENV_NAME.test(name) || RESERVED_ENV.test(name))
      throw new ToolError(
        `env may not set ${name.slice(0, 80)}: pick a plain name of your own (e.g. API_TOKEN).`,
      );
    // `env` carries secrets only; a plain variable belongs in the command, where the analysis sees it.
    if (vaultReferences(value).length === 0)
      throw new ToolError(`env ${name} holds no {{vault:NAME}}; set plain variables in the command itself.`);
    extra[name] = resolveVault(value, opener);
  }
  const names = vaultReferences(command);
  if (names.length === 0) return { command, env: extra };
  for (const name of names) extra[commandVariable(name)] = resolveVault(`{{vault:${name}}}`, opener);
  return { command: replaceVaultReferences(command, (name) => `\${${commandVariable(name)}}`), env: extra };
}
