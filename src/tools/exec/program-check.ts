import { checkFileEffects, checkRead, checkWrite } from './check-file-effects.js';
import { checkGit, checkGitEnvironment, gitSubcommand } from './check-git.js';
import { checkInterpreter, checkSource, checkSu, runsScriptDirectly } from './check-interpreter.js';
import { checkSystem } from './check-system.js';
import { type FileEffects, fileEffects, noEffects } from './file-effects.js';
import type { Cwd } from './resolve-paths.js';
import type { RuleHost } from './rule-host.js';
import type { Redirection, SimpleCommand } from './shell-commands.js';
import { DECLARATIONS } from './shell-expansion.js';
import { evaluateWordWith, type Parameters, type ShellContext, type WordValue } from './shell-paths.js';
import { hostOf, isInterpreter, NETWORK_PROGRAMS, programName } from './shell-programs.js';
import { unwrapCommand } from './shell-wrappers.js';

/** What the rules found in one script (and the scripts nested in it). */
export interface Findings {
  signatures: Set<string>;
  unanalysable: string[];
  /** Programs run at the script's own level, in order (the first is the grant target). */
  programs: string[];
  /** Hosts named in arguments (URLs, `user@host:`). */
  hosts: string[];
  /** A program that reaches the network runs. */
  network: boolean;
  /** It runs an interpreter on a file, a local program or a task runner. */
  runsScript: boolean;
}

/** Bounds wrapper chains (`sudo env nice …`), nested scripts, aliases and calls. */
export const MAX_DEPTH = 8;
const WRITE_REDIRECTS = new Set(['>', '>>', '>|', '<>', '&>', '&>>', '>&']);
const PRIVILEGE = new Set(['sudo', 'su', 'doas', 'pkexec', 'runuser']);
/** Builtins that change the shell's working folder; their arguments are not files read. */
export const FOLDER_CHANGES = new Set(['cd', 'pushd', 'popd']);

/** Programs that show names or metadata, never contents: a glob they expand reads no secret. */
const NAMES_ONLY = new Set([
  'ls',
  'du',
  'stat',
  'file',
  'echo',
  'printf',
  'test',
  '[',
  'basename',
  'dirname',
]);

/** Targets of writes and deletes are checked as such; other arguments may be files the program reads. */
function targetsOf(effects: FileEffects): WordValue[] {
  return [...effects.notPaths, ...effects.writes, ...effects.deletes.map((remove) => remove.value)];
}

/**
 * Checks one program run (through wrappers such as `sudo`, `env`, `xargs`, `find -exec`) against the rule
 * families: file effects, secrets, git, interpreters, the system. Subclasses decide the order of commands,
 * the working folders and what a call of a script-defined function or alias means.
 */
export abstract class ProgramCheck implements RuleHost {
  cwds: readonly Cwd[];

  constructor(
    readonly ctx: ShellContext,
    protected readonly findings: Findings,
    cwds: readonly Cwd[],
  ) {
    this.cwds = cwds;
  }

  abstract nestedScript(text: string, where: string): void;

  /** A program the script itself defines (a function) was run with these arguments. */
  protected abstract called(name: string, args: WordValue[], command: SimpleCommand): void;

  /** `alias NAME=TEXT …` ran. */
  protected abstract defineAliases(args: WordValue[]): void;

  flag(signature: string): void {
    this.findings.signatures.add(signature);
  }

  cannot(reason: string): void {
    if (!this.findings.unanalysable.includes(reason)) this.findings.unanalysable.push(reason);
  }

  runsScript(): void {
    this.findings.runsScript = true;
  }

  protected redirect(redirect: Redirection, params: Parameters | undefined): void {
    const value = evaluateWordWith(redirect.target, params);
    if (redirect.op === '<' || redirect.op === '<>') checkRead(this, value, false);
    if (!WRITE_REDIRECTS.has(redirect.op) || (redirect.op === '>&' && /^(\d+|-)$/.test(value.text))) return;
    checkWrite(this, value);
  }

  protected assignment(value: WordValue): void {
    checkGitEnvironment(this, value);
    checkRead(this, value, false);
  }

