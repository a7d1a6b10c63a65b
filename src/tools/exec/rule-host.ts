import type { Cwd } from './resolve-paths.js';
import type { ShellContext } from './shell-paths.js';

/** What a rule family sees of the check in progress, and how it reports what it finds. */
export interface RuleHost {
  readonly ctx: ShellContext;
  /** The working folders the command being checked may run in (undefined: known only at run time). */
  readonly cwds: readonly Cwd[];
  /** Adds a danger signature. */
  flag(signature: string): void;
  /** Records why (part of) the command cannot be analysed. */
  cannot(reason: string): void;
  /** Checks a script given as text (`sh -c '…'`, `su -c`, a heredoc fed to a shell), one level deeper. */
  nestedScript(text: string, where: string): void;
  /** Notes that the command runs code from a file or a local program. */
  runsScript(): void;
}
