import type { Tool, ToolAssessment } from '../agent/tool.js';
import type { VaultBindings } from '../store/vault-repository.js';
import { permitVault, vaultReferences } from '../vault/vault-references.js';
import type { VaultService } from '../vault/vault-service.js';
import { globMatch, type PolicyDecision, type TaintMark } from './evaluate-policy.js';

/** What the gate learns about a call's `{{vault:…}}` references before it decides. */
export type VaultCheck =
  | { names: [] }
  /** The call cannot run: the reason names the secrets, never a value. */
  | { names: string[]; deny: string }
  /** Danger signatures (empty: every use is within its secret's bindings and the session is clean). */
  | { names: string[]; dangers: string[] };

const KIND_WORDS = { hosts: 'host', programs: 'program', mcp: 'MCP server' } as const;

/** Whether `destination` is one `allowed` names (hosts and programs may use globs: `*.example.com`). */
function bound(allowed: readonly string[], destination: string, kind: keyof typeof KIND_WORDS): boolean {
  const wanted = kind === 'hosts' ? destination.toLowerCase() : destination;
  return allowed.some((item) => item === wanted || (kind !== 'mcp' && globMatch(item, wanted)));
}

/**
 * Checks a call's vault references: unknown names, or a tool that takes none, deny (rule `secrets`); each
 * destination the tool's assessment names (exec: every program; web_fetch: the host; MCP: the server) outside
 * a secret's bindings, no destination known, or a session tainted by untrusted content, is a danger
 * signature: the call asks the owner, once. Pure.
 */
export function checkVaultUse(input: {
  tool: Pick<Tool, 'name' | 'vaultTarget'>;
  args: Record<string, unknown>;
  assessment: ToolAssessment;
  bindingsOf: (name: string) => VaultBindings | undefined;
  taint: readonly TaintMark[];
}): VaultCheck {
  const names = vaultReferences(input.args);
  if (names.length === 0) return { names: [] };
  const kind = input.tool.vaultTarget;
  if (!kind)
    return {
      names,
      deny: `${input.tool.name} does not take {{vault:…}} references (exec, web_fetch and MCP tools do).`,
    };
  const unknown = names.filter((name) => !input.bindingsOf(name));
  if (unknown.length > 0)
    return {
      names,
      deny: `No vault secret named ${unknown.join(', ')} (\`wren vault list\` shows the names; \`wren vault set NAME\` adds one).`,
    };
  const destinations = input.assessment.target?.split(kind === 'programs' ? '+' : ',').filter(Boolean) ?? [];
  const dangers: string[] = [];
  for (const name of names) {
    const allowed = input.bindingsOf(name)![kind] ?? [];
    if (destinations.length === 0) {
      dangers.push(`sends vault secret ${name} where the gate cannot tell (no ${KIND_WORDS[kind]} known)`);
      continue;
    }
    const outside = destinations.filter((destination) => !bound(allowed, destination, kind));
    if (outside.length > 0)
      dangers.push(
        `sends vault secret ${name} to ${KIND_WORDS[kind]} ${outside.join(', ')}, not among its bindings (${allowed.join(', ') || 'none'})`,
      );
  }
  const untrusted = input.taint.filter((mark) => mark.kind === 'untrusted');
  if (untrusted.length > 0) {
    const sources = [...new Set(untrusted.map((mark) => mark.source))].slice(0, 3).join(', ');
    dangers.push(
      `uses vault secret ${names.join(', ')} in a session that read untrusted content (from ${sources})`,
    );
  }
  return { names, dangers };
}

/**
 * A vault secret going outside its bindings, or used after untrusted content, asks whatever the rules and
 * grants say (rule `vault`, approvable once: binding the secret is how the owner makes a use standing).
 * Mutates `decision`; returns the assessment with the dangers added, for what the approval shows.
 */
export function escalateVaultUse(
  decision: PolicyDecision,
  use: VaultCheck,
  assessment: ToolAssessment,
): ToolAssessment {
  if (!('dangers' in use) || use.dangers.length === 0 || decision.action === 'deny') return assessment;
  const reason = `Danger signature: ${use.dangers.join('; ')}.`;
  if (decision.action === 'allow') Object.assign(decision, { action: 'ask', rule: 'vault', reason });
  else decision.reason = `${decision.reason} ${reason}`;
  decision.onceOnly = true;
  return { ...assessment, signatures: [...(assessment.signatures ?? []), ...use.dangers] };
}

/**
 * For a call the gate let through: its execute may open the secrets it references, and only those. Values
 * are never put into the arguments, so the audit, the transcript and approvals keep `{{vault:NAME}}`.
 */
export function permitVaultUse(args: Record<string, unknown>, vault: Pick<VaultService, 'open'>): void {
  const names = new Set(vaultReferences(args));
  if (names.size === 0) return;
  permitVault(args, (name) => {
    if (!names.has(name))
      throw new Error(`vault secret ${name} was not part of the call the gate let through`);
    return vault.open(name);
  });
}
