import { relative, sep } from 'node:path';
import type { ShellScript, SimpleCommand } from './shell-commands.js';
import { walkScript } from './shell-commands.js';
import type { Word, WordPart } from './shell-lexer.js';
import {
  absolutePath,
  destructiveTarget,
  evaluateWord,
  protectedLocation,
  RUNTIME,
  type ShellContext,
  secretFile,
  type WordValue,
} from './shell-paths.js';
import {
  hostOf,
  isInterpreter,
  NETWORK_PROGRAMS,
  programName,
  programSource,
  SHELLS,
} from './shell-programs.js';
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
}

const MAX_DEPTH = 8;
/** Workspace files Wren reads into its system prompt (as in write_file's assessment). */
const INSTRUCTION_FILES = /^(SOUL|AGENTS|USER|MEMORY|HEARTBEAT)\.md$|^skills\//;

const SAFE_DEVICES = /^\/dev\/(null|zero|stdout|stderr|stdin|tty|fd\/\d+|full|random|urandom)$/;
const WRITE_REDIRECTS = new Set(['>', '>>', '>|', '<>', '&>', '&>>', '>&']);
const LAST_ARG_WRITERS = new Set(['cp', 'mv', 'install', 'ln', 'rsync', 'scp']);
const ALL_ARG_WRITERS = new Set([
  'tee',
  'touch',
  'mkdir',
  'rm',
  'rmdir',
  'chmod',
  'chown',
  'chgrp',
  'truncate',
  'shred',
  'unlink',
]);
const POWER = new Set(['shutdown', 'reboot', 'halt', 'poweroff']);
const PRIVILEGE = new Set(['sudo', 'su', 'doas', 'pkexec', 'runuser']);
const DISK_FORMAT = /^(mkfs(\..+)?|mke2fs|mkswap|wipefs)$/;
const FIND_FILTERS =
  /^-(i?name|i?path|i?regex|type|newer\w*|[acm](time|min)|size|empty|user|group|perm|i?wholename)$/;

function mentionsIfs(parts: WordPart[]): boolean {
  return parts.some(
    (part) =>
      (part.type === 'param' && (part.name === 'IFS' || mentionsIfs(part.inner))) ||
      (part.type === 'array' && part.words.some((word) => mentionsIfs(word.parts))),
  );
}

/** Applies the danger rules to a walked script, adding to `findings`. */
export function checkScript(script: ShellScript, ctx: ShellContext, findings: Findings, depth = 0): void {
  new DangerCheck(ctx, findings, depth).script(script);
}

class DangerCheck {
  constructor(
    private readonly ctx: ShellContext,
    private readonly findings: Findings,
    private readonly depth: number,
  ) {}

  private flag(signature: string): void {
    this.findings.signatures.add(signature);
  }

  private cannot(reason: string): void {
    if (!this.findings.unanalysable.includes(reason)) this.findings.unanalysable.push(reason);
  }

  script(script: ShellScript): void {
    for (const reason of script.unanalysable) this.cannot(reason);
    if (script.words.some((word) => mentionsIfs(word.parts))) this.flag('uses $IFS to build words');
    for (const command of script.commands) this.command(command);
  }

  /** A nested script (`sh -c '…'`, a heredoc fed to a shell): walked and checked one level deeper. */
  private nestedScript(text: string, where: string): void {
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
    new DangerCheck(this.ctx, inner, this.depth + 1).script(script);
    this.findings.network ||= inner.network;
    this.findings.programs.push(...inner.programs);
  }

  private command(command: SimpleCommand): void {
    for (const redirect of command.redirects) this.redirect(redirect.op, redirect.target);
    for (const word of command.assignments) this.readsSecret(evaluateWord(word));
    if (command.words.length === 0) return;
    const values = command.words.map(evaluateWord);
    const head = values[0]!;
    if (!head.dynamic && command.functions.includes(head.text)) {
      if (command.stdinFromPipe || command.pipesOut || command.background)
        this.flag(`fork bomb (function ${head.text} starts copies of itself)`);
    }
    // Every program counts, substitutions included: a grant for `git` must not cover `git "$(python3 x)"`.
    this.invocation(values, command, true);
  }

  private redirect(op: string, target: Word): void {
    const value = evaluateWord(target);
    if (value.dynamic) return;
    if (op === '<') {
      this.readsSecret(value);
      return;
    }
    if (!WRITE_REDIRECTS.has(op) || (op === '>&' && /^(\d+|-)$/.test(value.text))) return;
    this.writes(value);
  }

