import { posix } from 'node:path';
import picomatch from 'picomatch';
import type { Risk, ToolAssessment } from '../agent/tool.js';
import type { GateAction, GateConfig, GateMatcher, GateMode } from './gate-config.js';

/** Why a session is tainted: what it read and from where. */
export interface TaintMark {
  kind: 'untrusted' | 'private';
  /** E.g. `web_fetch`, `message from a non-owner`. */
  source: string;
}

export interface PolicyInput {
  tool: { name: string; risk: Risk };
  args: Record<string, unknown>;
  assessment: ToolAssessment;
  isOwner: boolean;
  senderId: string;
  taint: readonly TaintMark[];
  config: GateConfig;
}

export interface PolicyDecision {
  action: GateAction;
  /** Which step decided, for the audit log: `deny[0]`, `rules[2]`, `always_allow`, `risk`, `taint`… */
  rule: string;
  /** Why, in words the model and the owner can act on. */
  reason: string;
  /** A danger signature or unanalysable input: the call may only be approved once, never granted. */
  onceOnly: boolean;
  /**
   * Set when the session is tainted and this call sends data to this host/recipient: a standing grant then
   * covers the call only if it was granted for exactly that destination.
   */
  taintedEgress?: string;
  /** Said to the owner in the turn's answer when the call runs (a tainted turn removed something). */
  notice?: string;
}

const globCache = new Map<string, (text: string) => boolean>();

/** Glob match where `*` also crosses `/` (argument values are commands and URLs, not only paths). */
export function globMatch(glob: string, text: string): boolean {
  let test = globCache.get(glob);
  if (!test) {
    test = picomatch(glob, { bash: true, dot: true, nocase: false });
    if (globCache.size > 1000) globCache.clear();
    globCache.set(glob, test);
  }
  return test(text);
}

