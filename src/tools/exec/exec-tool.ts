import { randomUUID } from 'node:crypto';
import { existsSync, realpathSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { type Tool, type ToolAssessment, type ToolContext, ToolError } from '../../agent/tool.js';
import { toolSchema } from '../../agent/tool-schema.js';
import { execVaultPlan } from '../../vault/exec-vault.js';
import { takeVaultOpener } from '../../vault/vault-references.js';
import { displayPath, resolveWorkspacePath } from '../fs/workspace-path.js';
import type { ExecConfig } from '../tools-config.js';
import type { CommandAnalysis } from './analyse-command.js';
import { execEnvironment } from './exec-env.js';
import { EXEC_LOG_DIR } from './exec-log-dir.js';
import { isLocalHost, localHostNames } from './local-address.js';
import { type RunResult, runProcess } from './run-process.js';
import {
  bwrapArguments,
  checkSandbox,
  resolveSandbox,
  type SandboxProbe,
  type SandboxResolution,
} from './sandbox.js';

export interface ExecToolOptions {
  /** Read at every call, so config reloads apply. */
  config: () => ExecConfig;
  /** Variable names Wren's own config reads (`${OPENAI_API_KEY}` …): never passed to commands. */
  deniedEnv?: () => readonly string[];
  /** Treated like `~/.ssh` by the analysis and hidden inside the sandbox (Wren's home: config, .env, db). */
  protectedPaths?: () => readonly string[];
  /** The environment the allow list picks from (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  /** The user's home folder (default `os.homedir()`). */
  home?: string;
  /** The shell that runs commands (default /bin/bash, else /bin/sh). */
  shell?: string;
  /** The sandbox probe (default `checkSandbox()`, cached; tests replace it). */
  checkSandbox?: () => Promise<SandboxProbe>;
  /**
   * Replaces secrets in text (the composition root passes the gate's `Redactor.text`): applied to the
   * saved output log, which the gate never sees, and to the result.
   */
  redact?: (text: string) => string;
  /** Marks this process's runs (see runMarkerPrefix), so a later start can stop what a crash left running. */
  markerPrefix?: string;
  /** Names that reach this machine without DNS (default: /etc/hosts' local entries and the machine's name). */
  localNames?: () => ReadonlySet<string>;
}

const parameters = z
  .object({
    command: z.string(),
    cwd: z.string().optional().describe('Default: the workspace'),
    timeout: z.number().int().min(1).max(3600).optional().describe('Seconds'),
    network: z.boolean().optional().describe('Allow network in the sandbox'),
    env: z
      .record(z.string(), z.string())
      .optional()
      .describe('Vault secrets as variables: {"T": "{{vault:NAME}}"}, used as "$T"'),
  })
  .strict();

type ExecArgs = z.infer<typeof parameters>;

/**
 * `exec`: runs a shell command in the workspace (or a folder inside it) with a minimal environment, in
 * bubblewrap when `tools.exec.sandbox` resolves to it, a timeout, everything the command started stopped
 * when it ends, and output capped as head + tail with the text saved (redacted, up to `log_cap_mb`) to
 * `.wren/exec/<time>.log`. `assess` reports danger signatures, what cannot be analysed, the programs (the
 * grant target) and network egress. `execute` runs whatever the gate let through, except text that does
 * not parse as shell, which is refused, and any command when `sandbox: bwrap` cannot run.
 */
export function createExecTool(options: ExecToolOptions): Tool {
  const home = options.home ?? homedir();
  const shell = options.shell ?? (existsSync('/bin/bash') ? '/bin/bash' : '/bin/sh');
  const probe = options.checkSandbox ?? (() => checkSandbox());
  // The probe runs bwrap once per process (cached), so `assess` stays fast after the first call.
  const sandboxFor = async (config: ExecConfig): Promise<SandboxResolution> =>
    resolveSandbox(config.sandbox, config.sandbox === 'none' ? undefined : await probe());
  const analyse = async (args: ExecArgs, ctx: ToolContext) => {
    const cwd = await resolveWorkspacePath([ctx.workspace], args.cwd ?? '.');
    const context = { workspace: ctx.workspace, cwd, home, protectedPaths: options.protectedPaths?.() ?? [] };
    // The analyser (src/shell, some fifty modules) loads with the first command, not at start-up.
    const { analyseCommand } = await import('./analyse-command.js');
    return { cwd, analysis: await analyseCommand(args.command, context) };
  };
  return {
    name: 'exec',
    description:
      'Run a bash command in the workspace; returns stdout+stderr (long output cut, full text saved to a file).',
    parameters: toolSchema(parameters),
    risk: 'sensitive',
    core: true,
    // Substituting a secret into shell source would change what the owner approved (quotes, `$`) and let the
    // model print it transformed past redaction; exec gets none.
    acceptsSecrets: false,
    // Vault secrets go in as environment variables (the command names them, never holds them).
    vaultTarget: 'programs',
    async assess(raw, ctx) {
      const args = parameters.parse(raw);
      let analysis: CommandAnalysis;
      try {
        analysis = (await analyse(args, ctx)).analysis;
      } catch (error) {
        return { unanalysable: error instanceof Error ? error.message : String(error) };
      }
      const sandboxed = (await sandboxFor(options.config())).mode === 'bwrap';
      const result = assessment(analysis, args, sandboxed, analysis.runsScript);
      // The sandbox without `network: true` has a loopback of its own; otherwise the host's is reachable.
      if (!sandboxed || args.network === true) {
        const names = (options.localNames ?? (() => localHostNames()))();
        const local = analysis.addresses.filter((host) => isLocalHost(host, names));
        if (local.length > 0)
          result.signatures = [
            ...(result.signatures ?? []),
            `reaches a local or private network address (${local.join(', ')})`,
          ];
      }
      return result;
    },
    async execute(raw, ctx, signal) {
      const opener = takeVaultOpener(raw);
      const args = parameters.parse(raw);
      const config = options.config();
      if (!config.enabled) throw new ToolError('exec is turned off in config.yaml (tools.exec.enabled).');
      const { cwd, analysis } = await analyse(args, ctx);
      if (analysis.parseError) {
        throw new ToolError(
          `The command is not valid shell (${analysis.parseError}); it was not run. Check quotes, brackets and operators.`,
        );
      }
      const info = await stat(cwd).catch(() => undefined);
      if (!info?.isDirectory()) throw new ToolError(`No folder at "${args.cwd}" in the workspace.`);
      const timeout = Math.min(args.timeout ?? config.timeout, config.maxTimeout);
      const sandbox = await sandboxFor(config);
      if (sandbox.refused) throw new ToolError(`The command was not run: ${sandbox.reason}`);
      // Secrets are opened only now, after the gate decided and every check above passed.
      const vault = execVaultPlan(args.command, args.env, opener);
      const plain = [shell, '-c', vault.command];
      const plan = {
        workspace: ctx.workspace,
        cwd,
        home,
        hidden: options.protectedPaths?.() ?? [],
        ...resolvConf(),
      };
      const argv =
        sandbox.mode === 'bwrap'
          ? ['bwrap', ...bwrapArguments({ ...plan, network: args.network === true }, plain)]
          : plain;
      const stamp = new Date().toISOString().replace(/[:.]/g, '-');
      const logPath = join(ctx.workspace, EXEC_LOG_DIR, `${stamp}-${randomUUID().slice(0, 6)}.log`);
      const result = await runProcess(
        {
          argv,
          cwd,
          env: {
            ...execEnvironment(options.env ?? process.env, config.envAllow, options.deniedEnv?.() ?? []),
            ...vault.env,
          },
          timeoutMs: timeout * 1000,
          outputCap: config.outputCap,
          logPath,
          logCapBytes: config.logCapMb * 1024 * 1024,
          ...(options.redact ? { redact: options.redact } : {}),
          ...(options.markerPrefix ? { markerPrefix: options.markerPrefix } : {}),
        },
        signal,
      );
      signal.throwIfAborted();
      const content = formatResult(result, { timeout, config, workspace: ctx.workspace });
      // What a command fetched from the network is untrusted like a web page: the session is tainted, so a
      // later call that sends data out asks (an injected instruction in a downloaded file cannot exfiltrate).
      const reachedNetwork =
        sandbox.mode === 'bwrap'
          ? args.network === true
          : analysis.network || analysis.hosts.length > 0 || args.network === true;
      return {
        content: options.redact ? options.redact(content) : content,
        ...(reachedNetwork ? { taint: 'untrusted' as const } : {}),
        isError: result.timedOut || result.spawnError !== undefined || result.exitCode !== 0,
        details: {
          command: args.command,
          cwd: displayPath(ctx.workspace, cwd),
          exitCode: result.exitCode,
          signal: result.signal,
          timedOut: result.timedOut,
          durationMs: result.durationMs,
          outputChars: result.totalChars,
          sandbox: sandbox.mode,
          ...(result.logPath ? { logPath: displayPath(ctx.workspace, result.logPath) } : {}),
          ...(result.logDropped ? { logDropped: true } : {}),
        },
      };
    },
  };
}

/** Where /etc/resolv.conf really is (often /run/systemd/resolve/…), for a sandbox that hides /run. */
function resolvConf(): { resolvConf?: string } {
  try {
    return { resolvConf: realpathSync('/etc/resolv.conf') };
  } catch {
    return {};
  }
}

function assessment(
  analysis: CommandAnalysis,
  args: ExecArgs,
  sandboxed: boolean,
  script: boolean,
): ToolAssessment {
  const result: ToolAssessment = {};
  if (analysis.signatures.length > 0) result.signatures = analysis.signatures;
  const unanalysable = analysis.parseError
    ? `the command does not parse as shell: ${analysis.parseError}`
    : analysis.unanalysable;
  if (unanalysable) result.unanalysable = unanalysable;
  // A grant binds every program the command runs: `always exec:git` must not cover `git status; curl …`.
  const programs = [...new Set(analysis.programs)];
  if (programs.length > 0) result.target = programs.join('+');
  // In the sandbox only `network: true` opens the network. Without one, a network program, a named host,
  // or code the analysis cannot see into (a script, a local program) may reach it.
  const networkOpen = sandboxed
    ? args.network === true
    : analysis.network || analysis.hosts.length > 0 || script;
  if (networkOpen) {
    // Every destination counts (the gate checks each against egress_allow); a script may reach any host,
    // and no host known means the same: "network".
    const targets = [...analysis.hosts];
    if (targets.length === 0 || script) targets.push('network');
    result.egress = { target: targets.join(',') };
  }
  return result;
}

function formatResult(
  result: RunResult,
  { timeout, config, workspace }: { timeout: number; config: ExecConfig; workspace: string },
): string {
  if (result.spawnError) return `The command could not start: ${result.spawnError}.`;
  const maxTimeout = config.maxTimeout;
  const parts: string[] = [];
  const output = result.head + (result.truncated ? '' : result.tail);
  parts.push(output === '' ? '(no output)' : output.replace(/\n$/, ''));
  if (result.truncated) {
    const cut = result.totalChars - result.head.length - result.tail.length;
    const total = result.totalChars.toLocaleString('en');
    const where = !result.logPath
      ? 'the full output could not be saved'
      : result.logDropped
        ? `the first ${config.logCapMb} MB of the output (${total} characters in all) is saved in ${displayPath(workspace, result.logPath)} and the rest was dropped (tools.exec.log_cap_mb); read it with read_file (offset/limit) or search it with grep`
        : `the full output (${total} characters) is saved in ${displayPath(workspace, result.logPath)}; read it with read_file (offset/limit) or search it with grep`;
    parts.push(`[… ${cut.toLocaleString('en')} characters cut; ${where}]`, result.tail.replace(/\n$/, ''));
  }
  if (result.timedOut) {
    parts.push(
      `[timed out after ${timeout} s: the command and everything it started were stopped${timeout < maxTimeout ? `; pass a longer timeout (up to ${maxTimeout} s) if it needs more time` : ''}]`,
    );
  } else if (result.signal) parts.push(`[stopped by signal ${result.signal}]`);
  else parts.push(`[exit code ${result.exitCode}]`);
  return parts.join('\n');
}
