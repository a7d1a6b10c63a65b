import type { RuleHost } from './rule-host.js';
import { evaluateWord, type WordValue } from './shell-paths.js';
import { isInterpreter, programSource, SHELLS } from './shell-programs.js';
import type { SimpleCommand } from './shell-script.js';

/** Task runners: they run code the workspace defines (Makefile recipes, package scripts, tests, build.rs). */
export const PROJECT_RUNNERS = new Set([
  ...['make', 'gmake', 'just', 'ninja', 'rake', 'npm', 'npx', 'pnpm', 'pnpx', 'yarn', 'cargo', 'go'],
  ...['gradle', 'mvn', 'pytest', 'tox', 'nox', 'poetry', 'uv', 'uvx', 'cmake', 'meson', 'bazel', 'expect'],
]);
/** A script file that is the command's own standard input. */
const STDIN_FILE = /^\/(dev\/stdin|dev\/fd\/0|proc\/(self|thread-self|\u0001)\/fd\/0)$/;
/** A script file that is another open descriptor. */
const DESCRIPTOR_FILE = /^\/(dev\/fd\/|proc\/[^/]+\/fd\/)/;
/** Where installed programs live; a program named by any other path is local (`./run.sh`, `bin/x`). */
const SYSTEM_PROGRAM = /^\/(usr\/(local\/)?)?s?bin\/[^/]+$/;
const STDIN_REDIRECTS = ['<<', '<<-', '<<<', '<'];

/**
 * Whether running `head` (spelled as written, `name` its program) runs code the analysis cannot see into: a
 * local program (`./run.sh`), a task runner, `source`, or an interpreter on a file, a module, inline code or
 * a file on its standard input. A shell's `-c` string is checked as a script instead (and counts if it does).
 */
export function runsScriptDirectly(
  head: string,
  name: string,
  args: WordValue[],
  command: SimpleCommand,
): boolean {
  if (head.includes('/') && !SYSTEM_PROGRAM.test(head)) return true;
  if (PROJECT_RUNNERS.has(name) || name === 'source' || name === '.') return true;
  if (!isInterpreter(name)) return false;
  if (!SHELLS.has(name)) return true;
  const source = programSource(name, args);
  if (source.from === 'file') return true;
  return source.from === 'stdin' && command.redirects.some((redirect) => redirect.op === '<');
}

/**
 * `source FILE` / `. FILE`: code from a process substitution, from a file named at run time, or from the
 * command's own input (`. /dev/stdin <<< '…'`: the text is checked as a script).
 */
export function checkSource(host: RuleHost, name: string, args: WordValue[], command: SimpleCommand): void {
  const file = args[0];
  if (!file) return;
  if (file.process) host.flag(`runs code from a process substitution (${name} <(…))`);
  else if (file.dynamic) host.cannot(`\`${name}\` of a file named at run time`);
  else if (STDIN_FILE.test(file.text)) fromStdin(host, name, command, true);
  else if (DESCRIPTOR_FILE.test(file.text)) host.cannot(`\`${name}\` of a script from a file descriptor`);
}

/** `su -c SCRIPT`: the script is checked one level deeper. */
export function checkSu(host: RuleHost, args: WordValue[]): void {
  const index = args.findIndex((arg) => arg.text === '-c' || arg.text === '--command');
  const script = index === -1 ? undefined : args[index + 1];
  if (!script) return;
  if (script.dynamic) host.cannot('su -c with a command built at run time');
  else host.nestedScript(script.text, 'su -c');
}

/**
 * An interpreter run: a shell's `-c` string or heredoc is checked as a script; other interpreters' inline
 * code cannot be analysed (`-m module` and script files are fine); piping into one, feeding it generated
 * code or a process substitution is a danger signature.
 */
export function checkInterpreter(
  host: RuleHost,
  name: string,
  args: WordValue[],
  command: SimpleCommand,
): void {
  const source = programSource(name, args);
  const shell = SHELLS.has(name);
  if (source.from === 'argument') {
    if (!shell) {
      // `python3 -m module` runs an installed module, like a script file; inline code could do anything.
      if (!args.some((arg) => arg.text === '-m')) host.cannot(`${name} running inline code`);
    } else if (source.value.dynamic) host.cannot(`${name} -c with a command built at run time`);
    else host.nestedScript(source.value.text, `${name} -c`);
    return;
  }
  if (source.from === 'file') {
    if (source.value.process) host.flag(`runs code from a process substitution (${name} <(…))`);
    else if (source.value.dynamic) host.cannot(`${name} runs a script named at run time`);
    else if (STDIN_FILE.test(source.value.text)) fromStdin(host, name, command, shell);
    else if (DESCRIPTOR_FILE.test(source.value.text))
      host.cannot(`${name} runs a script from a file descriptor`);
    return;
  }
  fromStdin(host, name, command, shell);
}

/** A program read from standard input: a pipe, a file, a heredoc or a here-string. */
function fromStdin(host: RuleHost, name: string, command: SimpleCommand, shell: boolean): void {
  const input = command.redirects.find((redirect) => STDIN_REDIRECTS.includes(redirect.op));
  if (!input) {
    if (command.stdinFromPipe) host.flag(`pipes into an interpreter (${name})`);
    return;
  }
  if (input.op === '<') {
    if (evaluateWord(input.target).process)
      host.flag(`runs code from a process substitution (${name} < <(…))`);
    return;
  }
  const value = evaluateWord({ parts: input.heredoc ? input.heredoc.parts : input.target.parts });
  if (!shell) host.cannot(`${name} running inline code`);
  else if (value.dynamic) host.flag(`feeds generated code to ${name}`);
  else host.nestedScript(value.text, `a script fed to ${name}`);
}
