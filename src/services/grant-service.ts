import type { AuditEntry, AuditQuery } from '../store/audit-repository.js';
import type { Grant } from '../store/grant-repository.js';
import type { Stores } from '../store/open-stores.js';
import type { ServiceContext } from './service-context.js';
import { notFound, type ServiceFailure } from './service-failure.js';

export type { AuditEntry, AuditQuery, Grant, ServiceFailure };

/** The audit page a request names no size for, and the most one page holds (more is cut to it). */
export const AUDIT_PAGE = { default: 50, max: 1000 };

/**
 * The gate's standing approvals (grants) and its audit log: the one implementation `wren approvals`,
 * `wren audit` and `/api/grants`, `/api/audit` share. (Pending approvals are the running gate's.)
 */
export interface GrantService {
  /** The grants in force. */
  list(): Grant[];
  /** Revokes a grant in force (the next such call asks again); `not_found` when `id` is none. */
  revoke(id: string): { ok: true } | ServiceFailure;
  /** The newest gate decisions first: `limit` (default 50, at most 1000), before an id, of one session. */
  audit(query?: AuditQuery): AuditEntry[];
}

/** What the grant rules read and change: the home's stores, or a running gate's view of the same. */
export interface GrantSource {
  grants: { list(): Grant[]; revoke(id: string): boolean };
  audit: { list(query?: AuditQuery): AuditEntry[] };
}

/** The grant service over `source` (a running gate, whose grants and audit log are the home's). */
export function grantServiceOver(source: GrantSource): GrantService {
  return {
    list: () => source.grants.list(),
    revoke: (id) => (source.grants.revoke(id) ? { ok: true } : notFound(`No grant ${id} in force.`)),
    audit: (query = {}) =>
      source.audit.list({
        ...query,
        limit: Math.min(Math.max(1, Math.trunc(query.limit ?? AUDIT_PAGE.default)), AUDIT_PAGE.max),
      }),
  };
}

/** The grant service over the home's grant and audit stores. */
export function createGrantService(
  stores: Pick<Stores, 'grants' | 'audit'>,
  _context?: ServiceContext,
): GrantService {
  return grantServiceOver({
    grants: { list: () => stores.grants.active(), revoke: (id) => stores.grants.revoke(id) },
    audit: stores.audit,
  });
}