  /** One program run with its arguments (after assignments); `top` when at the script's own level. */
  protected invocation(values: WordValue[], command: SimpleCommand, top: boolean, wrapped = 0): void {
    const head = values[0];
    if (!head) return;
    if (head.dynamic) {
      this.cannot('the program name comes from a variable or substitution');
      return;
    }
    const name = programName(head.text);
    const args = values.slice(1);
    const unwrapped = unwrapCommand(name, args);
    if (top && (!unwrapped || PRIVILEGE.has(name))) {
      this.findings.programs.push(name);
      top = false;
    }
    const effects = unwrapped ? noEffects() : fileEffects(name, args);
    this.arguments(name, args, targetsOf(effects));
    if (PRIVILEGE.has(name)) this.flag(`runs as another user (${name})`);
    if (name === 'eval') {
      this.cannot('`eval` runs text assembled at run time');
      return;
    }
    if (name === 'su') {
      checkSu(this, args);
      return;
    }
    if (unwrapped) {
      if (!('inner' in unwrapped)) this.cannot(unwrapped.unanalysable);
      else if (wrapped > MAX_DEPTH) this.cannot('too many nested wrapper commands');
      else this.invocation(unwrapped.inner, command, top, wrapped + 1);
      return;
    }
    if (runsScriptDirectly(head.text, name, args, command)) this.runsScript();
    checkFileEffects(this, effects);
    this.rules(name, args, command);
    this.called(name, args, command);
  }

  /** The file rules alone for one program run (through wrappers): what it reads, writes, deletes, links. */
  protected fileAccess(values: WordValue[], wrapped = 0): void {
    const head = values[0];
    if (!head || head.dynamic) return;
    const name = programName(head.text);
    const args = values.slice(1);
    const unwrapped = unwrapCommand(name, args);
    if (unwrapped) {
      if ('inner' in unwrapped && wrapped <= MAX_DEPTH) this.fileAccess(unwrapped.inner, wrapped + 1);
      return;
    }
    const effects = fileEffects(name, args);
    const targets = targetsOf(effects);
    for (const arg of args)
      if (!targets.includes(arg) && !FOLDER_CHANGES.has(name)) checkRead(this, arg, false);
    checkFileEffects(this, effects);
  }

  /** What every argument can do, whatever the program: read a secret, name a host, set git's environment. */
  private arguments(name: string, args: WordValue[], targets: WordValue[]): void {
    for (const arg of args) {
      const read = !targets.includes(arg) && !FOLDER_CHANGES.has(name) && !(arg.glob && NAMES_ONLY.has(name));
      if (read) checkRead(this, arg, false);
      const host = arg.dynamic ? undefined : hostOf(arg.text);
      if (host && !this.findings.hosts.includes(host)) this.findings.hosts.push(host);
      if ((name === 'env' || DECLARATIONS.has(name)) && /^[A-Za-z_]\w*\+?=/.test(arg.text))
        checkGitEnvironment(this, arg);
    }
    if (NETWORK_PROGRAMS.has(name)) this.findings.network = true;
    if (name === 'git' && /^(push|pull|fetch|clone|ls-remote)$/.test(args[gitSubcommand(args)]?.text ?? ''))
      this.findings.network = true;
    if (name === 'alias') this.defineAliases(args);
  }

  private rules(name: string, args: WordValue[], command: SimpleCommand): void {
    checkSystem(this, name, args);
    if (name === 'source' || name === '.') checkSource(this, name, args);
    else if (isInterpreter(name)) checkInterpreter(this, name, args, command);
    else if (name === 'git') checkGit(this, args);
    else if (name === 'find') this.findExec(args, command);
    else if (
      /^[gm]?awk$/.test(name) &&
      args.some((arg) => /\bsystem\s*\(|\|\s*getline|print[^;]*\|/.test(arg.text))
    )
      this.cannot(`${name} running commands from its program`);
  }

  /** The commands `find -exec … ;` runs, checked like any other. */
  private findExec(args: WordValue[], command: SimpleCommand): void {
    for (let index = 0; index < args.length; index++) {
      if (!/^-(exec|execdir|ok|okdir)$/.test(args[index]!.text)) continue;
      const end = args.findIndex((arg, at) => at > index && (arg.text === ';' || arg.text === '+'));
      this.invocation(args.slice(index + 1, end === -1 ? undefined : end), command, true);
      if (end === -1) break;
      index = end;
    }
  }
}
