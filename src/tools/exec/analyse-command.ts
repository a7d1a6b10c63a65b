import { analyseScript, type CommandAnalysis, type ShellContext } from '../../shell/index.js';
import { RealPaths } from './real-paths.js';

export type { CommandAnalysis, ShellContext } from '../../shell/index.js';

/** Commands longer than this are not analysed (and not run). */
export const MAX_COMMAND_CHARS = 64 * 1024;

/**
 * Parses `command` with a real bash parser (sh-syntax, mvdan/sh compiled to wasm) to reject what is not
 * valid shell, then has the shell analyser (src/shell, analyseScript) walk every simple command and check
 * it against the danger rules. Paths are followed through links that exist now (read from disk here, see
 * RealPaths) and through those the command makes. Never throws.
 */
export async function analyseCommand(command: string, ctx: ShellContext): Promise<CommandAnalysis> {
  const refused = (parseError: string): CommandAnalysis => ({
    signatures: [],
    programs: [],
    hosts: [],
    addresses: [],
    network: false,
    runsScript: false,
    parseError,
  });
  if (command.trim() === '') return refused('the command is empty');
  if (command.length > MAX_COMMAND_CHARS)
    return refused(`the command is longer than ${MAX_COMMAND_CHARS} characters`);
  if (command.includes('\0')) return refused('the command contains a NUL byte');
  try {
    // The wasm parser loads on the first command, not at start-up.
    const { parse } = await import('sh-syntax');
    await parse(command);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return refused(message.replace(/^<standard input>:/, 'at '));
  }
  // Links that exist now are followed where paths lead (the file system is read, never written).
  return analyseScript(command, ctx, new RealPaths(ctx));
}
