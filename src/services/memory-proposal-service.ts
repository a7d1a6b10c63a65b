import {
  acceptProposal,
  dismissProposal,
  type MemoryProposal,
  ProposalError,
} from '../memory/dream/memory-proposals.js';
import type { Stores } from '../store/open-stores.js';
import type { ServiceContext } from './service-context.js';
import { notFound, refused, type ServiceFailure } from './service-failure.js';

export type { MemoryProposal };

export type ProposalDecision = { ok: true; proposal: MemoryProposal } | ServiceFailure;

/**
 * Dream's proposals, one implementation for `wren memory proposals|accept|dismiss`, `/memory` in chat and
 * `/api/memory/proposals`: Dream may only propose moving a MEMORY.md line to USER.md, AGENTS.md or SOUL.md;
 * the owner decides. An unknown id is `not_found`, one decided already `refused`.
 */
export interface MemoryProposalService {
  /** The pending proposals, oldest first; every proposal with `all`. */
  list(which?: 'pending' | 'all'): MemoryProposal[];
  /** Moves the line: appends it to the target file of `workspace`, removes it from MEMORY.md (see acceptProposal). */
  accept(workspace: string, id: number): Promise<ProposalDecision>;
  dismiss(id: number): ProposalDecision;
}

const failure = (error: unknown): ServiceFailure => {
  if (!(error instanceof ProposalError)) throw error;
  return error.code === 'not_found' ? notFound(error.message) : refused(error.message);
};

export function createMemoryProposalService(
  stores: Pick<Stores, 'memoryProposals' | 'fileVersions'>,
  context: ServiceContext,
): MemoryProposalService {
  const options = (workspace: string) => ({
    stores,
    workspace,
    timezone: context.timezone(),
    clock: () => context.now(),
  });
  return {
    list: (which = 'pending') => stores.memoryProposals.list(which === 'all' ? undefined : 'pending'),
    async accept(workspace, id) {
      try {
        return { ok: true, proposal: await acceptProposal(options(workspace), id) };
      } catch (error) {
        return failure(error);
      }
    },
    dismiss(id) {
      try {
        return { ok: true, proposal: dismissProposal(options(''), id) };
      } catch (error) {
        return failure(error);
      }
    },
  };
}
