import { checkBuiltin } from './check-builtins.js';
import { checkAssignment, RUN_MARKER } from './check-env.js';
import { checkFileEffects, checkRead, checkWrite } from './check-file-effects.js';
import { checkGit } from './check-git.js';
import { checkInterpreter, checkSource, checkSu, runsScriptDirectly } from './check-interpreter.js';
import { checkSqlite } from './check-sqlite.js';
import { checkDiskFill, checkSystem } from './check-system.js';
import {
  checkCommandRunners,
  checkCredentials,
  checkEditor,
  checkOptionRunners,
  checkWrenCli,
} from './check-tools.js';
import { folderOf } from './cwd-tracker.js';
import { type FileEffects, noEffects } from './file-effect-types.js';
import { fileEffects } from './file-effects.js';
import { parseGit } from './git-effects.js';
import { checkNamedLocations } from './named-locations.js';
import { hostsIn, reachesNetwork } from './network-programs.js';
import { operandHost, reachesDefaultLocal, socketOption, takesNumber } from './operand-host.js';
import { SAFE_DEVICES } from './path-refs.js';
import { contentOperands, NAMES_ONLY } from './program-kinds.js';
import { pythonModule } from './python-modules.js';
import { type Cwd, insideWorkspace, resolvePaths } from './resolve-paths.js';
import type { RuleHost } from './rule-host.js';
import { DECLARATIONS, evaluateWords } from './shell-expansion.js';
import {
  type AnalysisContext,
  type Parameters,
  SYSTEM_FOLDERS,
  showPath,
  type WordValue,
} from './shell-paths.js';
import { isInterpreter, programName } from './shell-programs.js';
import type { Redirection, SimpleCommand } from './shell-script.js';
import { type Unwrapped, unwrapCommand } from './shell-wrappers.js';

/** What the rules found in one script (and the scripts nested in it). */
export interface Findings {
  signatures: Set<string>;
  unanalysable: string[];
  /** Programs run at the script's own level, in order (the first is the grant target). */
  programs: string[];
  /** Hosts named in arguments (URLs, `user@host:`). */
  hosts: string[];
  /**
   * Hosts the command may connect to, as written: those of `hosts` (except in what only prints text, such
   * as `echo`), the operands of network clients (`nc 127.0.0.1 6379`, `ssh user@10.0.0.5`) and `/dev/tcp`
   * redirections. The exec tool judges which are local (see isLocalHost).
   */
  addresses: string[];
  /** A program that reaches the network runs. */
  network: boolean;
  /** It runs an interpreter on a file, a local program or a task runner. */
  runsScript: boolean;
  /** It clears Wren's run marker from some environment (`unset WREN_EXEC_RUN`, `env -i`, `exec -c`). */
  clearsMarker: boolean;
  /** It detaches a process (`setsid`, `nohup`, `disown`, `&`). */
  detaches: boolean;
}

/** Bounds wrapper chains (`sudo env nice …`), nested scripts, aliases and calls. */
export const MAX_DEPTH = 8;
const WRITE_REDIRECTS = new Set(['>', '>>', '>|', '<>', '&>', '&>>', '>&']);
const PRIVILEGE = new Set(['sudo', 'su', 'doas', 'pkexec', 'runuser']);
/** Builtins that change the shell's working folder; their arguments are not files read. */
export const FOLDER_CHANGES = new Set(['cd', 'pushd', 'popd']);
const DETACHES = new Set(['setsid', 'nohup', 'disown', 'daemonize', 'start-stop-daemon']);
/** Programs that only print their arguments: a URL they name is text, not a connection. */
const PRINTS_ONLY = new Set(['echo', 'printf', ':', 'true', 'false']);
/** Clients of local services (databases, caches, load testers) whose operands and `-h` values name a host. */
const SERVICE_CLIENTS = new Set([
  ...['redis-cli', 'valkey-cli', 'psql', 'pg_dump', 'pg_isready', 'mysql', 'mariadb', 'mysqldump', 'mongo'],
  ...['mongosh', 'grpcurl', 'ab', 'wrk', 'hey', 'ldapsearch', 'snmpget', 'snmpwalk', 'memcflush', 'etcdctl'],
]);
/** `/dev/tcp/HOST/PORT` and `/dev/udp/…`: bash connects a redirection there itself. */
const BASH_SOCKET = /^\/dev\/(tcp|udp)\/([^/]+)\//;

/** Targets of writes and deletes are checked as such; other arguments may be files the program reads. */
function targetsOf(effects: FileEffects): WordValue[] {
  return [
    ...effects.notPaths,
    ...effects.writes,
    ...effects.folders,
    ...effects.deletes.map((remove) => remove.value),
  ];
}

