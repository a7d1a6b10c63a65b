import { checkWrite } from './check-file-effects.js';
import type { RuleHost } from './rule-host.js';
import type { WordValue } from './shell-paths.js';
import type { SimpleCommand } from './shell-script.js';

/** Calls that print stored credentials: program → the argument words that do (a prefix of the operands). */
const CREDENTIAL_CALLS: Array<[string, RegExp]> = [
  ['gh', /^auth (token|status .*(-t|--show-token))/],
  ['git', /^credential(-store|-cache)? (fill|get)/],
  ['aws', /^(configure (export-credentials|get)|ecr get-login-password|sts get-session-token)/],
  ['kubectl', /^(config view .*--raw|create token)/],
  ['gcloud', /^(auth (application-default )?print-(access|identity)-token|config config-helper)/],
  ['secret-tool', /^(lookup|search)/],
  ['pass', /^(show|grep|otp|generate)/],
  ['gopass', /^(show|cat|otp)/],
  ['security', /^(find-(generic|internet)-password|dump-keychain)/],
  ['op', /^(read|inject|item get)/],
  ['bw', /^(get|export)/],
  ['vault', /^(read|kv get|token (create|lookup))/],
  ['az', /^account get-access-token/],
  ['heroku', /^auth:token/],
  ['lpass', /^show/],
  ['keyring', /^get/],
  ['wren', /^memory (show|export)/],
];
const CREDENTIAL_PROGRAMS = new Set(CREDENTIAL_CALLS.map(([program]) => program));
const PASS_COMMANDS =
  /^(init|ls|list|find|search|insert|add|edit|rm|remove|delete|mv|rename|cp|copy|git|help|version)$/;

/** `gh auth token`, `git credential fill`, `gpg --export-secret-keys`, `pass NAME` …: secrets on standard output. */
export function checkCredentials(host: RuleHost, name: string, args: WordValue[]): void {
  if (!CREDENTIAL_PROGRAMS.has(name) && !/^(gpg2?|docker-credential-.+)$/.test(name)) return;
  const operands = args.filter(
    (arg) => !arg.text.startsWith('-') || /^--?(raw|show-token|t)$/.test(arg.text),
  );
  const words = operands.map((arg) => arg.text).join(' ');
  for (const [program, pattern] of CREDENTIAL_CALLS) {
    const found = program === name ? pattern.exec(words) : null;
    if (found) host.flag(`prints stored credentials (${name} ${found[0].split(' ').slice(0, 3).join(' ')})`);
  }
  if ((name === 'gpg' || name === 'gpg2') && args.some((arg) => /^--export-secret-(sub)?keys/.test(arg.text)))
    host.flag(`prints stored credentials (${name} --export-secret-keys)`);
  if (
    name === 'pass' &&
    operands[0] &&
    !PASS_COMMANDS.test(operands[0].text) &&
    !/^(show|grep|otp|generate)$/.test(operands[0].text)
  )
    host.flag('prints stored credentials (pass show)');
  if (/^docker-credential-/.test(name) && args[0]?.text === 'get')
    host.flag(`prints stored credentials (${name} get)`);
}

/** Wren's own CLI changes its home (config, memory, tasks, MCP servers, grants): never a quiet side effect. */
export function checkWrenCli(host: RuleHost, name: string, args: WordValue[]): void {
  if (name !== 'wren') return;
  const first = args[0]?.text;
  if (first === undefined || /^(-V|--version|-h|--help|help|version)$/.test(first)) return;
  host.flag(`runs Wren's own CLI (wren ${first})`);
}

const TMUX_RUNS =
  /^(new|new-session|new-window|neww|split-window|splitw|send-keys|send|respawn-pane|respawnp|respawn-window|respawnw|run-shell|run|if-shell|if|display-popup|popup|pipe-pane|pipep|source-file|source)$/;
const CONTAINER_RUNS = /^(run|exec|create|start|restart|compose|container|cp|debug)$/;

/**
 * Programs that run commands Wren cannot follow: `parallel`, `tmux new …`, `screen -dm …`, `expect -c`,
 * containers (`docker run -v /:/h …` reaches the whole machine as root).
 */