function argText(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * Whether a matcher (tool-name glob + argument globs, all of which must match) covers this call. Two
 * argument names are read from the tool's assessment rather than the raw arguments: `path` is compared in
 * its resolved, workspace-relative form when the tool reports one (so `./secrets/x`, `a/../secrets/x` or an
 * absolute spelling cannot dodge `secrets/*`), and `program` (exec) matches when any program the command runs
 * matches (so `\\rm` or `command curl` cannot dodge `{program: rm}`).
 */
export function matches(
  matcher: GateMatcher,
  tool: string,
  args: Record<string, unknown>,
  assessment: ToolAssessment = {},
): boolean {
  if (!globMatch(matcher.tool, tool)) return false;
  return Object.entries(matcher.match).every(([name, glob]) => {
    if (name === 'program' && args['program'] === undefined) {
      const programs = assessment.target?.split('+').filter(Boolean) ?? [];
      return programs.length > 0 && programs.some((program) => globMatch(glob, program));
    }
    const text = name === 'path' && assessment.path !== undefined ? assessment.path : argText(args[name]);
    if (text === undefined) return false;
    // A `command` glob never reaches past a shell operator or redirection it does not spell out itself: the
    // rule `git status*` must not cover `git status; rm -rf ~` nor `git status > ~/.bashrc`, and a glob that
    // spells one `|` covers commands with at most that one.
    if (name === 'command' && !operatorsSpelledOut(withoutHarmlessRedirections(text), glob)) return false;
    return globMatch(glob, text);
  });
}

/** Operators that chain, substitute or redirect: `;`, `&`, `|`, backticks, newlines, `$(`, `<`, `>`. */
const SHELL_OPERATOR = /[;&|`\n<>]|\$\(/g;

function operatorCounts(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const [operator] of text.matchAll(SHELL_OPERATOR))
    counts.set(operator, (counts.get(operator) ?? 0) + 1);
  return counts;
}

/** Every operator of the command appears in the glob at least as often as in the command. */
function operatorsSpelledOut(command: string, glob: string): boolean {
  const spelled = operatorCounts(glob);
  for (const [operator, count] of operatorCounts(command))
    if ((spelled.get(operator) ?? 0) < count) return false;
  return true;
}

/**
 * Redirections that write nowhere and read nothing (`2>&1`, `>/dev/null`, `2>/dev/null`, `&>/dev/null`):
 * removed before the reach check so `git status 2>/dev/null` still matches `git status*`. Only unquoted,
 * whole-token forms count; anything else keeps the command out of the glob's reach.
 */
function withoutHarmlessRedirections(command: string): string {
  return command.replace(/(^|\s)(\d?>&\d|(?:\d|&)?>>?\s*\/dev\/null)(?=\s|$)/g, '$1');
}

const TIER: Record<Risk, number> = { safe: 0, moderate: 1, sensitive: 2, dangerous: 3 };
const ASK_FROM: Record<GateMode, number> = { ask: 2, strict: 1, auto: Number.POSITIVE_INFINITY };

/** Step 4: the tool's risk tier against the mode. */
export function riskDecision(risk: Risk, mode: GateMode): GateAction {
  return TIER[risk] >= ASK_FROM[mode] ? 'ask' : 'allow';
}

/** The reduced tool set of senders who are not the owner; undefined when the call is within it. */
function nonOwnerDenial(input: PolicyInput): PolicyDecision | undefined {
  const { nonOwner } = input.config;
  const name = input.tool.name;
  const deny = (reason: string): PolicyDecision => ({
    action: 'deny',
    rule: 'non_owner',
    reason,
    onceOnly: false,
  });
  if (nonOwner.denyTools.some((glob) => globMatch(glob, name))) {
    return deny(`${name} is only available to the owner; this message came from someone else.`);
  }
  if (!nonOwner.fileTools.includes(name)) return undefined;
  const own = `${nonOwner.userFolder}/${input.senderId.replace(/[^A-Za-z0-9_.-]/g, '_')}`;
  const requested = typeof input.args['path'] === 'string' ? input.args['path'] : '.';
  const normalized = posix.normalize(requested.replace(/\\/g, '/'));
  const inside = !normalized.startsWith('/') && (normalized === own || normalized.startsWith(`${own}/`));
  return inside
    ? undefined
    : deny(`Files for this sender are limited to the folder "${own}/"; "${requested}" is outside it.`);
}

function pipelineStart(input: PolicyInput): PolicyDecision & { explicit: boolean } {
  const { config, tool, args } = input;
  const decided = (action: GateAction, rule: string, reason: string, explicit = false) => ({
    action,
    rule,
    reason,
    onceOnly: false,
    explicit,
  });
  const denied = config.deny.findIndex((matcher) => matches(matcher, tool.name, args, input.assessment));
  if (denied >= 0) {
    return decided(
      'deny',
      `deny[${denied}]`,
      `${tool.name} is on the gate's deny list in config.yaml.`,
      true,
    );
  }
  const ruled = config.rules.findIndex((rule) => matches(rule, tool.name, args, input.assessment));
  if (ruled >= 0) {
    const action = config.rules[ruled]!.action;
    const reason =
      action === 'deny'
        ? `A gate rule in config.yaml (rules[${ruled}]) denies this ${tool.name} call.`
        : `A gate rule in config.yaml (rules[${ruled}]) says ${action}.`;
    return decided(action, `rules[${ruled}]`, reason, true);
  }
  if (config.alwaysAllow.some((glob) => globMatch(glob, tool.name))) {
    return decided('allow', 'always_allow', `${tool.name} is always allowed.`);
  }
  if (config.alwaysAsk.some((glob) => globMatch(glob, tool.name))) {
    return decided('ask', 'always_ask', `${tool.name} always needs the owner's approval.`);
  }
  const action = riskDecision(tool.risk, config.mode);
  return decided(
    action,
    'risk',
    action === 'ask'
      ? `${tool.name} is a ${tool.risk} tool and the gate runs in ${config.mode} mode.`
      : `${tool.name} is ${tool.risk} in ${config.mode} mode.`,
  );
}

function describeTaint(taint: readonly TaintMark[]): string {
  const kinds = new Set(taint.map((mark) => mark.kind));
  const what = [kinds.has('untrusted') ? 'untrusted content' : '', kinds.has('private') ? 'private data' : '']
    .filter(Boolean)
    .join(' and ');
  const sources = [...new Set(taint.map((mark) => mark.source))].slice(0, 3).join(', ');
  return `${what} (from ${sources})`;
}

