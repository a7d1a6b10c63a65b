import { parseGit } from './git-effects.js';
import type { RuleHost } from './rule-host.js';
import { RUNTIME, type WordValue } from './shell-paths.js';

/**
 * Config keys whose value names a program git runs (or a file of more config), as
 * `section.variable` or `section.*.variable` (with a subsection), in git's documented spelling.
 */
const PROGRAM_KEYS = [
  ...['core.fsmonitor', 'core.sshCommand', 'core.pager', 'core.editor', 'core.hooksPath', 'core.askPass'],
  ...['core.gitProxy', 'core.alternateRefsCommand', 'diff.external', 'diff.*.textconv', 'diff.*.command'],
  ...['merge.*.driver', 'filter.*.clean', 'filter.*.smudge', 'filter.*.process', 'credential.helper'],
  ...['credential.*.helper', 'sequence.editor', 'gpg.program', 'gpg.*.program'],
  ...['uploadpack.packObjectsHook', 'protocol.allow', 'protocol.*.allow', 'remote.*.uploadpack'],
  ...['remote.*.receivepack', 'include.path', 'includeIf.*.path', 'init.templateDir', 'web.browser'],
  ...['browser.*.cmd', 'browser.*.path', 'man.viewer', 'man.*.cmd', 'man.*.path', 'mergetool.*.cmd'],
  ...['mergetool.*.path', 'difftool.*.cmd', 'difftool.*.path', 'interactive.diffFilter'],
  ...['sendemail.smtpServer', 'sendemail.toCmd', 'sendemail.ccCmd', 'sendemail.sendmailCmd'],
];
/** Environment variables that make git (or ssh under it) run a program, or read config from elsewhere. */
const PROGRAM_ENVIRONMENT = new Set([
  ...['GIT_SSH', 'GIT_SSH_COMMAND', 'GIT_PAGER', 'GIT_EDITOR', 'GIT_SEQUENCE_EDITOR', 'GIT_ASKPASS'],
  ...['SSH_ASKPASS', 'GIT_EXTERNAL_DIFF', 'GIT_PROXY_COMMAND', 'GIT_EXEC_PATH', 'GIT_TEMPLATE_DIR'],
  ...['GIT_CONFIG', 'GIT_CONFIG_GLOBAL', 'GIT_CONFIG_SYSTEM'],
]);
/** Options of git subcommands that name a program to run. */
const PROGRAM_OPTIONS = /^--(upload-pack|receive-pack|exec|template|open-files-in-pager|extcmd)(=|$)/;
/** Settings and variables naming an editor or a pager: harmless with one of {@link harmlessProgram}. */
const VIEWERS =
  /^(core\.pager|core\.editor|sequence\.editor|pager\..+|GIT_PAGER|GIT_EDITOR|GIT_SEQUENCE_EDITOR)$/i;

/** A pager or editor value that runs nothing else: `cat`, `less` (with options), `more`, `true`, `:`, empty. */
export function harmlessProgram(value: string): boolean {
  return /^\s*(cat|less(\s+-[A-Za-z]+)*|more|true|:)?\s*$/.test(value);
}

/** The documented spelling of a config key when it names a program, else undefined. Keys ignore case except for the subsection. */
export function programKey(key: string): string | undefined {
  const first = key.indexOf('.');
  const last = key.lastIndexOf('.');
  if (first <= 0 || last === key.length - 1) return undefined;
  const section = key.slice(0, first).toLowerCase();
  const variable = key.slice(last + 1).toLowerCase();
  const subsection = first === last ? undefined : key.slice(first + 1, last);
  if (section === 'pager') return `pager.${key.slice(first + 1)}`;
  for (const known of PROGRAM_KEYS) {
    const parts = known.split('.');
    if (parts[0]!.toLowerCase() !== section || parts.at(-1)!.toLowerCase() !== variable) continue;
    if ((parts.length === 3) === (subsection !== undefined))
      return subsection === undefined ? known : `${parts[0]}.${subsection}.${parts[2]}`;
  }
  return undefined;
}

/** A `key=value` setting given to git (`-c`, `clone --config`, `GIT_CONFIG_KEY_n`). */
function checkSetting(host: RuleHost, setting: WordValue, where: string): void {
  const equals = setting.text.indexOf('=');
  const key = equals === -1 ? setting.text : setting.text.slice(0, equals);
  if (key.includes(RUNTIME)) {
    host.cannot(`${where} with a setting built at run time`);
    return;
  }
  const value = equals === -1 ? '' : setting.text.slice(equals + 1);
  if (/^alias\./i.test(key) && /^\s*!/.test(value)) {
    host.cannot('a git alias that runs a shell command');
    host.flag(`git config that runs a program (${key})`);
  }
  if (/^submodule\..+\.update$/i.test(key) && value.startsWith('!'))
    host.flag(`git config that runs a program (${key})`);
  const shown = programKey(key);
  if (shown && !(VIEWERS.test(key) && equals !== -1 && harmlessProgram(value)))
    host.flag(`git config that runs a program (${shown})`);
}

/**
 * An environment assignment (`NAME=value` before a command, in `export`, or given to `env`) that makes git
 * run a program: `GIT_SSH_COMMAND`, `GIT_PAGER` …, or a config key passed as `GIT_CONFIG_KEY_n`.
 */