/**
 * Checks one program run (through wrappers such as `sudo`, `env`, `xargs`, `find -exec`) against the rule
 * families: file effects, secrets, git, interpreters, the system. Subclasses decide the order of commands,
 * the working folders and what a call of a script-defined function or alias means.
 */
export abstract class ProgramCheck implements RuleHost {
  cwds: readonly Cwd[];
  /** The context; a script that sets glob options (`shopt -s dotglob`) replaces it with one that says so. */
  ctx: AnalysisContext;
  /** The same command checked again with other values of its variables: programs and calls count once. */
  protected repeat = false;
  private current?: SimpleCommand;

  constructor(
    ctx: AnalysisContext,
    protected readonly findings: Findings,
    cwds: readonly Cwd[],
  ) {
    this.ctx = ctx;
    this.cwds = cwds;
  }

  abstract nestedScript(text: string, where: string): void;

  /** A script this shell runs later with its own variables (`trap CODE`, `mapfile -C CODE`). */
  protected abstract sharedScript(text: string, where: string): void;

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

  network(): void {
    this.findings.network = true;
  }

  host(name: string): void {
    if (!this.findings.hosts.includes(name)) this.findings.hosts.push(name);
  }

  address(name: string): void {
    if (!this.findings.addresses.includes(name)) this.findings.addresses.push(name);
  }

  hides(part: 'clears' | 'detaches'): void {
    if (part === 'clears') this.findings.clearsMarker = true;
    else this.findings.detaches = true;
  }

  nestedCommand(values: WordValue[], _where: string): void {
    if (this.current) this.invocation(values, this.current, false, 1);
  }

  protected redirect(redirect: Redirection, params: Parameters | undefined): void {
    for (const value of evaluateWords(redirect.target, params)) {
      const socket = value.dynamic ? undefined : BASH_SOCKET.exec(value.text);
      if (socket) {
        this.network();
        this.host(socket[2]!.toLowerCase());
        this.address(socket[2]!);
      }
      if (redirect.op === '<' || redirect.op === '<>') {
        checkRead(this, value, false, true);
        if (redirect.fd !== undefined && !/^[012]$/.test(redirect.fd)) this.descriptor(value);
      }
      if (!WRITE_REDIRECTS.has(redirect.op) || (redirect.op === '>&' && /^(\d+|-)$/.test(value.text)))
        continue;
      checkWrite(this, value);
    }
  }

  /**
   * `3<DIR`: a descriptor open on a folder lets later paths (`/dev/fd/3/…`) reach inside it, past every
   * check; one on a folder outside the workspace is a signature.
   */
  private descriptor(value: WordValue): void {
    const { ctx } = this;
    for (const ref of resolvePaths(value, this.cwds, ctx).refs) {
      if (insideWorkspace(ref, ctx) || SAFE_DEVICES.test(ref.path)) continue;
      const folder =
        /\/$|^~[^/]*$/.test(value.text) ||
        [ctx.home, '/', ...SYSTEM_FOLDERS, ...ctx.protectedPaths].includes(ref.path) ||
        /^\/proc\/[^/]+$/.test(ref.path) ||
        ref.path.startsWith(`${ctx.home}/.`);
      if (folder)
        this.flag(`opens a folder outside the workspace on a file descriptor (${showPath(ref.path, ctx)})`);
    }
  }

  protected assignment(value: WordValue): void {
    checkAssignment(this, value);
    checkRead(this, value, false, false);
  }

