import type { Command } from 'commander';
import type { MemoryProposal, MemoryProposalService } from '../../services/memory-proposal-service.js';
import type { ServiceFailure } from '../../services/service-failure.js';
import { EXIT } from '../report-failure.js';

/** Where the proposal commands write (the process streams, or buffers in tests). */
export interface ProposalCommandIo {
  stdout: Pick<NodeJS.WritableStream, 'write'>;
  stderr: Pick<NodeJS.WritableStream, 'write'>;
}

export interface ProposalCommandDeps {
  io?: ProposalCommandIo;
}

const HOW_TO_DECIDE =
  'Decide with: wren memory accept ID (moves the line) or wren memory dismiss ID (keeps it).';

/** Runs `work` on the home's proposal service and workspace (the migrated wren.db, closed afterwards). */
async function withProposals(
  home: string,
  deps: ProposalCommandDeps,
  work: (
    proposals: MemoryProposalService,
    workspace: string,
    io: ProposalCommandIo,
  ) => Promise<number> | number,
): Promise<number> {
  const io = deps.io ?? { stdout: process.stdout, stderr: process.stderr };
  const { withHome } = await import('../../app/open-home.js');
  return withHome(home, (opened) => work(opened.services().memoryProposals, opened.config.workspace, io));
}

/** One proposal for the terminal: id, (status,) target file, the line, and the reason on its own line. */
export function proposalLines(proposal: MemoryProposal, withStatus = false): string {
  const status = withStatus ? ` [${proposal.status}]` : '';
  const reason = proposal.reason ? `\n    why: ${proposal.reason}` : '';
  return `#${proposal.id}${status}  MEMORY.md → ${proposal.file}  ${proposal.text}${reason}`;
}

/** Says why a decision was refused; the exit code: 1 unknown or decided already, 2 bad input. */
function failed(io: ProposalCommandIo, failure: ServiceFailure): number {
  const hint = failure.code === 'not_found' ? '; wren memory proposals lists them' : '';
  io.stderr.write(`wren: ${failure.error}${hint}\n`);
  return failure.code === 'invalid' ? EXIT.usage : EXIT.failed;
}

/** `wren memory proposals [--all] [--json]`: what Dream proposes to move out of MEMORY.md, oldest first. */
export async function runMemoryProposals(
  options: { home: string; all?: boolean; json?: boolean },
  deps: ProposalCommandDeps = {},
): Promise<number> {
  return withProposals(options.home, deps, (proposals, _workspace, io) => {
    const list = proposals.list(options.all ? 'all' : 'pending');
    if (options.json) io.stdout.write(`${JSON.stringify({ proposals: list }, null, 2)}\n`);
    else if (list.length === 0)
      io.stdout.write(
        options.all
          ? 'No memory proposals yet.\n'
          : 'No memory proposals wait for you (Dream may propose moving MEMORY.md lines to USER.md, AGENTS.md or SOUL.md).\n',
      );
    else {
      io.stdout.write(`${list.map((proposal) => proposalLines(proposal, options.all)).join('\n')}\n`);
      if (list.some((proposal) => proposal.status === 'pending')) io.stdout.write(`${HOW_TO_DECIDE}\n`);
    }
    return EXIT.ok;
  });
}

/** `wren memory accept|dismiss ID`: the owner's decision on a proposal. */
export async function runMemoryDecide(
  options: { home: string; id: string; decision: 'accept' | 'dismiss' },
  deps: ProposalCommandDeps = {},
): Promise<number> {
  if (!/^\d{1,15}$/.test(options.id) || Number(options.id) === 0) {
    (deps.io ?? { stderr: process.stderr }).stderr.write(
      `wren: "${options.id}" is not a proposal id (a positive number; see wren memory proposals)\n`,
    );
    return EXIT.usage;
  }
  const id = Number(options.id);
  return withProposals(options.home, deps, async (proposals, workspace, io) => {
    if (options.decision === 'accept') {
      const accepted = await proposals.accept(workspace, id);
      if (!accepted.ok) return failed(io, accepted);
      const { file, text } = accepted.proposal;
      io.stdout.write(
        `Accepted proposal ${id}: moved "${text}" from MEMORY.md to ${file} (wren memory log shows both versions).\n`,
      );
    } else {
      const dismissed = proposals.dismiss(id);
      if (!dismissed.ok) return failed(io, dismissed);
      io.stdout.write(
        `Dismissed proposal ${id}: MEMORY.md keeps the line, and Dream will not propose it for ${dismissed.proposal.file} again.\n`,
      );
    }
    return EXIT.ok;
  });
}

/**
 * `wren memory proposals|accept|dismiss`: Dream's proposals to move a MEMORY.md line to USER.md, AGENTS.md or
 * SOUL.md (see docs/memory.md, Proposals). Exit codes: 0 ok, 1 unknown or decided already, 2 bad input.
 */
export function registerMemoryProposals(memory: Command, home: () => string): void {
  memory
    .command('proposals')
    .description('what Dream proposes to move from MEMORY.md to USER.md, AGENTS.md or SOUL.md')
    .option('--all', 'include accepted and dismissed proposals')
    .option('--json', 'print JSON')
    .action(async (options: { all?: boolean; json?: boolean }) => {
      process.exitCode = await runMemoryProposals({ home: home(), ...options });
    });
  for (const decision of ['accept', 'dismiss'] as const) {
    memory
      .command(`${decision} <id>`)
      .description(
        decision === 'accept'
          ? 'accept a memory proposal: move its line out of MEMORY.md into the file it names'
          : 'dismiss a memory proposal: the line stays, and is never proposed for that file again',
      )
      .action(async (id: string) => {
        process.exitCode = await runMemoryDecide({ home: home(), id, decision });
      });
  }
}
