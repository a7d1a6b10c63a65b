import { walkScript } from './shell-commands.js';
import { checkScript, type Findings } from './shell-danger.js';
import type { AnalysisContext, ExistingLinks, ShellContext } from './shell-paths.js';

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

/**
 * Walks every simple command of `command` (already known to be valid shell) — in pipelines, lists,
 * subshells, groups, function bodies, `$(…)`, backticks, `<(…)`, heredocs, `sh -c '…'` strings and wrapper
 * commands (`sudo`, `env`, `xargs`, `find -exec` …) — and checks each against the danger rules. Paths are
 * followed through the links the command makes and, when `existing` is given, through those on disk now.
 * Pure: no I/O but what `existing` does. Never throws: syntax the walk does not follow is unanalysable.
 */
export function analyseScript(command: string, ctx: ShellContext, existing?: ExistingLinks): CommandAnalysis {
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
  const context: AnalysisContext = { ...ctx, links: new Map(), ...(existing ? { real: existing } : {}) };
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