  private writes(value: WordValue): void {
    if (value.dynamic || value.text === '') return;
    const path = absolutePath(value.text, this.ctx);
    const inWorkspace = relative(this.ctx.workspace, path);
    if (!inWorkspace.startsWith('..') && INSTRUCTION_FILES.test(inWorkspace.split(sep).join('/'))) {
      this.flag(`changes Wren's own instructions (${inWorkspace})`);
    }
    if (path.startsWith('/dev/') && !SAFE_DEVICES.test(path)) this.flag(`writes to device ${path}`);
    const place = protectedLocation(path, this.ctx);
    if (place) this.flag(`writes into ${place}`);
  }

  private readsSecret(value: WordValue): void {
    if (value.dynamic) return;
    const shown = secretFile(value.text, this.ctx);
    if (shown) this.flag(`reads a secret file outside the workspace (${shown})`);
  }

  /** One program run with its arguments (after assignments); `top` when at the script's own level. */
  private invocation(values: WordValue[], command: SimpleCommand, top: boolean, wrapped = 0): void {
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
    for (const arg of args) this.readsSecret(arg);
    for (const arg of args) {
      const host = arg.dynamic ? undefined : hostOf(arg.text);
      if (host && !this.findings.hosts.includes(host)) this.findings.hosts.push(host);
    }
    if (NETWORK_PROGRAMS.has(name)) this.findings.network = true;
    if (name === 'git' && /^(push|pull|fetch|clone|ls-remote)$/.test(args[0]?.text ?? ''))
      this.findings.network = true;
    if (PRIVILEGE.has(name)) this.flag(`runs as another user (${name})`);
    if (name === 'eval') {
      this.cannot('`eval` runs text assembled at run time');
      return;
    }
    if (name === 'su') {
      this.suCommand(args);
      return;
    }
    if (unwrapped) {
      if (!('inner' in unwrapped)) {
        this.cannot(unwrapped.unanalysable);
        return;
      }
      if (wrapped > MAX_DEPTH) {
        this.cannot('too many nested wrapper commands');
        return;
      }
      this.invocation(unwrapped.inner, command, top, wrapped + 1);
      return;
    }
    this.rules(name, args, command);
  }

