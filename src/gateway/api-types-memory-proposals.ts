/**
 * Dream's memory proposals in the gateway's API types (re-exported by api-types.ts): a MEMORY.md line Dream
 * proposes to move to USER.md, AGENTS.md or SOUL.md, for the owner to accept or dismiss. Types only, like
 * api-types.ts: no imports, nothing at run time.
 */

export interface MemoryProposal {
  id: number;
  /** Where the line would go: USER.md, AGENTS.md or SOUL.md. */
  file: string;
  /** The MEMORY.md line, as written there. */
  text: string;
  /** Dream's reason, for the owner (may be empty). */
  reason: string;
  status: 'pending' | 'accepted' | 'dismissed' | string;
  createdAt: number;
  decidedAt?: number;
}

/** `GET /api/memory/proposals` (pending, oldest first; every one with `?all=1`). */
export type MemoryProposalList = { proposals: MemoryProposal[] };

/** `POST /api/memory/proposals/:id/accept|dismiss`: the proposal as decided. */
export type MemoryProposalDecided = { proposal: MemoryProposal };
