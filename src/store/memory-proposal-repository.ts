import type { Database } from 'better-sqlite3';

/** The files a memory proposal may move a MEMORY.md line to. */
export const PROPOSAL_FILES = ['USER.md', 'AGENTS.md', 'SOUL.md'] as const;
export type ProposalFile = (typeof PROPOSAL_FILES)[number];
export type ProposalStatus = 'pending' | 'accepted' | 'dismissed';

/** One proposal (schema v15 `memory_proposals`). */
export interface MemoryProposal {
  id: number;
  file: ProposalFile;
  /** The MEMORY.md line to move, as it was written there. */
  text: string;
  /** Its normalised form (normalizeFact): one proposal per line and file, ever. */
  key: string;
  /** The model's reason, for the owner (may be empty). */
  reason: string;
  /** The Dream pass that made it (`tidy:<slot>`). */
  dreamKey: string;
  status: ProposalStatus;
  createdAt: number;
  decidedAt?: number;
}

export interface NewProposal {
  file: ProposalFile;
  text: string;
  key: string;
  reason?: string;
  dreamKey: string;
}

interface Row {
  id: number;
  file: ProposalFile;
  text: string;
  key: string;
  reason: string;
  dream_key: string;
  status: ProposalStatus;
  created_at: number;
  decided_at: number | null;
}

const toProposal = (row: Row): MemoryProposal => ({
  id: row.id,
  file: row.file,
  text: row.text,
  key: row.key,
  reason: row.reason,
  dreamKey: row.dream_key,
  status: row.status,
  createdAt: row.created_at,
  ...(row.decided_at !== null ? { decidedAt: row.decided_at } : {}),
});

/** The memory proposals' rows (schema v15). What a decision does to the files is the proposal service's job. */
export class MemoryProposalRepository {
  constructor(
    private readonly db: Database,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Adds the proposals not made before (same file and key, whatever became of it) and returns those added;
   * a replayed pass adds nothing twice.
   */
  add(proposals: readonly NewProposal[]): MemoryProposal[] {
    const insert = this.db.prepare(
      `INSERT INTO memory_proposals (file, text, key, reason, dream_key, created_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (file, key) DO NOTHING RETURNING *`,
    );
    const at = this.now();
    return this.db.transaction(() =>
      proposals.flatMap((proposal) => {
        const row = insert.get(
          proposal.file,
          proposal.text,
          proposal.key,
          proposal.reason ?? '',
          proposal.dreamKey,
          at,
        ) as Row | undefined;
        return row ? [toProposal(row)] : [];
      }),
    )();
  }

  get(id: number): MemoryProposal | undefined {
    const row = this.db.prepare('SELECT * FROM memory_proposals WHERE id = ?').get(id) as Row | undefined;
    return row ? toProposal(row) : undefined;
  }

  /** Proposals by id, oldest first; only those of `status` when given. */
  list(status?: ProposalStatus): MemoryProposal[] {
    const rows = (
      status
        ? this.db.prepare('SELECT * FROM memory_proposals WHERE status = ? ORDER BY id').all(status)
        : this.db.prepare('SELECT * FROM memory_proposals ORDER BY id').all()
    ) as Row[];
    return rows.map(toProposal);
  }

  /** Marks a pending proposal decided; false when it is not pending (decided already, or unknown). */
  decide(id: number, status: Exclude<ProposalStatus, 'pending'>): boolean {
    return (
      this.db
        .prepare(`UPDATE memory_proposals SET status = ?, decided_at = ? WHERE id = ? AND status = 'pending'`)
        .run(status, this.now(), id).changes === 1
    );
  }
}
