import { hidesArithmeticCode } from './check-builtins.js';
import { CwdTracker } from './cwd-tracker.js';
import { type Findings, FOLDER_CHANGES, MAX_DEPTH, ProgramCheck } from './program-check.js';
import type { Cwd } from './resolve-paths.js';
import { walkScript } from './shell-commands.js';
import { type Expansion, expandWords, mentionsIfs, rebase } from './shell-expansion.js';
import type { Word } from './shell-lexer.js';
import {
  type AnalysisContext,
  evaluateWord,
  evaluateWordWith,
  literalValue,
  RUNTIME,
  type WordValue,
} from './shell-paths.js';
import { type FunctionDefinition, ROOT_SCOPE, type ShellScript, type SimpleCommand } from './shell-script.js';
import { type KnownVariable, staticVariables } from './static-variables.js';
import { mergeVariables, variablePasses } from './variable-passes.js';

export type { Findings } from './program-check.js';

interface FunctionBody {
  definition: FunctionDefinition;
  commands: SimpleCommand[];
  called: boolean;
}

/** Commands checked again through function calls and aliases, per analysis: bounds call chains that fan out. */
const EXPANSION_BUDGET = 5000;

interface CheckOptions {
  /** What is left of the expansion budget, shared with nested scripts. */
  budget: { left: number };
  ctx: AnalysisContext;
  findings: Findings;
  depth: number;
  cwds: readonly Cwd[];
  /** Aliases defined so far, shared with nested scripts (bash -c may not expand them: both forms count). */
  aliases: Map<string, string>;
  /** Variables of the shell that runs this script later (`trap CODE`): the script sees them. */
  variables?: ReadonlyMap<string, KnownVariable>;
}

/** Applies the danger rules to a walked script, adding to `findings`. */
export function checkScript(script: ShellScript, ctx: AnalysisContext, findings: Findings, depth = 0): void {
  const budget = { left: EXPANSION_BUDGET };
  new DangerCheck({ budget, ctx, findings, depth, cwds: [ctx.cwd], aliases: new Map() }).script(script);
  if (findings.clearsMarker && findings.detaches)
    findings.signatures.add("hides processes from Wren's clean-up");
}

/** Literal text anywhere in a word (quoted parts too, substitutions not). */
function literalText(word: Word): string {
  return word.parts.map((part) => (part.type === 'lit' ? part.value : ' ')).join('');
}

/**
 * Checks one script's commands in order, following the working folder (`cd`), aliases, function calls (a
 * body is checked with the call's arguments) and variables with static values.
 */
class DangerCheck extends ProgramCheck {
  private readonly depth: number;
  private readonly budget: { left: number };
  private readonly aliases: Map<string, string>;
  private readonly tracker: CwdTracker;
  private readonly bodies = new Map<string, FunctionBody>();
  /** Aliases and functions being expanded, innermost last (neither expands inside itself). */
  private readonly expanding: string[] = [];
  private expansions = 0;
  private scope = ROOT_SCOPE;
  private cdpath = false;
  private variables = new Map<string, KnownVariable>();
  private readonly inherited?: ReadonlyMap<string, KnownVariable>;
  /** Each command's place in the script, for "set before it" questions. */
  private order = new Map<SimpleCommand, number>();

  constructor(options: CheckOptions) {
    super(options.ctx, options.findings, options.cwds);
    this.depth = options.depth;
    this.budget = options.budget;
    this.aliases = options.aliases;
    this.tracker = new CwdTracker(options.cwds);
    if (options.variables) this.inherited = options.variables;
  }

  nestedScript(text: string, where: string): void {
    this.nested(text, where, undefined);
  }

  protected sharedScript(text: string, where: string): void {
    this.nested(text, where, this.variables);
  }

  private nested(
    text: string,
    where: string,
    variables: ReadonlyMap<string, KnownVariable> | undefined,
  ): void {
    if (this.depth >= MAX_DEPTH) {
      this.cannot(`${where} nested too deeply`);
      return;
    }
    let script: ShellScript;
    try {
      script = walkScript(text);
    } catch {
      this.cannot(`${where} uses shell syntax that cannot be analysed`);
      return;
    }
    const inner: Findings = { ...this.findings, programs: [] };
    const options = { ctx: this.ctx, findings: inner, depth: this.depth + 1, cwds: this.cwds };
    new DangerCheck({
      ...options,
      budget: this.budget,
      aliases: this.aliases,
      ...(variables ? { variables } : {}),
    }).script(script);
    this.findings.network ||= inner.network;
    this.findings.runsScript ||= inner.runsScript;
    this.findings.clearsMarker ||= inner.clearsMarker;
    this.findings.detaches ||= inner.detaches;
    this.findings.programs.push(...inner.programs);
  }

