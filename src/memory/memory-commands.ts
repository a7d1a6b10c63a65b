import { join } from 'node:path';
import type { RuntimeCommand } from '../agent/agent-runtime.js';
import type { SessionStore } from '../agent/session-store.js';
import type { ConsolidationStatusStore } from '../store/consolidation-status-repository.js';
import type { FileVersionStore } from '../store/ports.js';
import { updateInstructionFile } from './file-history.js';
import { formatStamp } from './format-time.js';
import { readSnapshot } from './markdown-file.js';
import { MEMORY_TEMPLATE, matchingFacts, removeLines } from './memory-file.js';

/** How long a `/forget` proposal waits for `/forget yes`. */
const CONFIRM_MS = 5 * 60_000;
const SHOW_CHARS = 3500;

export interface MemoryCommandDeps {
  store: SessionStore;
  status: ConsolidationStatusStore;
  workspace: () => string;
  timezone?: () => string | undefined;
  clock?: () => number;
  /** The instruction files' history: `/forget yes` records MEMORY.md's new text by author `/forget`. */
  versions?: FileVersionStore;
  /** Dream's proposals: `/memory proposals|accept N|dismiss N`; without it those answer that there are none. */
  proposals?: MemoryProposalPort;
}

/** One of Dream's proposals as `/memory` shows it (the fields of a stored MemoryProposal it reads). */
export interface ProposalView {
  id: number;
  file: string;
  text: string;
  reason: string;
  status: string;
}

/** A decision's outcome: the proposal, or why not (an unknown id, or one decided already). */
export type ProposalOutcome = { ok: true; proposal: ProposalView } | { ok: false; error: string };

/**
 * What `/memory` needs of Dream's proposals (a narrow port, so memory does not depend on the services):
 * the pending ones, and the owner's decision on one. Accept moves the line into `workspace`'s target file.
 */
export interface MemoryProposalPort {
  pending(): ProposalView[];
  accept(workspace: string, id: number): Promise<ProposalOutcome>;
  dismiss(id: number): ProposalOutcome;
}

const proposalLine = (proposal: ProposalView) =>
  `${proposal.id}. MEMORY.md → ${proposal.file}: ${proposal.text}${proposal.reason ? `\n   why: ${proposal.reason}` : ''}`;

/** `/memory proposals|accept N|dismiss N`, or undefined when `args` is none of them (then plain `/memory`). */
async function proposalCommand(deps: MemoryCommandDeps, args: string): Promise<string | undefined> {
  const [verb = '', id, ...rest] = args.trim().split(/\s+/);
  const word = verb.toLowerCase();
  if (word !== 'proposals' && word !== 'accept' && word !== 'dismiss') return undefined;
  const port = deps.proposals;
  if (word === 'proposals') {
    const pending = port?.pending() ?? [];
    if (pending.length === 0) return 'No memory proposals wait for you.';
    return `Dream proposes moving these MEMORY.md lines:\n${pending.map(proposalLine).join('\n')}\n\nSend /memory accept N to move a line, /memory dismiss N to keep it where it is.`;
  }
  if (id === undefined || rest.length > 0 || !/^\d{1,15}$/.test(id) || Number(id) === 0)
    return `Usage: /memory ${word} N — N is a proposal's number from /memory proposals.`;
  if (!port) return `There is no memory proposal ${id}.`;
  const outcome =
    word === 'accept' ? await port.accept(deps.workspace(), Number(id)) : port.dismiss(Number(id));
  if (!outcome.ok) return `${outcome.error.charAt(0).toUpperCase()}${outcome.error.slice(1)}.`;
  const { file, text } = outcome.proposal;
  return word === 'accept'
    ? `Moved "${text}" from MEMORY.md to ${file}.`
    : `Dismissed: "${text}" stays in MEMORY.md and will not be proposed for ${file} again.`;
}

