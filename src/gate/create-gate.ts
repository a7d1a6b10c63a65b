import type { Tool, ToolAssessment, ToolContext, ToolResult } from '../agent/tool.js';
import type { AfterToolCall, BeforeToolCall } from '../agent/tool-registry.js';
import type { MessageBus } from '../bus/message-bus.js';
import type { ApprovalAnswerResult, ApprovalChoice, ApprovalRequest } from '../bus/messages.js';
import type { AuditEntry, AuditQuery, NewAuditEntry } from '../store/audit-repository.js';
import type { Grant, NewGrant } from '../store/grant-repository.js';
import type { Stores } from '../store/open-stores.js';
import type { VaultService } from '../vault/vault-service.js';
import { ApprovalBroker, type ApprovalResult } from './approval-broker.js';
import { evaluatePolicy, type PolicyDecision, type TaintMark } from './evaluate-policy.js';
import { createEventRedactor } from './event-redactor.js';
import type { GateConfig } from './gate-config.js';
import { Redactor, resolveSecretsInPlace, secretReferences } from './redactor.js';
import { checkVaultUse, escalateVaultUse, permitVaultUse } from './vault-check.js';

export interface GateDeps {
  /** Read at every call, so config reloads apply to the next call. */
  config: () => GateConfig;
  /** The home's stores: audit log, grants, session taint, pending approvals. */
  stores: Pick<Stores, 'audit' | 'grants' | 'taint' | 'approvals'>;
  /** Approval requests and resolutions go out here; answers come back through `bus.answerApproval`. */
  bus?: MessageBus;
  now?: () => number;
  /** Share one redactor with the logger; the gate keeps it current with `gate.secrets`. */
  redactor?: Redactor;
  /** Other secret values to redact (model API keys, `.env` values, the gateway token); read on config changes. */
  extraSecrets?: () => string[];
  /** The home's vault: `{{vault:NAME}}` references are checked against its bindings and opened by the call. */
  vault?: VaultService;
  /** A request that waited through a restart was answered, expired or cancelled (its turn is gone). */
  onResumedAnswer?: (request: ApprovalRequest, result: ApprovalResult) => void;
}

/** What the composition root wires: the two tool hooks plus views for the CLI and the HTTP API. */
export interface Gate {
  beforeToolCall: BeforeToolCall;
  afterToolCall: AfterToolCall;
  approvals: {
    /** Calls waiting for the owner, oldest first. */
    pending(): ApprovalRequest[];
    /** Answers one; `by` is recorded (e.g. `api`, `cli`). */
    answer(id: string, choice: ApprovalChoice, by: string): ApprovalAnswerResult;
    /** Asks again what a previous run left waiting (see ApprovalBroker.resume); how many. */
    resume(): number;
  };
  grants: {
    list(): Grant[];
    add(grant: NewGrant): Grant;
    revoke(id: string): boolean;
  };
  audit: { list(query?: AuditQuery): AuditEntry[] };
  taint: {
    of(sessionId: string): TaintMark[];
    /** Records that the session read content the owner did not write (e.g. a non-owner's message). Idempotent. */
    markUntrusted(sessionId: string, source: string): void;
  };
  /** Redacts every configured secret value; kept current with the config. Hand it to the logger too. */
  redactor: Redactor;
  /** The vault the gate checks `{{vault:NAME}}` against (when wired). */
  vault?: VaultService;
  /** Detaches from the bus and denies (as cancelled) every pending approval. Idempotent. */
  close(): void;
}

type Verdict = { allow: true; notice?: string } | { allow: false; reason: string };

/** Arguments longer than this are shown head + tail, and such a call can only be approved once. */
const MAX_SHOWN_ARGS = 8000;

function describeWait(seconds: number): string {
  return seconds >= 120 ? `${Math.round(seconds / 60)} minutes` : `${seconds} seconds`;
}

/**
 * Builds the gate: every tool call passes `beforeToolCall` (policy → grants → approval), every result passes
 * `afterToolCall` (taint, output redaction). Every decision is appended to the audit log with redacted
 * arguments. Never throws from a hook: a failure inside the gate denies the call.
 */
