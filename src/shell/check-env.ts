import { posix } from 'node:path';
import { RUN_MARKER } from '../util/run-marker.js';
import { checkGitEnvironment, harmlessProgram } from './check-git.js';
import { hostOf, PROXY_VARIABLES } from './network-programs.js';
import type { RuleHost } from './rule-host.js';
import {
  evaluateWordWith,
  expandTilde,
  literalValue,
  RUNTIME,
  type WordValue,
  within,
} from './shell-paths.js';

export { RUN_MARKER };

/** Variables that make a shell, the loader or a common program run code or read config from elsewhere. */
const CHANGES_WHAT_RUNS =
  /^(BASH_ENV|ENV|ZDOTDIR|PROMPT_COMMAND|LD_\w+|GCONV_PATH|LESSOPEN|LESSCLOSE|HOME|XDG_CONFIG_HOME|GIT_DIR|GIT_WORK_TREE|SHELLOPTS|BASHOPTS|PERL5OPT|PERL5DB|RUBYOPT|PYTHONSTARTUP|SUDO_ASKPASS|BROWSER)$/;
/** Variables naming a program to run (an editor, a pager): harmless with `cat`, `less`, `true` … */
const PROGRAM_VARIABLES = /^(EDITOR|VISUAL|PAGER|MANPAGER|SYSTEMD_PAGER)$/;
/** Prompts: expanded (substitutions included) when shown, `PS4` on every command under `set -x`. */
const PROMPTS = /^PS[0-4]$/;
const NODE_CODE = /(^|\s)(-r|--require|--import|--loader|--experimental-loader|-e|--eval|-p|--print)(\s|=|$)/;
/** Stands for the value `$PATH` had, while reading a new PATH. */
const ORIGINAL = '\u0002';

/**
 * An assignment (`NAME=value` before a command, alone, in `export`/`declare`, or given to `env`): git
 * settings that run programs, variables that change what runs (`BASH_ENV`, `LD_PRELOAD`, `PATH` with the
 * working folder first, `EDITOR="sh x"`, `HOME` …), proxies (the network and their host), and the run
 * marker Wren's clean-up uses.
 */
export function checkAssignment(host: RuleHost, assignment: WordValue): void {
  const match = /^([A-Za-z_]\w*)(\+?)=(.*)$/s.exec(assignment.text);
  if (!match) return;
  const [, name, append, value] = match as unknown as [string, string, string, string];
  checkGitEnvironment(host, assignment);
  const runs = `changes what a program runs (${name})`;
  if (name === RUN_MARKER) host.hides('clears');
  if (name === 'GIT_DIR' && value === '.git') return;
  if (CHANGES_WHAT_RUNS.test(name)) host.flag(runs);
  if (PROGRAM_VARIABLES.test(name) && !harmlessProgram(value)) host.flag(runs);
  if (PROMPTS.test(name) && /[$`\u0001]/.test(value)) host.flag(runs);
  if (name === 'NODE_OPTIONS' && (NODE_CODE.test(value) || value.includes(RUNTIME))) host.flag(runs);
  if (name === 'PATH' && !append && searchesWorkspace(host, assignment)) host.flag(runs);
  if (name === 'PATH' && append && /(^|:)\.?(:|$)/.test(value)) host.flag(runs);
  if (PROXY_VARIABLES.test(name)) {
    host.network();
    const proxy = hostOf(value) ?? /^[\w.-]+\.[a-z]{2,}/i.exec(value)?.[0]?.toLowerCase();
    if (proxy) {
      host.host(proxy);
      host.address(proxy);
    }
  }
}

/**
 * Whether a new PATH looks in the working folder or the workspace before the system's folders: an entry
 * before `$PATH` (or any, without it) that is relative, empty (the working folder), known only at run time
 * or inside the workspace, or `.`/an empty entry anywhere (a name not found runs from the working folder).
 */
function searchesWorkspace(host: RuleHost, assignment: WordValue): boolean {
  const marked = assignment.source
    ? evaluateWordWith(assignment.source, new Map([['PATH', literalValue(ORIGINAL)]]))
    : assignment;
  const entries = marked.text.replace(/^[A-Za-z_]\w*=/, '').split(':');
  const original = entries.indexOf(ORIGINAL);
  return entries.some((entry, index) => {
    if (entry === '' || entry === '.') return true;
    if (original !== -1 && index >= original) return false;
    if (entry.includes(RUNTIME)) return true;
    if (!entry.startsWith('/') && !entry.startsWith('~')) return true;
    return within(posix.normalize(expandTilde(entry, host.ctx)), host.ctx.workspace);
  });
}
