import { join } from 'node:path';
import type { MemoryProposal } from '../../store/memory-proposal-repository.js';
import type { Stores } from '../../store/open-stores.js';
import { updateInstructionFile } from '../file-history.js';
import { formatStamp } from '../format-time.js';
import { appendHistoryEntry } from '../history-file.js';
import { updateMarkdownFile } from '../markdown-file.js';
import { factLine, normalizeFact } from '../memory-file.js';
import { parseMemory } from '../tidy/fact-lines.js';

export type { MemoryProposal };

/** The author of the file versions an accepted proposal writes. */
export const PROPOSAL_AUTHOR = 'dream:accepted';

/** A decision that cannot be made; `code` says why (unknown id, or decided already). */
export class ProposalError extends Error {
  override name = 'ProposalError';
  constructor(
    readonly code: 'not_found' | 'conflict',
    message: string,
  ) {
    super(message);
  }
}

export interface ProposalDecisionOptions {
  stores: Pick<Stores, 'memoryProposals'> & Partial<Pick<Stores, 'fileVersions'>>;
  workspace: string;
  timezone?: string;
  clock?: () => number;
}

/** The HISTORY.md marker of an accepted proposal (a `wren:tidy` marker: not evidence of when a fact was said). */
export const proposalMarker = (id: number) => `<!-- wren:tidy-proposal id=${id} -->`;

function pending(options: ProposalDecisionOptions, id: number): MemoryProposal {
  const proposal = options.stores.memoryProposals.get(id);
  if (!proposal) throw new ProposalError('not_found', `there is no memory proposal ${id}`);
  if (proposal.status !== 'pending')
    throw new ProposalError('conflict', `memory proposal ${id} was ${proposal.status} already`);
  return proposal;
}

const hasFact = (text: string, key: string) => parseMemory(text).facts.some((fact) => fact.key === key);

/**
 * Accepts proposal `id`: appends its line to the target file (unless a line with the same fact is there),
 * removes that fact from MEMORY.md, records both as versions by `dream:accepted` and notes the move in
 * HISTORY.md, then marks it accepted. Each step is idempotent, so an accept cut short by a crash is finished
 * by the next one; the proposal is marked last.
 * @throws ProposalError when the id is unknown or decided already.
 */
export async function acceptProposal(options: ProposalDecisionOptions, id: number): Promise<MemoryProposal> {
  const proposal = pending(options, id);
  const versions = options.stores.fileVersions;
  const line = factLine(proposal.text);
  const write = (path: string) => ({
    workspace: options.workspace,
    path,
    author: PROPOSAL_AUTHOR,
    note: `proposal ${id}: moved "${normalizeFact(line).slice(0, 80)}" from MEMORY.md to ${proposal.file}`,
    ...(versions ? { versions } : {}),
  });
  await updateInstructionFile(write(proposal.file), (current) => {
    if (hasFact(current, proposal.key)) return undefined;
    const base = current.replace(/\s*$/, '');
    return `${base ? `${base}\n\n` : ''}${line}\n`;
  });
  await updateInstructionFile(write('MEMORY.md'), (current) => {
    const doomed = new Set(
      parseMemory(current)
        .facts.filter((fact) => fact.key === proposal.key)
        .map((fact) => fact.position),
    );
    if (doomed.size === 0) return undefined;
    return current
      .split('\n')
      .filter((_line, index) => !doomed.has(index))
      .join('\n');
  });
  const at = (options.clock ?? Date.now)();
  const entry = [
    `## ${formatStamp(at, options.timezone)} · memory proposal accepted`,
    proposalMarker(id),
    `Moved ${JSON.stringify(normalizeFact(line))} from MEMORY.md to ${proposal.file} (proposal ${id} of Dream, accepted by the owner).`,
    '',
  ].join('\n');
  await updateMarkdownFile(join(options.workspace, 'HISTORY.md'), (current) =>
    appendHistoryEntry(current, entry, proposalMarker(id)),
  );
  options.stores.memoryProposals.decide(id, 'accepted');
  return options.stores.memoryProposals.get(id)!;
}

/**
 * Dismisses proposal `id`: nothing moves, and Dream never proposes that line for that file again.
 * @throws ProposalError when the id is unknown or decided already.
 */
export function dismissProposal(options: ProposalDecisionOptions, id: number): MemoryProposal {
  pending(options, id);
  if (!options.stores.memoryProposals.decide(id, 'dismissed'))
    throw new ProposalError('conflict', `memory proposal ${id} was decided already`);
  return options.stores.memoryProposals.get(id)!;
}