export function createGate(deps: GateDeps): Gate {
  const { audit, grants, taint } = deps.stores;
  const redactor = deps.redactor ?? new Redactor();
  let secretsInForce: GateConfig['secrets'] | undefined;
  const current = (): GateConfig => {
    const config = deps.config();
    if (config.secrets !== secretsInForce) {
      secretsInForce = config.secrets;
      redactor.update([...Object.values(config.secrets), ...(deps.extraSecrets?.() ?? [])]);
    }
    return config;
  };
  const broker = new ApprovalBroker({
    ...(deps.bus ? { bus: deps.bus } : {}),
    store: deps.stores.approvals,
    ...(deps.onResumedAnswer ? { onResumedAnswer: deps.onResumedAnswer } : {}),
    timeoutMs: () => current().approvalTimeoutSeconds * 1000,
    ...(deps.now ? { now: deps.now } : {}),
  });
  // Every stored vault value is redacted from the start, before any call opens one, from streamed text too.
  deps.vault?.learn();
  deps.bus?.filterEvents(createEventRedactor(redactor));
  deps.bus?.filterOutbound((message) => ({ ...message, text: redactor.text(message.text) }));
  const detachAnswers = deps.bus?.handleApprovalAnswers((answer) =>
    broker.answer(answer.id, answer.choice, answer.by),
  );
  const detachReplays = deps.bus?.handleApprovalReplays((channel) => broker.replay(channel));

  const shownArgs = (args: Record<string, unknown>) => {
    const text = redactor.text(JSON.stringify(args));
    if (text.length <= MAX_SHOWN_ARGS) return text;
    const half = MAX_SHOWN_ARGS / 2;
    return `${text.slice(0, half)} [… ${text.length - MAX_SHOWN_ARGS} characters not shown …] ${text.slice(-half)}`;
  };

  const record = (
    tool: Tool,
    args: Record<string, unknown>,
    ctx: ToolContext,
    entry: Pick<NewAuditEntry, 'rule' | 'decision' | 'outcome' | 'reason' | 'answer' | 'answeredBy'>,
  ) => {
    audit.append({
      ...entry,
      at: (deps.now ?? Date.now)(),
      sessionId: ctx.sessionId,
      channel: ctx.channel,
      senderId: ctx.senderId,
      tool: tool.name,
      args: shownArgs(args),
      reason: redactor.text(entry.reason),
    });
  };

  const allow = (tool: Tool, args: Record<string, unknown>, config: GateConfig, notice?: string): Verdict => {
    if (tool.acceptsSecrets) resolveSecretsInPlace(args, config.secrets);
    if (deps.vault) permitVaultUse(args, deps.vault);
    return notice ? { allow: true, notice: redactor.text(notice) } : { allow: true };
  };

  const secretProblem = (tool: Tool, args: Record<string, unknown>, config: GateConfig) => {
    const names = secretReferences(args);
    if (names.length === 0) return undefined;
    if (!tool.acceptsSecrets) {
      return `${tool.name} does not accept {{secret:…}} references; only tools that declare they accept secrets get them resolved.`;
    }
    const unknown = names.filter((name) => config.secrets[name] === undefined);
    if (unknown.length === 0) return undefined;
    const known = Object.keys(config.secrets).join(', ') || 'none';
    return `No secret named ${unknown.join(', ')} is configured (gate.secrets in config.yaml has: ${known}).`;
  };

  const ask = async (
    tool: Tool,
    args: Record<string, unknown>,
    ctx: ToolContext,
    decision: PolicyDecision,
    target: string | undefined,
    signal: AbortSignal,
    facts: string[],
  ): Promise<Verdict> => {
    const config = current();
    // After untrusted content, a grant for a program or a path does not cover sending data out: only a grant
    // bound to this very destination does.
    const grantable = !decision.onceOnly && (!decision.taintedEgress || target === decision.taintedEgress);
    if (grantable) {
      const grant = grants.take(tool.name, target, ctx.sessionId);
      if (grant) {
        const reason = `${decision.reason} Covered by the owner's ${grant.scope} grant ${grant.id}.`;
        record(tool, args, ctx, { rule: `grant:${grant.id}`, decision: 'ask', outcome: 'allowed', reason });
        return allow(tool, args, config);
      }
    }
    if (!ctx.interactive) {
      const reason = `${decision.reason} It needs the owner's approval, but this run cannot ask anyone (it is not interactive, e.g. \`wren chat -m\` or a scheduled run), so it was denied. Tell the user what you wanted to do: they can do it from \`wren chat\`, or allow it with a gate rule in config.yaml.`;
      record(tool, args, ctx, {
        rule: decision.rule,
        decision: 'ask',
        outcome: 'denied',
        answer: 'unattended',
        reason,
      });
      deps.bus?.publishApproval({
        type: 'approval-resolved',
        sessionId: ctx.sessionId,
        channel: ctx.channel,
        chatId: ctx.chatId,
        tool: tool.name,
        outcome: 'unattended',
        reason: redactor.text(reason),
      });
      return { allow: false, reason };
    }
    const result = await broker.request(
      {
        sessionId: ctx.sessionId,
        channel: ctx.channel,
        chatId: ctx.chatId,
        senderId: ctx.senderId,
        tool: tool.name,
        args: shownArgs(args),
        reason: redactor.text(decision.reason),
        ...(target !== undefined ? { target } : {}),
        ...(facts.length > 0 ? { facts: facts.map((fact) => redactor.text(fact)) } : {}),
        // What the owner cannot see in full may be approved once, never granted.
        choices:
          decision.onceOnly || JSON.stringify(args).length > MAX_SHOWN_ARGS
            ? ['once', 'deny']
            : ['once', 'session', 'always', 'deny'],
      },
      signal,
    );
    return settleAnswer(tool, args, ctx, decision, target, result, config);
  };

  const settleAnswer = (
    tool: Tool,
    args: Record<string, unknown>,
    ctx: ToolContext,
    decision: PolicyDecision,
    target: string | undefined,
    result: ApprovalResult,
    config: GateConfig,
  ): Verdict => {
    const base = { rule: decision.rule, decision: 'ask' as const, answer: result.outcome };
    const by = result.by ? { answeredBy: result.by } : {};
    if (result.outcome === 'session' || result.outcome === 'always') {
      grants.add({
        tool: tool.name,
        ...(target !== undefined ? { target } : {}),
        scope: result.outcome,
        ...(result.outcome === 'session' ? { sessionId: ctx.sessionId } : {}),
        createdBy: result.by ?? 'owner',
      });
    }
    if (result.outcome === 'once' || result.outcome === 'session' || result.outcome === 'always') {
      record(tool, args, ctx, { ...base, ...by, outcome: 'allowed', reason: decision.reason });
      return allow(tool, args, config);
    }
    const reason =
      result.outcome === 'deny'
        ? `The owner denied this ${tool.name} call (${decision.reason}) Do not retry it; tell the user it was denied.`
        : result.outcome === 'timeout'
          ? `The owner did not answer the approval request within ${describeWait(config.approvalTimeoutSeconds)}, so this ${tool.name} call was denied (${decision.reason}) Tell the user it needs their approval.`
          : 'The approval request was cancelled because the turn was stopped.';
    record(tool, args, ctx, { ...base, ...by, outcome: 'denied', reason });
    return { allow: false, reason };
  };

  const decide = async (
    tool: Tool,
    args: Record<string, unknown>,
    ctx: ToolContext,
    signal: AbortSignal,
  ): Promise<Verdict> => {
    const config = current();
    if (!ctx.isOwner) taint.mark(ctx.sessionId, 'untrusted', `a message from ${ctx.senderId}`);
    const problem = secretProblem(tool, args, config);
    if (problem) {
      record(tool, args, ctx, { rule: 'secrets', decision: 'deny', outcome: 'denied', reason: problem });
      return { allow: false, reason: problem };
    }
    let assessment: ToolAssessment;
    try {
      assessment = (await tool.assess?.(args, ctx)) ?? {};
    } catch (error) {
      assessment = { unanalysable: `the tool could not assess this call (${(error as Error).message})` };
    }
    deps.vault?.learn();
    const marks = taint.of(ctx.sessionId);
    const vaultUse = checkVaultUse({
      tool,
      args,
      assessment,
      bindingsOf: (name) => deps.vault?.get(name)?.bindings,
      taint: marks,
    });
    if ('deny' in vaultUse) {
      record(tool, args, ctx, {
        rule: 'secrets',
        decision: 'deny',
        outcome: 'denied',
        reason: vaultUse.deny,
      });
      return { allow: false, reason: vaultUse.deny };
    }
    const decision = evaluatePolicy({
      tool,
      args,
      assessment,
      isOwner: ctx.isOwner,
      senderId: ctx.senderId,
      taint: marks,
      config,
    });
    assessment = escalateVaultUse(decision, vaultUse, assessment);
    if (decision.action === 'deny') {
      record(tool, args, ctx, {
        rule: decision.rule,
        decision: 'deny',
        outcome: 'denied',
        reason: decision.reason,
      });
      return { allow: false, reason: decision.reason };
    }
    if (decision.action === 'allow') {
      record(tool, args, ctx, {
        rule: decision.rule,
        decision: 'allow',
        outcome: 'allowed',
        reason: decision.notice ? `${decision.reason} ${decision.notice}` : decision.reason,
      });
      return allow(tool, args, config, decision.notice);
    }
    return ask(tool, args, ctx, decision, assessment.target, signal, factsOf(tool.name, assessment));
  };

  const beforeToolCall: BeforeToolCall = async (tool, args, ctx, signal) => {
    try {
      return await decide(tool, args, ctx, signal);
    } catch (error) {
      return {
        allow: false,
        reason: `the gate could not decide on this call (${redactor.text((error as Error).message)}); it was not run.`,
      };
    }
  };

  const afterToolCall: AfterToolCall = (tool, _args, result: ToolResult, ctx) => {
    try {
      current();
      if (result.taint) taint.mark(ctx.sessionId, result.taint, tool.name);
      result.content = redactor.text(result.content);
      if (result.details !== undefined) result.details = redactor.value(result.details);
    } catch {
      result.content = '[output withheld: the gate could not check it for secrets]';
      result.details = undefined;
    }
  };

  let closed = false;
  return {
    beforeToolCall,
    afterToolCall,
    approvals: {
      pending: () => broker.pending(),
      answer: (id, choice, by) => broker.answer(id, choice, by),
      resume: () => broker.resume(),
    },
    grants: {
      list: () => grants.active(),
      add: (grant) => grants.add(grant),
      revoke: (id) => grants.revoke(id),
    },
    audit: { list: (query) => audit.list(query) },
    taint: {
      of: (sessionId) => taint.of(sessionId).map(({ kind, source }) => ({ kind, source })),
      markUntrusted: (sessionId, source) => taint.mark(sessionId, 'untrusted', source),
    },
    redactor,
    ...(deps.vault ? { vault: deps.vault } : {}),
    close() {
      if (closed) return;
      closed = true;
      detachAnswers?.();
      detachReplays?.();
      deps.bus?.filterEvents(undefined);
      deps.bus?.filterOutbound(undefined);
      broker.cancelAll();
    },
  };
}

/**
 * The tool's own assessment of a held call, as lines for the owner: every program an exec command runs and
 * every host it reaches, danger signatures, what could not be analysed, what it stores for later prompts.
 */
function factsOf(tool: string, assessment: ToolAssessment): string[] {
  const facts: string[] = [];
  if (assessment.signatures?.length) facts.push(`danger: ${assessment.signatures.join('; ')}`);
  if (assessment.unanalysable) facts.push(`cannot be analysed: ${assessment.unanalysable}`);
  if (assessment.target)
    facts.push(
      tool === 'exec' ? `runs: ${assessment.target.split('+').join(', ')}` : `target: ${assessment.target}`,
    );
  if (assessment.egress)
    facts.push(
      `reaches: ${assessment.egress.target
        .split(',')
        .join(', ')
        .replace(/\bnetwork\b/, 'any host')}`,
    );
  if (assessment.persists) facts.push(`stores for later: ${assessment.persists.slice(0, 200)}`);
  return facts;
}