  /** One program run with its arguments (after assignments); `top` when at the script's own level. */
  protected invocation(values: WordValue[], command: SimpleCommand, top: boolean, wrapped = 0): void {
    const head = values[0];
    if (!head) return;
    if (head.dynamic) {
      this.cannot('the program name comes from a variable or substitution');
      return;
    }
    this.current = command;
    const name = programName(head.text);
    const args = values.slice(1);
    const unwrapped = unwrapCommand(name, args);
    if (top && !this.repeat && (!unwrapped || PRIVILEGE.has(name))) this.findings.programs.push(name);
    if (top && (!unwrapped || PRIVILEGE.has(name))) top = false;
    const effects = unwrapped ? noEffects() : fileEffects(name, args);
    this.arguments(name, args, effects, unwrapped !== undefined);
    if (DETACHES.has(name) || command.background) this.hides('detaches');
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
      checkSystem(this, name, args);
      this.wrapped(unwrapped, command, top, wrapped);
      return;
    }
    if (runsScriptDirectly(head.text, name, args, command)) this.runsScript();
    checkFileEffects(this, effects);
    this.rules(name, args, command);
    if (!this.repeat) this.called(name, args, command);
  }

  /** The command a wrapper runs, in the folder it gives (`env -C DIR`), or its command string. */
  private wrapped(unwrapped: Unwrapped, command: SimpleCommand, top: boolean, depth: number): void {
    if ('unanalysable' in unwrapped) {
      this.cannot(unwrapped.unanalysable);
      return;
    }
    if (depth > MAX_DEPTH) {
      this.cannot('too many nested wrapper commands');
      return;
    }
    const saved = this.cwds;
    if (unwrapped.chdir) this.cwds = folderOf(unwrapped.chdir, saved, this.ctx);
    if ('script' in unwrapped) {
      if (unwrapped.script.dynamic) this.cannot(`${unwrapped.where} with a command built at run time`);
      else this.nestedScript(unwrapped.script.text, unwrapped.where);
    } else {
      for (const file of unwrapped.writes) checkWrite(this, file);
      if (unwrapped.clearsEnvironment || unwrapped.unsets.includes(RUN_MARKER)) this.hides('clears');
      this.invocation(unwrapped.inner, command, top, depth + 1);
    }
    this.cwds = saved;
  }

  /**
   * What every argument can do, whatever the program: read a secret (a file only known at run time, when
   * the program reads contents), name a host, set an environment variable (`env`, `export`), name a
   * protected location or an instruction file; and whether the program reaches the network.
   */
  private arguments(name: string, args: WordValue[], effects: FileEffects, wrapper: boolean): void {
    const targets = targetsOf(effects);
    const files = wrapper ? new Set<WordValue>() : contentOperands(name, args);
    const git = name === 'git' ? parseGit(args) : undefined;
    const network = reachesNetwork(name, args, git?.subcommand, git?.rest);
    const client = !wrapper && (network || SERVICE_CLIENTS.has(name));
    args.forEach((arg, index) => {
      const read = !targets.includes(arg) && !FOLDER_CHANGES.has(name) && !(arg.glob && NAMES_ONLY.has(name));
      if (read) checkRead(this, arg, false, files.has(arg));
      for (const found of hostsIn(arg, args[index - 1])) {
        this.host(found);
        if (!PRINTS_ONLY.has(name)) this.address(found);
      }
      const previous = args[index - 1]?.text;
      const operand = client && !arg.dynamic && !takesNumber(name, previous);
      const named = operand ? operandHost(arg.text) : undefined;
      if (named) this.address(named);
      if (!arg.dynamic && socketOption(name, previous)) this.address(`unix:${arg.text}`);
      if ((name === 'env' || DECLARATIONS.has(name)) && /^[A-Za-z_]\w*\+?=/.test(arg.text))
        checkAssignment(this, arg);
    });
    if (!wrapper) checkNamedLocations(this, name, args, targets);
    if (network) this.network();
    if (
      !wrapper &&
      reachesDefaultLocal(
        name,
        args.map((arg) => arg.text),
      )
    )
      this.address('localhost');
    if (name === 'alias' && !this.repeat) this.defineAliases(args);
  }

  private rules(name: string, args: WordValue[], command: SimpleCommand): void {
    checkSystem(this, name, args);
    checkDiskFill(this, name, args, command);
    checkCredentials(this, name, args);
    checkWrenCli(this, name, args);
    checkCommandRunners(this, name, args);
    checkOptionRunners(this, name, args);
    checkEditor(this, name, args, command);
    checkSqlite(this, name, args, command);
    checkBuiltin(this, name, args, (text, where) => this.sharedScript(text, where));
    if (name === 'source' || name === '.') checkSource(this, name, args, command);
    else if (isInterpreter(name)) {
      checkInterpreter(this, name, args, command);
      const module = /^python/.test(name) ? pythonModule(args) : undefined;
      if (module) checkFileEffects(this, module.effects);
      if (module?.network) this.network();
    } else if (name === 'git') checkGit(this, args);
    else if (name === 'find') this.findExec(args, command);
  }

  /** The commands `find -exec … ;` runs, checked like any other; `-execdir` runs in each found file's folder. */
  private findExec(args: WordValue[], command: SimpleCommand): void {
    for (let index = 0; index < args.length; index++) {
      const action = args[index]!.text;
      if (!/^-(exec|execdir|ok|okdir)$/.test(action)) continue;
      const end = args.findIndex((arg, at) => at > index && (arg.text === ';' || arg.text === '+'));
      const saved = this.cwds;
      if (action.endsWith('dir')) this.cwds = [undefined];
      this.invocation(args.slice(index + 1, end === -1 ? undefined : end), command, true);
      this.cwds = saved;
      if (end === -1) break;
      index = end;
    }
  }
}
