import type { Stores } from '../store/open-stores.js';
import type { StoredPushSubscription } from '../store/push-subscription-repository.js';
import type { ServiceContext } from './service-context.js';
import { invalid, type ServiceFailure } from './service-failure.js';

export type { ServiceFailure, StoredPushSubscription };

/** A stored subscription as the owner's faces show it: never its keys. */
export interface PushSubscriptionShown {
  id: number;
  endpoint: string;
  createdAt: number;
}

/** The browsers that get web push deliveries: what `/api/push/subscriptions` does. */
export interface PushService {
  /**
   * Stores a browser's `PushSubscription.toJSON()` (`{endpoint, keys: {p256dh, auth}}`; other fields are
   * ignored); subscribing again refreshes the same one. The endpoint must be https at one of the browsers'
   * push services (`PUSH_SERVICES` in proactive/web-push.ts): Wren POSTs to it later, so any other URL is
   * refused (`invalid`). Never throws for bad input.
   */
  subscribe(
    subscription: unknown,
  ): Promise<{ ok: true; subscription: PushSubscriptionShown } | ServiceFailure>;
  /** Forgets the subscription of `endpoint`; whether there was one. */
  unsubscribe(endpoint: string): boolean;
  /** How many browsers are subscribed. */
  count(): number;
}

/** The push service over the home's subscription store. */
export function createPushService(
  stores: Pick<Stores, 'pushSubscriptions'>,
  _context?: ServiceContext,
): PushService {
  const subscriptions = stores.pushSubscriptions;
  return {
    async subscribe(subscription) {
      // web-push (and its crypto) loads on first use, as the deliverer loads it: not at start-up.
      const { parsePushSubscription } = await import('../proactive/web-push.js');
      let parsed: ReturnType<typeof parsePushSubscription>;
      try {
        parsed = parsePushSubscription(subscription);
      } catch (error) {
        return invalid((error as Error).message, 'subscription');
      }
      const stored = subscriptions.add(parsed);
      return {
        ok: true,
        subscription: { id: stored.id, endpoint: stored.endpoint, createdAt: stored.createdAt },
      };
    },
    unsubscribe: (endpoint) => subscriptions.remove(endpoint),
    count: () => subscriptions.count(),
  };
}
