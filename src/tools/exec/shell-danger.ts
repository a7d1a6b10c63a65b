import { CwdTracker } from './cwd-tracker.js';
import { type Findings, FOLDER_CHANGES, MAX_DEPTH, ProgramCheck } from './program-check.js';
import type { Cwd } from './resolve-paths.js';
import {
  type FunctionDefinition,
  ROOT_SCOPE,
  type ShellScript,
  type SimpleCommand,
  walkScript,
} from './shell-commands.js';
import {
  type Expansion,
  expandWords,
  mentionsIfs,
  parameterNames,
  rebase,
  staticVariables,
} from './shell-expansion.js';
import {
  evaluateWord,
  evaluateWordWith,
  literalValue,
  RUNTIME,
  type ShellContext,
  type WordValue,
} from './shell-paths.js';

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
  ctx: ShellContext;
  findings: Findings;
  depth: number;
  cwds: readonly Cwd[];
  /** Aliases defined so far, shared with nested scripts (bash -c may not expand them: both forms count). */
  aliases: Map<string, string>;
}

/** Applies the danger rules to a walked script, adding to `findings`. */
export function checkScript(script: ShellScript, ctx: ShellContext, findings: Findings, depth = 0): void {
  const budget = { left: EXPANSION_BUDGET };
  new DangerCheck({ budget, ctx, findings, depth, cwds: [ctx.cwd], aliases: new Map() }).script(script);
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
  private variables = new Map<string, WordValue[]>();

  constructor(options: CheckOptions) {
    super(options.ctx, options.findings, options.cwds);
    this.depth = options.depth;
    this.budget = options.budget;
    this.aliases = options.aliases;
    this.tracker = new CwdTracker(options.cwds);
  }

  nestedScript(text: string, where: string): void {
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
    new DangerCheck({ ...options, budget: this.budget, aliases: this.aliases }).script(script);
    this.findings.network ||= inner.network;
    this.findings.runsScript ||= inner.runsScript;
    this.findings.programs.push(...inner.programs);
  }

  /** Checks every command; a function body is checked at each call, or once on its own if never called. */
  script(script: ShellScript): void {
    for (const reason of script.unanalysable) this.cannot(reason);
    if (script.words.some((word) => mentionsIfs(word.parts))) this.flag('uses $IFS to build words');
    this.cdpath = script.words.some((word) => evaluateWord(word).text.includes('CDPATH'));
    this.variables = staticVariables(script);
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

  private command(command: SimpleCommand, expansion?: Expansion): void {
    const scope = expansion ? expansion.scope(command.scope) : command.scope;
    this.enter(scope);
    for (const redirect of command.redirects) this.redirect(redirect, expansion?.params);
    for (const word of command.assignments) this.assignment(evaluateWordWith(word, expansion?.params));
    if (command.forkedInLoop) this.flag('starts background processes in a loop');
    const values = expandWords(command.words, expansion);
    const head = values[0];
    let moved: Cwd[] | undefined;
    if (head && !head.dynamic) {
      if (
        command.functions.includes(head.text) &&
        (command.stdinFromPipe || command.pipesOut || command.background)
      )
        this.flag(`fork bomb (function ${head.text} starts copies of itself)`);
      this.expandAlias(head.text, command, scope, expansion);
      this.enter(scope);
      moved = this.folderChange(values, command, scope);
    }
    // Every program counts, substitutions included: a grant for `git` must not cover `git "$(python3 x)"`.
    if (head) this.invocation(values, command, true);
    this.withKnownVariables(command, scope, expansion);
    this.tracker.ran(scope, {
      ...(command.followedBy ? { followedBy: command.followedBy } : {}),
      ...(moved ? { moved } : {}),
      exits: head !== undefined && /^(exit|return)$/.test(head.text),
    });
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

  /** Checks the command's file effects again with each static value the script gives a variable it uses. */
  private withKnownVariables(command: SimpleCommand, scope: string, expansion?: Expansion): void {
    const used = [...command.words, ...command.redirects.map((redirect) => redirect.target)];
    for (const name of new Set(used.flatMap((word) => parameterNames(word.parts)))) {
      const values = this.variables.get(name);
      if (!values || expansion?.params?.has(name)) continue;
      for (const value of values) {
        const params = new Map(expansion?.params ?? []).set(name, value);
        this.enter(scope);
        for (const redirect of command.redirects) this.redirect(redirect, params);
        this.fileAccess(expandWords(command.words, { ...expansion, params, scope: (inner) => inner }));
      }
    }
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
