import type { Command } from 'commander';
import { ensureHome } from '../../config/home.js';
import type { SandboxProbe } from '../../tools/exec/sandbox.js';
import { EXIT } from '../report-failure.js';
import { withServices } from '../with-services.js';

/** Where the gate commands write (the process streams, or buffers in tests). */
export interface GateCommandIo {
  stdout: Pick<NodeJS.WritableStream, 'write'>;
  stderr: Pick<NodeJS.WritableStream, 'write'>;
}

const defaultIo = (): GateCommandIo => ({ stdout: process.stdout, stderr: process.stderr });

function time(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').slice(0, 19);
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** `wren approvals`: the stored grants. */
export async function runApprovalsList(
  options: { home: string; json?: boolean },
  io = defaultIo(),
): Promise<number> {
  const grants = await withServices(options.home, (services) => services.grants.list());
  if (options.json) {
    io.stdout.write(`${JSON.stringify({ grants }, null, 2)}\n`);
    return EXIT.ok;
  }
  if (grants.length === 0) {
    io.stdout.write(
      'No standing approvals. Pending requests are answered in `wren chat` or over the HTTP API.\n',
    );
    return EXIT.ok;
  }
  const rows = [
    ['ID', 'TOOL', 'TARGET', 'SCOPE', 'SINCE', 'BY'],
    ...grants.map((grant) => [
      grant.id,
      grant.tool,
      grant.target ?? '(any)',
      grant.scope === 'session' ? `session ${grant.sessionId}` : grant.scope,
      time(grant.createdAt),
      grant.createdBy,
    ]),
  ];
  io.stdout.write(`${table(rows)}\n`);
  return EXIT.ok;
}

/** `wren approvals revoke ID`: 0 when revoked, 1 when no grant in force has that id. */
export async function runApprovalsRevoke(
  options: { home: string; id: string },
  io = defaultIo(),
): Promise<number> {
  const revoked = await withServices(options.home, (services) => services.grants.revoke(options.id));
  if (!revoked.ok) {
    io.stderr.write(`wren: no standing approval ${options.id}; \`wren approvals\` lists them\n`);
    return EXIT.failed;
  }
  io.stdout.write(`Revoked ${options.id}; the next such call asks again.\n`);
  return EXIT.ok;
}

export interface AuditOptions {
  home: string;
  json?: boolean;
  limit?: string;
  session?: string;
}

/** `wren audit`: the newest gate decisions. */
export async function runAudit(options: AuditOptions, io = defaultIo()): Promise<number> {
  const limit = options.limit === undefined ? 50 : Number(options.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
    io.stderr.write('wren: --limit must be a whole number from 1 to 1000\n');
    return EXIT.usage;
  }
  const entries = await withServices(options.home, (services) =>
    services.grants.audit({ limit, ...(options.session ? { sessionId: options.session } : {}) }),
  );
  if (options.json) {
    io.stdout.write(`${JSON.stringify({ entries }, null, 2)}\n`);
    return EXIT.ok;
  }
  if (entries.length === 0) {
    io.stdout.write('The audit log is empty.\n');
    return EXIT.ok;
  }
  for (const entry of entries.reverse()) {
    const answer = entry.answer
      ? ` (${entry.answer}${entry.answeredBy ? ` by ${entry.answeredBy}` : ''})`
      : '';
    const args = entry.args.length > 120 ? `${entry.args.slice(0, 120)}…` : entry.args;
    io.stdout.write(
      `${time(entry.at)}  ${entry.outcome.padEnd(7)} ${entry.tool} ${args}\n` +
        `    ${entry.decision} by ${entry.rule}${answer} · ${entry.channel}/${entry.senderId} · session ${entry.sessionId}\n` +
        `    ${entry.reason}\n`,
    );
  }
  return EXIT.ok;
}

/** `wren security audit`: exit 0 when nothing failed (warnings allowed), 1 otherwise. */
export async function runSecurityAudit(
  options: {
    home: string;
    json?: boolean;
    env?: NodeJS.ProcessEnv;
    /** Runs bubblewrap once (tests pass an answer). */
    sandboxProbe?: () => Promise<SandboxProbe>;
  },
  io = defaultIo(),
): Promise<number> {
  const { gatherSecurityFacts, securityChecks } = await import('../security-audit.js');
  ensureHome(options.home);
  const checks = securityChecks(
    await gatherSecurityFacts(options.home, options.env ?? process.env, options.sandboxProbe),
  );
  const failed = checks.some((check) => check.status === 'fail');
  if (options.json) {
    io.stdout.write(`${JSON.stringify({ ok: !failed, checks }, null, 2)}\n`);
  } else {
    for (const check of checks) {
      const mark = check.status === 'ok' ? '✓' : check.status === 'warn' ? '!' : '✗';
      io.stdout.write(
        `${mark} ${check.id.padEnd(28)} ${check.message}${check.fix ? `\n    fix: ${check.fix}` : ''}\n`,
      );
    }
  }
  return failed ? EXIT.failed : EXIT.ok;
}

/** Registers `wren approvals`, `wren audit` and `wren security audit`. */
export function registerGateCommands(program: Command, home: () => string): void {
  const approvals = program.command('approvals').description('standing approvals (grants) of the gate');
  approvals
    .command('list', { isDefault: true })
    .description('list standing approvals')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      process.exitCode = await runApprovalsList({ home: home(), ...options });
    });
  approvals
    .command('revoke <id>')
    .description('revoke a standing approval; the next such call asks again')
    .action(async (id: string) => {
      process.exitCode = await runApprovalsRevoke({ home: home(), id });
    });

  program
    .command('audit')
    .description("show the gate's decisions (newest last)")
    .option('--limit <n>', 'how many entries (default 50)')
    .option('--session <id>', 'only this session')
    .option('--json', 'print JSON')
    .action(async (options: { limit?: string; session?: string; json?: boolean }) => {
      process.exitCode = await runAudit({ home: home(), ...options });
    });

  const security = program.command('security').description('security checks');
  security
    .command('audit')
    .description('check exposure, permissions, gate mode, sandbox, allow lists and MCP pins')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      process.exitCode = await runSecurityAudit({ home: home(), ...options });
    });
}