  private rules(name: string, args: WordValue[], command: SimpleCommand): void {
    if (name === 'rm') this.rm(args);
    else if (name === 'find') this.find(args, command);
    else if (name === 'chmod' || name === 'chown' || name === 'chgrp') this.recursiveChange(name, args);
    else if (DISK_FORMAT.test(name)) this.flag(`formats a disk (${name})`);
    else if (name === 'dd') {
      for (const arg of args) {
        const target = /^of=(.*)$/.exec(arg.text)?.[1];
        if (target?.startsWith('/dev/') && !SAFE_DEVICES.test(target))
          this.flag(`writes to device ${target}`);
      }
    } else if (POWER.has(name)) this.flag(`shuts down or reboots the machine (${name})`);
    else if ((name === 'init' || name === 'telinit') && /^[06]$/.test(args[0]?.text ?? ''))
      this.flag(`shuts down or reboots the machine (${name} ${args[0]!.text})`);
    else if (name === 'systemctl' && args.some((arg) => /^(poweroff|reboot|halt|kexec)$/.test(arg.text)))
      this.flag('shuts down or reboots the machine (systemctl)');
    else if (name === 'kill' && args.length > 1 && args.at(-1)!.text === '-1')
      this.flag('kills every process (kill -1)');
    else if (name === 'source' || name === '.') this.source(name, args);
    else if (isInterpreter(name)) this.interpreter(name, args, command);
    else if (
      /^[gm]?awk$/.test(name) &&
      args.some((arg) => /\bsystem\s*\(|\|\s*getline|print[^;]*\|/.test(arg.text))
    )
      this.cannot(`${name} running commands from its program`);
    else if (
      name === 'git' &&
      args.some((arg, i) => args[i - 1]?.text === '-c' && /^alias\.[^=]+=\s*!/.test(arg.text))
    )
      this.cannot('a git alias that runs a shell command');
    if (LAST_ARG_WRITERS.has(name) && args.length > 1) this.writes(args.at(-1)!);
    if (ALL_ARG_WRITERS.has(name)) for (const arg of args) if (!arg.text.startsWith('-')) this.writes(arg);
    if (name === 'sed' && args.some((arg) => /^(-i|--in-place)/.test(arg.text)))
      for (const arg of args.slice(1)) if (!arg.text.startsWith('-')) this.writes(arg);
  }

  private rm(args: WordValue[]): void {
    let recursive = false;
    let options = true;
    const targets: WordValue[] = [];
    for (const arg of args) {
      if (options && arg.text === '--') options = false;
      else if (options && arg.text === '--no-preserve-root') this.flag('rm --no-preserve-root');
      else if (options && arg.text.startsWith('--')) recursive ||= arg.text === '--recursive';
      else if (options && /^-[a-zA-Z]+$/.test(arg.text)) recursive ||= /[rR]/.test(arg.text);
      else targets.push(arg);
    }
    if (!recursive) return;
    for (const target of targets) {
      const signature = destructiveTarget(target, 'recursive delete', this.ctx);
      if (signature) this.flag(signature);
    }
  }

  private find(args: WordValue[], command: SimpleCommand): void {
    const firstExpression = args.findIndex((arg) => /^[-(!]/.test(arg.text) && arg.text !== '-');
    const starts = firstExpression === -1 ? args : args.slice(0, firstExpression);
    const expression = firstExpression === -1 ? [] : args.slice(firstExpression);
    let deletes = false;
    for (let index = 0; index < expression.length; index++) {
      const text = expression[index]!.text;
      if (text === '-delete') deletes = true;
      if (/^-(exec|execdir|ok|okdir)$/.test(text)) {
        const end = expression.findIndex((arg, at) => at > index && (arg.text === ';' || arg.text === '+'));
        const inner = expression.slice(index + 1, end === -1 ? undefined : end);
        const innerName = inner[0] && !inner[0].dynamic ? programName(inner[0].text) : '';
        if (/^(rm|unlink|shred)$/.test(innerName)) deletes = true;
        this.invocation(inner, command, true);
        if (end === -1) break;
        index = end;
      }
    }
    if (!deletes) return;
    const filtered = expression.some((arg) => FIND_FILTERS.test(arg.text));
    for (const start of starts.length > 0
      ? starts
      : [{ text: '.', dynamic: false, ifs: false, process: false }]) {
      if (filtered && !start.dynamic && absolutePath(start.text, this.ctx).startsWith(this.ctx.workspace))
        continue;
      const signature = destructiveTarget(start, 'recursive delete (find)', this.ctx);
      if (signature) this.flag(signature);
    }
  }

  private recursiveChange(name: string, args: WordValue[]): void {
    const recursive = args.some(
      (arg) => arg.text === '--recursive' || /^-[a-zA-Z]*R[a-zA-Z]*$/.test(arg.text),
    );
    if (!recursive) return;
    const operands = args.filter((arg) => !arg.text.startsWith('-')).slice(1);
    for (const operand of operands) {
      const signature = destructiveTarget(operand, `recursive ${name}`, this.ctx);
      if (signature && !signature.includes('only known at run time')) this.flag(signature);
    }
  }

  private source(name: string, args: WordValue[]): void {
    const file = args[0];
    if (!file) return;
    if (file.process) this.flag(`runs code from a process substitution (${name} <(…))`);
    else if (file.dynamic) this.cannot(`\`${name}\` of a file named at run time`);
  }

  private interpreter(name: string, args: WordValue[], command: SimpleCommand): void {
    const source = programSource(name, args);
    const shell = SHELLS.has(name);
    if (source.from === 'argument') {
      if (!shell) {
        // `python3 -m module` runs an installed module, like a script file; inline code could do anything.
        if (!args.some((arg) => arg.text === '-m')) this.cannot(`${name} running inline code`);
        return;
      }
      if (source.value.dynamic) {
        this.cannot(`${name} -c with a command built at run time`);
        return;
      }
      this.nestedScript(source.value.text, `${name} -c`);
      return;
    }
    if (source.from === 'file') {
      if (source.value.process) this.flag(`runs code from a process substitution (${name} <(…))`);
      else if (shell && source.value.dynamic) this.cannot(`${name} runs a script named at run time`);
      return;
    }
    const input = command.redirects.find((redirect) => ['<<', '<<-', '<<<', '<'].includes(redirect.op));
    if (!input) {
      if (command.stdinFromPipe) this.flag(`pipes into an interpreter (${name})`);
      return;
    }
    if (input.op === '<') {
      const file = evaluateWord(input.target);
      if (file.process) this.flag(`runs code from a process substitution (${name} < <(…))`);
      return;
    }
    const body = input.heredoc ? input.heredoc.parts : input.target.parts;
    const value = evaluateWord({ parts: body });
    if (!shell) {
      this.cannot(`${name} running inline code`);
      return;
    }
    if (value.dynamic) this.flag(`feeds generated code to ${name}`);
    else this.nestedScript(value.text, `a script fed to ${name}`);
  }

  private suCommand(args: WordValue[]): void {
    const index = args.findIndex((arg) => arg.text === '-c' || arg.text === '--command');
    const script = index === -1 ? undefined : args[index + 1];
    if (!script) return;
    if (script.dynamic) this.cannot('su -c with a command built at run time');
    else this.nestedScript(script.text, 'su -c');
  }
}

export { RUNTIME };