export function checkCommandRunners(host: RuleHost, name: string, args: WordValue[]): void {
  const texts = args.map((arg) => arg.text);
  const first = texts.find((text) => !text.startsWith('-'));
  if (name === 'parallel') host.cannot('parallel runs commands Wren cannot analyse');
  if (name === 'tmux' && texts.some((text) => TMUX_RUNS.test(text)))
    host.cannot('tmux runs a command Wren cannot analyse');
  if (
    name === 'screen' &&
    texts.length > 0 &&
    !texts.every((text) => /^(-ls|-list|-v|--version|-r|-x|-S|-d)$/.test(text))
  )
    host.cannot('screen runs a command Wren cannot analyse');
  if (name === 'expect' && texts.includes('-c')) host.cannot('expect running inline code');
  if (/^(docker|podman|nerdctl)$/.test(name) && first && CONTAINER_RUNS.test(first))
    host.cannot(
      `${name} ${first} runs commands Wren cannot analyse (in a container that may mount the machine)`,
    );
}

/** ssh options that run a local command, and files of such options. */
const SSH_RUNS = /^(proxycommand|localcommand|knownhostscommand|permitlocalcommand|match)\b/i;

/**
 * Programs that read options from elsewhere or run local commands through an option: `ssh -o
 * ProxyCommand=…` (also under scp, sftp, rsync -e), `ssh -F FILE`, `curl -K FILE`, `wget -e CMD`, and
 * `direnv allow` (the folder's .envrc then runs in the owner's shells).
 */
export function checkOptionRunners(host: RuleHost, name: string, args: WordValue[]): void {
  const texts = args.map((arg) => arg.text);
  if (/^(ssh|scp|sftp|autossh)$/.test(name)) {
    texts.forEach((text, index) => {
      const value = text === '-o' ? texts[index + 1] : text.startsWith('-o') ? text.slice(2) : undefined;
      if (value !== undefined && SSH_RUNS.test(value))
        host.cannot(`${name} -o ${value.split(/[= ]/)[0]} runs a local command`);
      if (text === '-F' || /^-F./.test(text))
        host.cannot(`${name} -F reads options (which may run commands) from a file`);
    });
  }
  if (name === 'curl' && texts.some((text) => /^(-K|--config)(=|$)|^-K./.test(text)))
    host.cannot('curl -K reads options from a file');
  if (name === 'wget' && texts.some((text) => /^(-e|--execute)(=|$)|^-e./.test(text)))
    host.cannot('wget -e runs wgetrc commands');
  if (name === 'direnv' && texts[0] === 'allow') host.flag('changes what a program runs (direnv allow)');
}

const EDITORS = /^(ed|red|ex|vi|vim|nvim|view|vimdiff|gvim|nano|pico|emacs|micro|joe|mcedit|kak|hx)$/;
/** Editor options that take a value (vim's `-s scriptin`; for ed and ex `-s` is a flag); and those that run commands. */
const EDITOR_VALUES = /^(-c|--cmd|-S|-u|-i|-T|-w|-W|-r|--eval|-l|--load|-f|--funcall|--script|-x)$/;
const EDITOR_RUNS = /^(-c|--cmd|-S|--eval|-l|--load|-f|--funcall|--script|-x|-batch|--batch|-es|-e|-E|-s)$/;
const STDIN = new Set(['<', '<<', '<<-', '<<<']);

/**
 * Editors change the files they are given; one that runs commands (`vim -c`, `+cmd`, `ex -s`, `emacs
 * --eval`, or `ed`/`ex` reading commands from standard input) can write anything.
 */
export function checkEditor(host: RuleHost, name: string, args: WordValue[], command: SimpleCommand): void {
  if (!EDITORS.test(name)) return;
  let runs = command.stdinFromPipe || command.redirects.some((redirect) => STDIN.has(redirect.op));
  for (let index = 0; index < args.length; index++) {
    const text = args[index]!.text;
    if (EDITOR_RUNS.test(text) || /^-[a-zA-Z]*[cS]$/.test(text) || text.startsWith('+')) runs = true;
    const scriptIn = text === '-s' && !/^(r?ed|ex)$/.test(name);
    if (EDITOR_VALUES.test(text) || scriptIn || (/^-[a-zA-Z]*c$/.test(text) && text.length > 2)) index++;
    else if (!text.startsWith('-') && !text.startsWith('+')) checkWrite(host, args[index]!);
  }
  if (runs) host.cannot(`${name} running editor commands`);
}