  /** Checks every command; a function body is checked at each call, or once on its own if never called. */
  script(script: ShellScript): void {
    for (const reason of script.unanalysable) this.cannot(reason);
    if (script.words.some((word) => mentionsIfs(word.parts))) this.flag('uses $IFS to build words');
    if (script.words.some((word) => hidesArithmeticCode(literalText(word))))
      this.cannot('text with $(…) in an array subscript (bash runs it when it reads the text as a number)');
    const texts = script.words.map((word) => evaluateWord(word).text).join('\n');
    this.cdpath = /CDPATH|cdable_vars/.test(texts);
    const glob = this.ctx.glob;
    const dot = glob?.dot === true || /dotglob|GLOBIGNORE/.test(texts);
    const nocase = glob?.nocase === true || /nocaseglob/.test(texts);
    if (dot !== glob?.dot || nocase !== glob?.nocase) this.ctx = { ...this.ctx, glob: { dot, nocase } };
    this.variables = mergeVariables(staticVariables(script), this.inherited);
    this.order = new Map(script.commands.map((command, index) => [command, index]));
    const inBody = (command: SimpleCommand) => {
      const name = command.functions.at(-1);
      return name !== undefined && script.functions.has(name) ? name : undefined;
    };
    for (const command of script.commands) {
      const name = inBody(command);
      if (name === undefined) continue;
      const body = this.bodies.get(name) ?? {
        definition: script.functions.get(name)!,
        commands: [],
        called: false,
      };
      body.commands.push(command);
      this.bodies.set(name, body);
    }
    for (const command of script.commands) if (inBody(command) === undefined) this.command(command);
    for (const body of this.bodies.values()) {
      if (!body.called) for (const command of body.commands) this.command(command);
    }
  }

  /**
   * Checks one command once per set of values its variables may take (see variablePasses): the first
   * check counts programs, aliases and function calls; the others only add findings.
   */
  private command(command: SimpleCommand, expansion?: Expansion): void {
    const scope = expansion ? expansion.scope(command.scope) : command.scope;
    const passes = variablePasses(command, this.order.get(command) ?? -1, this.variables, expansion?.params);
    if (passes.length > 1 && !this.spend(passes.length - 1)) passes.length = 1;
    let moved: Cwd[] | undefined;
    let exits = false;
    for (const [index, params] of passes.entries()) {
      this.repeat = index > 0;
      const step = this.pass(
        command,
        scope,
        { ...expansion, ...(params ? { params } : {}), scope: (inner) => inner },
        index === 0,
      );
      if (step.moved) moved = [...new Set([...(moved ?? []), ...step.moved])];
      exits ||= step.exits;
    }
    this.repeat = false;
    this.tracker.ran(scope, {
      ...(command.followedBy ? { followedBy: command.followedBy } : {}),
      ...(moved ? { moved } : {}),
      exits,
    });
  }

  private pass(
    command: SimpleCommand,
    scope: string,
    expansion: Expansion,
    first: boolean,
  ): { moved?: Cwd[]; exits: boolean } {
    this.enter(scope);
    for (const redirect of command.redirects) this.redirect(redirect, expansion.params);
    for (const word of command.assignments) this.assignment(evaluateWordWith(word, expansion.params));
    if (first && command.forkedInLoop) this.flag('starts background processes in a loop');
    const values = expandWords(command.words, expansion);
    const head = values[0];
    let moved: Cwd[] | undefined;
    if (head && !head.dynamic) {
      const forks = command.stdinFromPipe || command.pipesOut || command.background;
      if (first && command.functions.includes(head.text) && forks)
        this.flag(`fork bomb (function ${head.text} starts copies of itself)`);
      if (first) this.expandAlias(head.text, command, scope, expansion);
      this.enter(scope);
      if (first || head.text === 'cd') moved = this.folderChange(values, command, scope);
    }
    // Every program counts, substitutions included: a grant for `git` must not cover `git "$(python3 x)"`.
    if (head) this.invocation(values, command, true);
    return { ...(moved ? { moved } : {}), exits: head !== undefined && /^(exit|return)$/.test(head.text) };
  }

