import type { Cwd } from './resolve-paths.js';
import type { AnalysisContext, WordValue } from './shell-paths.js';

/** What a rule family sees of the check in progress, and how it reports what it finds. */
export interface RuleHost {
  readonly ctx: AnalysisContext;
  /** The working folders the command being checked may run in (undefined: known only at run time). */
  readonly cwds: readonly Cwd[];
  /** Adds a danger signature. */
  flag(signature: string): void;
  /** Records why (part of) the command cannot be analysed. */
  cannot(reason: string): void;
  /** Checks a script given as text (`sh -c '…'`, `su -c`, a heredoc fed to a shell), one level deeper. */
  nestedScript(text: string, where: string): void;
  /** Checks a command given as words (`git submodule foreach cmd args`), like one the script runs. */
  nestedCommand(values: WordValue[], where: string): void;
  /** Notes that the command runs code from a file or a local program. */
  runsScript(): void;
  /** Notes that the command reaches the network, or a host it names. */
  network(): void;
  host(name: string): void;
  /** Notes a host the command may connect to, as written (judged local or not by the exec tool). */
  address(name: string): void;
  /** Half of hiding processes from Wren's clean-up: clearing the run marker, or detaching a process. */
  hides(part: 'clears' | 'detaches'): void;
}