export function checkGitEnvironment(host: RuleHost, assignment: WordValue): void {
  const match = /^([A-Za-z_]\w*)\+?=(.*)$/s.exec(assignment.text);
  if (!match) return;
  const [, name, value] = match as unknown as [string, string, string];
  if (PROGRAM_ENVIRONMENT.has(name) && !(VIEWERS.test(name) && harmlessProgram(value)))
    host.flag(`git config that runs a program (${name})`);
  else if (/^GIT_CONFIG_KEY_\d+$/.test(name)) checkSetting(host, { ...assignment, text: value }, name);
  else if (name === 'GIT_CONFIG_PARAMETERS') {
    const keys = [...value.matchAll(/'([^'=]+)'?=/g)].map((found) => found[1]!);
    if (keys.length === 0 || value.includes(RUNTIME))
      host.flag('git config that runs a program (GIT_CONFIG_PARAMETERS)');
    for (const key of keys) checkSetting(host, { ...assignment, text: key }, name);
  }
}

/** Where git's subcommand starts, after its global options (`git -C dir -c k=v status`). */
export function gitSubcommand(args: WordValue[]): number {
  return parseGit(args).at;
}

/**
 * git settings and options that run programs: `-c`/`--config-env` keys, `--exec-path`, a repository
 * other than `.git` (`--git-dir`: its config may run programs), subcommand options (`--upload-pack`,
 * `clone -u`, `--config`), `git config KEY VALUE` for such a key, and subcommands that run shell commands
 * (`rebase -x`, `submodule foreach`, `bisect run`, `filter-branch`).
 */
export function checkGit(host: RuleHost, args: WordValue[]): void {
  const call = parseGit(args);
  for (const setting of call.settings) checkSetting(host, setting, 'git -c');
  const start = gitSubcommand(args);
  args.slice(0, start).forEach((arg, index) => {
    const next = args[index + 1];
    if (arg.text === '--config-env' && next) checkSetting(host, next, 'git --config-env');
    if (arg.text.startsWith('--config-env='))
      checkSetting(host, { ...arg, text: arg.text.slice(13) }, 'git --config-env');
    if (arg.text.startsWith('--exec-path=')) host.flag('git config that runs a program (--exec-path)');
  });
  if (call.gitDir && !/^(\.\/)?\.git\/?$/.test(call.gitDir.text))
    host.flag('git config that runs a program (--git-dir)');
  const subcommand = call.subcommand;
  const rest = call.rest;
  for (const [index, arg] of args.entries()) {
    const option = PROGRAM_OPTIONS.exec(arg.text)?.[1];
    if (option && !(option === 'exec' && subcommand === 'rebase'))
      host.flag(`git config that runs a program (--${option})`);
    if (index > start && subcommand === 'difftool' && (arg.text === '-x' || arg.text.startsWith('-x')))
      host.flag('git config that runs a program (--extcmd)');
    if (/^--smtp-server=.*\//.test(arg.text)) host.flag('git config that runs a program (--smtp-server)');
    if (subcommand === 'clone' && index > start && arg.text === '-u')
      host.flag('git config that runs a program (--upload-pack)');
  }
  if (subcommand === 'clone') {
    rest.forEach((arg, index) => {
      if ((arg.text === '-c' || arg.text === '--config') && rest[index + 1])
        checkSetting(host, rest[index + 1]!, 'git clone --config');
      if (arg.text.startsWith('--config='))
        checkSetting(host, { ...arg, text: arg.text.slice(9) }, 'git clone --config');
    });
  }
  if (subcommand === 'config') configCommand(host, rest);
  shellSubcommand(host, subcommand, rest);
}

/** `git config [--global …] KEY VALUE`, `git config set KEY VALUE`: setting a key that runs a program. */
function configCommand(host: RuleHost, args: WordValue[]): void {
  const positional: WordValue[] = [];
  for (let index = 0; index < args.length; index++) {
    const text = args[index]!.text;
    if (/^(-f|--file|--blob|--type|--default|--comment|--value)$/.test(text)) index++;
    else if (!text.startsWith('-')) positional.push(args[index]!);
  }
  const verbs = /^(get|unset|list|edit|rename-section|remove-section|get-all|get-regexp)$/;
  const [first, second, third] = positional;
  const setting = (key: WordValue, value: WordValue | undefined) =>
    checkSetting(
      host,
      { ...key, text: `${key.text}=${value?.text ?? ''}`, dynamic: key.dynamic || value?.dynamic === true },
      'git config',
    );
  if (first?.text === 'set' && second) setting(second, third);
  else if (first && second && !verbs.test(first.text)) setting(first, second);
}

function shellSubcommand(host: RuleHost, subcommand: string | undefined, args: WordValue[]): void {
  const script = (values: WordValue[], where: string) => {
    if (values.some((value) => value.dynamic)) host.cannot(`${where} with a command built at run time`);
    else if (values.length > 0) host.nestedScript(values.map((value) => value.text).join(' '), where);
  };
  if (subcommand === 'filter-branch') host.cannot('git filter-branch runs shell commands');
  if (subcommand === 'rebase') {
    args.forEach((arg, index) => {
      if ((arg.text === '-x' || arg.text === '--exec') && args[index + 1])
        script([args[index + 1]!], 'git rebase --exec');
      if (arg.text.startsWith('--exec=')) script([{ ...arg, text: arg.text.slice(7) }], 'git rebase --exec');
    });
  }
  if (subcommand === 'submodule' && args[0]?.text === 'foreach') {
    // One argument is a shell string; several are run as they are, without joining.
    let index = 1;
    while (args[index] && /^(--recursive|-q|--quiet|--)$/.test(args[index]!.text)) index++;
    const command = args.slice(index);
    if (command.length === 1) script(command, 'git submodule foreach');
    else if (command.length > 1) host.nestedCommand(command, 'git submodule foreach');
  }
  if (subcommand === 'bisect' && args[0]?.text === 'run') script(args.slice(1), 'git bisect run');
}