/**
 * The gate's policy pipeline, pure. The non-owner restrictions come first; then, first match wins: hard deny
 * list → explicit rules → always-allow / always-ask → risk × mode. Then two steps that only escalate allow to
 * ask: taint (the session read untrusted or private data and the call sends data to a target not on
 * `egress_allow`; explicit rules do not lift this, only `egress_allow` does; or, after untrusted content, the
 * call stores text later prompts read) and danger signatures or
 * unanalysable input (lifted only by an explicit allow rule that names them in `signatures`). Signature asks
 * can only be approved once.
 */
export function evaluatePolicy(input: PolicyInput): PolicyDecision {
  if (!input.isOwner) {
    const denial = nonOwnerDenial(input);
    if (denial) return denial;
  }
  const start = pipelineStart(input);
  const { explicit, ...decision } = start;
  if (decision.action === 'deny') return decision;
  const { assessment, taint, config } = input;

  // A call may reach several destinations (`a.example,b.example`): every one must be on egress_allow.
  const destinations = assessment.egress?.target.split(',').filter(Boolean) ?? [];
  const egress = destinations.find(
    (target) => !config.egressAllow.some((glob) => globMatch(glob, target.toLowerCase())),
  );
  if (egress !== undefined && taint.length > 0) {
    decision.taintedEgress = egress;
    const reason = `This session has read ${describeTaint(taint)}, and this ${input.tool.name} call sends data to ${egress}, which is not on gate.egress_allow.`;
    if (decision.action === 'allow') Object.assign(decision, { action: 'ask', rule: 'taint', reason });
    else decision.reason = `${decision.reason} ${reason}`;
  }

  const untrusted = taint.filter((mark) => mark.kind === 'untrusted');
  if (assessment.persists && untrusted.length > 0) {
    const reason = `This session has read ${describeTaint(untrusted)}, and this ${input.tool.name} call stores ${assessment.persists}, which later prompts will read.`;
    if (decision.action === 'allow') Object.assign(decision, { action: 'ask', rule: 'taint', reason });
    else decision.reason = `${decision.reason} ${reason}`;
    // The owner must see this very text: no standing grant covers it.
    decision.onceOnly = true;
  }

  // Integrity: after untrusted content, cancelling what the owner set up is told (strict mode: asked).
  if (assessment.removes && untrusted.length > 0) {
    if (config.mode === 'strict') {
      const reason = `This session has read ${describeTaint(untrusted)}, and this ${input.tool.name} call removes ${assessment.removes}.`;
      if (decision.action === 'allow') Object.assign(decision, { action: 'ask', rule: 'taint', reason });
      else decision.reason = `${decision.reason} ${reason}`;
      decision.onceOnly = true;
    } else {
      decision.notice = `After reading ${describeTaint(untrusted)}, this turn removed ${assessment.removes}.`;
    }
  }

  const findings = [
    ...(assessment.signatures ?? []),
    ...(assessment.unanalysable ? [`cannot be analysed: ${assessment.unanalysable}`] : []),
  ];
  // An explicit allow lifts only the signatures its rule names (`signatures: ["pipes into an interpreter*"]`):
  // a rule written for `git status*` never waves through `git status > ~/.bashrc`'s signature.
  const lifted = explicit && decision.action === 'allow' ? liftedBy(config, decision.rule) : [];
  const remaining = findings.filter((finding) => !lifted.some((glob) => globMatch(glob, finding)));
  if (remaining.length > 0) {
    const reason = `Danger signature: ${remaining.join('; ')}.`;
    if (decision.action === 'allow') Object.assign(decision, { action: 'ask', rule: 'signature', reason });
    else decision.reason = `${decision.reason} ${reason}`;
    decision.onceOnly = true;
  }
  return decision;
}

/** The signature globs of the rule that decided (`rules[2]`), if it was an explicit rule. */
function liftedBy(config: GateConfig, rule: string): readonly string[] {
  const index = /^rules\[(\d+)\]$/.exec(rule)?.[1];
  return index === undefined ? [] : (config.rules[Number(index)]?.signatures ?? []);
}