/**
 * `/memory` (what Wren remembers: MEMORY.md, this session's summary, consolidation health) and
 * `/forget <text>` (proposes the MEMORY.md lines containing the text; `/forget yes` removes them, `/forget no`
 * keeps them). Proposals are per session and expire after 5 minutes.
 */
export function createMemoryCommands(deps: MemoryCommandDeps): Record<string, RuntimeCommand> {
  const clock = deps.clock ?? Date.now;
  const proposals = new Map<string, { lines: string[]; expires: number }>();
  const memoryPath = () => join(deps.workspace(), 'MEMORY.md');

  const memory: RuntimeCommand = {
    description:
      'show what Wren remembers (MEMORY.md, this session’s summary); /memory proposals, accept N, dismiss N',
    async run(args, { session }) {
      const decided = await proposalCommand(deps, args);
      if (decided !== undefined) return decided;
      const text = readSnapshot(memoryPath()).text.trim();
      const facts = text && text !== MEMORY_TEMPLATE.trim() ? text : '';
      const shown =
        facts.length > SHOW_CHARS
          ? `${facts.slice(0, SHOW_CHARS)}\n[… ${facts.length - SHOW_CHARS} more characters in MEMORY.md]`
          : facts;
      const { summary, consolidatedSeq } = await deps.store.memoryState(session.id);
      const out = [shown ? `MEMORY.md:\n${shown}` : 'MEMORY.md has no facts yet.'];
      out.push(
        summary
          ? `This session so far (${consolidatedSeq} messages summarised):\n${summary}`
          : 'Nothing of this session is summarised yet.',
      );
      const health = deps.status.get(session.id);
      if (health && health.failures > 0) {
        const next = health.nextAttemptAt
          ? `; next try ${formatStamp(health.nextAttemptAt, deps.timezone?.())}`
          : '';
        out.push(
          `Consolidation is failing (${health.failures}× in a row: ${health.lastError ?? 'unknown error'}${next}).`,
        );
      }
      const waiting = deps.proposals?.pending().length ?? 0;
      if (waiting > 0)
        out.push(
          `${waiting} memory proposal${waiting === 1 ? '' : 's'} wait${waiting === 1 ? 's' : ''}: /memory proposals`,
        );
      out.push('Edit workspace/MEMORY.md by hand, or use /forget <text>.');
      return out.join('\n\n');
    },
  };

  const forget: RuntimeCommand = {
    description: 'remove facts containing <text> from MEMORY.md (asks first)',
    async run(args, { session }) {
      const answer = args.trim().toLowerCase();
      const pending = proposals.get(session.id);
      if (answer === 'yes' || answer === 'no') {
        proposals.delete(session.id);
        if (!pending || pending.expires < clock()) return 'Nothing to confirm: send /forget <text> first.';
        if (answer === 'no') return 'Kept MEMORY.md as it is.';
        const result = await updateInstructionFile(
          {
            workspace: deps.workspace(),
            path: 'MEMORY.md',
            author: '/forget',
            note: `${pending.lines.length} line(s) removed`,
            ...(deps.versions ? { versions: deps.versions } : {}),
          },
          (current) => removeLines(current, pending.lines),
        );
        const gone = pending.lines.filter((line) => !result.text.split('\n').includes(line)).length;
        return gone
          ? `Removed ${gone} line(s) from MEMORY.md.`
          : 'Those lines were already gone from MEMORY.md.';
      }
      if (!answer)
        return 'Usage: /forget <text> — removes MEMORY.md facts containing the text, after you confirm.';
      const lines = matchingFacts(readSnapshot(memoryPath()).text, args);
      if (lines.length === 0) return `Nothing in MEMORY.md contains "${args.trim()}".`;
      proposals.set(session.id, { lines, expires: clock() + CONFIRM_MS });
      return `This would remove from MEMORY.md:\n${lines.join('\n')}\n\nSend /forget yes to remove, /forget no to keep.`;
    },
  };

  return { memory, forget };
}