  /** Takes `count` commands from the expansion budget; false (and unanalysable) once it is spent. */
  private spend(count: number): boolean {
    this.budget.left -= count;
    if (this.budget.left >= 0) return true;
    this.cannot('too many commands to follow through functions and aliases');
    return false;
  }

  private enter(scope: string): void {
    this.scope = scope;
    this.cwds = this.tracker.cwds(scope);
  }

  /** Where a `cd`, `pushd` or `popd` run by the shell itself takes it (not in a pipeline or background). */
  private folderChange(values: WordValue[], command: SimpleCommand, scope: string): Cwd[] | undefined {
    const [first, ...rest] = values;
    const builtin = first && /^(builtin|command)$/.test(first.text);
    const name = builtin ? rest[0]?.text : first?.text;
    if (!name || !FOLDER_CHANGES.has(name)) return undefined;
    if (command.pipesOut || command.stdinFromPipe || command.background) return undefined;
    return this.tracker.move(scope, name, builtin ? rest.slice(1) : rest, this.ctx, this.cdpath);
  }

  protected defineAliases(args: WordValue[]): void {
    for (const arg of args) {
      const match = /^([^=\s]+)=(.*)$/s.exec(arg.text);
      if (!match) continue;
      if (arg.dynamic) this.cannot('an alias whose text is built at run time');
      else this.aliases.set(match[1]!, match[2]!);
    }
  }

  /**
   * An alias used as a command name: its text is checked as commands, the call's arguments joined to the
   * last one. The command is then checked as written too, since bash -c does not expand aliases by default.
   */
  private expandAlias(name: string, command: SimpleCommand, scope: string, expansion?: Expansion): void {
    const text = this.aliases.get(name);
    if (text === undefined || this.expanding.includes(name)) return;
    let script: ShellScript | undefined;
    try {
      script = this.expanding.length < MAX_DEPTH ? walkScript(text) : undefined;
    } catch {
      script = undefined;
    }
    if (!script) {
      this.cannot(`alias ${name} cannot be analysed`);
      return;
    }
    for (const reason of script.unanalysable) this.cannot(reason);
    if (!this.spend(script.commands.length)) return;
    const last = script.commands.at(-1);
    const inner: Expansion = { ...expansion, scope: rebase(ROOT_SCOPE, scope, `a${++this.expansions}`) };
    this.expanding.push(name);
    for (const part of script.commands) {
      const joined: SimpleCommand =
        part === last
          ? {
              ...part,
              words: [...part.words, ...command.words.slice(1)],
              redirects: [...part.redirects, ...command.redirects],
              stdinFromPipe: part.stdinFromPipe || command.stdinFromPipe,
              pipesOut: part.pipesOut || command.pipesOut,
              background: part.background || command.background,
              inLoop: command.inLoop,
            }
          : part;
      this.command({ ...joined, followedBy: part === last ? ';' : (part.followedBy ?? ';') }, inner);
    }
    this.expanding.pop();
  }

  /** A call of a function the script defines: its body is checked with the call's arguments as `$1` … */
  protected called(name: string, args: WordValue[], command: SimpleCommand): void {
    const body = this.bodies.get(name);
    if (!body) return;
    body.called = true;
    if (command.inLoop && body.commands.some((inner) => inner.background))
      this.flag('starts background processes in a loop');
    if (this.expanding.includes(name) || this.expanding.length >= MAX_DEPTH) return;
    if (!this.spend(body.commands.length)) return;
    // `shift` or `set --` renumber the parameters: they are then only known at run time.
    const renumbers = body.commands.some((inner) =>
      /^(shift|set)$/.test(evaluateWord(inner.words[0] ?? { parts: [] }).text),
    );
    const params = new Map<string, WordValue>([['#', literalValue(String(args.length))]]);
    for (const [index, arg] of args.entries()) params.set(String(index + 1), arg);
    const { cwds, scope } = this;
    const expansion: Expansion = {
      ...(renumbers ? {} : { params, args }),
      scope: rebase(body.definition.scope, scope, `f${++this.expansions}`),
    };
    this.expanding.push(name);
    for (const inner of body.commands) this.command(inner, expansion);
    this.expanding.pop();
    this.cwds = cwds;
    this.scope = scope;
  }
}

export { RUNTIME };
