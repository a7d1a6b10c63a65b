import type { AuditStore, GrantStore, Stores } from '../store/open-stores.js';
import type { ServiceContext } from './service-context.js';

export interface GrantService {
  readonly grants: GrantStore;
  readonly audit: AuditStore;
}

export function createGrantService(
  stores: Pick<Stores, 'grants' | 'audit'>,
  _context: ServiceContext,
): GrantService {
  return { grants: stores.grants, audit: stores.audit };
}
