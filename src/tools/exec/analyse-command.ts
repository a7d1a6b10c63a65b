import { RealPaths } from './real-paths.js';
import { walkScript } from './shell-commands.js';
import { checkScript, type Findings } from './shell-danger.js';
import type { AnalysisContext, ShellContext } from './shell-paths.js';

export type { ShellContext } from './shell-paths.js';

/** What Wren knows about a shell command before it runs. */
export interface CommandAnalysis {
  /** Set when the text is not valid shell: the command must not run. */
  parseError?: string;
  /** Danger signatures (`recursive delete of /`, `pipes into an interpreter (sh)` …), deduplicated. */
  signatures: string[];
  /** Why (part of) the command cannot be analysed (`eval`, a program name from a variable …). */
  unanalysable?: string;
  /** Programs the script runs at its own level, in order. */
  programs: string[];
  /** Hosts named in its arguments. */
  hosts: string[];
  /** Hosts it may connect to, as written (URL hosts, network clients' operands, `/dev/tcp/…`). */
  addresses: string[];
  /** It runs a program that reaches the network (curl, ssh, git push …). */
  network: boolean;
  /**
   * the script runs an interpreter on a file or a local executable (`python3 sync.py`, `bash deploy.sh`,
   * `./run.sh`). Also set for `source`, task runners (`make`, `npm test` …) and interpreters given inline
   * code or a module: code whose behaviour the analysis cannot see.
   */
  runsScript: boolean;
}

/** Commands longer than this are not analysed (and not run). */
export const MAX_COMMAND_CHARS = 64 * 1024;

/**
 * Parses `command` with a real bash parser (sh-syntax, mvdan/sh compiled to wasm) to reject what is not
 * valid shell, then walks every simple command — in pipelines, lists, subshells, groups, function bodies,
 * `$(…)`, backticks, `<(…)`, heredocs, `sh -c '…'` strings and wrapper commands (`sudo`, `env`, `xargs`,
 * `find -exec` …) — and checks each against the danger rules. Paths are followed through links that exist
 * now (see RealPaths) and through those the command makes. Never throws.
 */
export async function analyseCommand(command: string, ctx: ShellContext): Promise<CommandAnalysis> {
  const analysis: CommandAnalysis = {
    signatures: [],
    programs: [],
    hosts: [],
    addresses: [],
    network: false,
    runsScript: false,
  };
  if (command.trim() === '') return { ...analysis, parseError: 'the command is empty' };
  if (command.length > MAX_COMMAND_CHARS)
    return { ...analysis, parseError: `the command is longer than ${MAX_COMMAND_CHARS} characters` };
  if (command.includes('\0')) return { ...analysis, parseError: 'the command contains a NUL byte' };
  try {
    // The wasm parser loads on the first command, not at start-up.
    const { parse } = await import('sh-syntax');
    await parse(command);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { ...analysis, parseError: message.replace(/^<standard input>:/, 'at ') };
  }
  const findings: Findings = {
    signatures: new Set(),
    unanalysable: [],
    programs: [],
    hosts: [],
    addresses: [],
    network: false,
    runsScript: false,
    clearsMarker: false,
    detaches: false,
  };
  // Links that exist now are followed where paths lead (the file system is read, never written).
  const context: AnalysisContext = { ...ctx, links: new Map(), real: new RealPaths(ctx) };
  try {
    checkScript(walkScript(command), context, findings);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    findings.unanalysable.push(`shell syntax Wren cannot analyse (${detail})`);
  }
  return {
    signatures: [...findings.signatures],
    ...(findings.unanalysable.length > 0 ? { unanalysable: findings.unanalysable.join('; ') } : {}),
    programs: findings.programs,
    hosts: findings.hosts,
    addresses: findings.addresses,
    network: findings.network,
    runsScript: findings.runsScript,
  };
}
