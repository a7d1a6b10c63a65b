import type { Database } from 'better-sqlite3';

/** What a browser's `PushSubscription.toJSON()` gives, minus `expirationTime`. */
export interface PushSubscriptionKeys {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

export interface StoredPushSubscription extends PushSubscriptionKeys {
  id: number;
  createdAt: number;
  lastOkAt?: number;
  /** Failed sends since the last accepted one. */
  failures: number;
}

/** At most this many subscriptions are kept; adding one more drops the oldest. */
export const MAX_PUSH_SUBSCRIPTIONS = 20;

interface Row {
  id: number;
  endpoint: string;
  keys: string;
  created_at: number;
  last_ok_at: number | null;
  failures: number;
}

function toSubscription(row: Row): StoredPushSubscription {
  const keys = JSON.parse(row.keys) as { p256dh: string; auth: string };
  return {
    id: row.id,
    endpoint: row.endpoint,
    keys: { p256dh: keys.p256dh, auth: keys.auth },
    createdAt: row.created_at,
    ...(row.last_ok_at !== null ? { lastOkAt: row.last_ok_at } : {}),
    failures: row.failures,
  };
}

/**
 * The browsers subscribed to web push (schema v8). Adding is idempotent by endpoint: a browser subscribing
 * again gets its new keys, a fresh `createdAt` and a clean failure count, and no second row. At most
 * {@link MAX_PUSH_SUBSCRIPTIONS} are kept: the add that goes past it drops the oldest in the same
 * transaction. Callers validate what they add (see `parsePushSubscription` in proactive/web-push.ts).
 */
export class PushSubscriptionRepository {
  constructor(
    private readonly db: Database,
    private readonly now: () => number = Date.now,
    private readonly limit = MAX_PUSH_SUBSCRIPTIONS,
  ) {}

  /** Adds or refreshes `subscription`; returns it as stored. */
  add(subscription: PushSubscriptionKeys): StoredPushSubscription {
    const keys = JSON.stringify({ p256dh: subscription.keys.p256dh, auth: subscription.keys.auth });
    return this.db
      .transaction(() => {
        const row = this.db
          .prepare(
            `INSERT INTO push_subscriptions (endpoint, keys, created_at) VALUES (?, ?, ?)
             ON CONFLICT (endpoint) DO UPDATE SET keys = excluded.keys, created_at = excluded.created_at,
               failures = 0
             RETURNING *`,
          )
          .get(subscription.endpoint, keys, this.now()) as Row;
        this.db
          .prepare(
            `DELETE FROM push_subscriptions WHERE id NOT IN
               (SELECT id FROM push_subscriptions ORDER BY created_at DESC, id DESC LIMIT ?)`,
          )
          .run(this.limit);
        return toSubscription(row);
      })
      .immediate();
  }

  /** Every subscription, oldest first. */
  list(): StoredPushSubscription[] {
    return (this.db.prepare('SELECT * FROM push_subscriptions ORDER BY created_at, id').all() as Row[]).map(
      toSubscription,
    );
  }

  count(): number {
    return (this.db.prepare('SELECT count(*) AS n FROM push_subscriptions').get() as { n: number }).n;
  }

  /** Forgets a subscription (the browser unsubscribed, or its push service said it is gone). */
  remove(endpoint: string): boolean {
    return this.db.prepare('DELETE FROM push_subscriptions WHERE endpoint = ?').run(endpoint).changes > 0;
  }

  /** The push service accepted a message for it: failures start again from 0. */
  markOk(id: number): void {
    this.db
      .prepare('UPDATE push_subscriptions SET last_ok_at = ?, failures = 0 WHERE id = ?')
      .run(this.now(), id);
  }

  /** A send to it failed (not a dead endpoint: those are removed). */
  markFailed(id: number): void {
    this.db.prepare('UPDATE push_subscriptions SET failures = failures + 1 WHERE id = ?').run(id);
  }
}
