import type Database from 'better-sqlite3';
import type { ApprovalRequest } from '../bus/messages.js';

/** The port (see ports.ts): approval requests still waiting for the owner, asked again after a restart. */
export interface PendingApprovalStore {
  save(request: ApprovalRequest): void;
  remove(id: string): void;
  all(): ApprovalRequest[];
}

/** Approval requests waiting for the owner (schema v10), kept across restarts. */
export class PendingApprovalRepository implements PendingApprovalStore {
  constructor(private readonly db: Database.Database) {}

  save(request: ApprovalRequest): void {
    this.db
      .prepare('INSERT OR REPLACE INTO pending_approvals (id, request, created_at) VALUES (?, ?, ?)')
      .run(request.id, JSON.stringify(request), request.createdAt);
  }

  remove(id: string): void {
    this.db.prepare('DELETE FROM pending_approvals WHERE id = ?').run(id);
  }

  /** Every stored request, oldest first. */
  all(): ApprovalRequest[] {
    const rows = this.db.prepare('SELECT request FROM pending_approvals ORDER BY created_at').all() as Array<{
      request: string;
    }>;
    return rows.map((row) => JSON.parse(row.request) as ApprovalRequest);
  }
}
