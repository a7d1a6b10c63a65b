import type { CronJobStore, OutboxStore, Stores } from '../store/open-stores.js';
import type { ServiceContext } from './service-context.js';

export interface JobService {
  readonly cronJobs: CronJobStore;
  readonly outbox: OutboxStore;
}

export function createJobService(
  stores: Pick<Stores, 'cronJobs' | 'outbox'>,
  _context: ServiceContext,
): JobService {
  return { cronJobs: stores.cronJobs, outbox: stores.outbox };
}
