import type { PushSubscriptionStore, Stores } from '../store/open-stores.js';
import type { ServiceContext } from './service-context.js';

export type PushService = PushSubscriptionStore;

export function createPushService(
  stores: Pick<Stores, 'pushSubscriptions'>,
  _context: ServiceContext,
): PushService {
  return stores.pushSubscriptions;
}
