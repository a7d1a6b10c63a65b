import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { MIGRATION_V8 } from './migration-v8-push.js';
import { MIGRATIONS, migrate } from './migrations.js';
import { openDatabase } from './open-database.js';
import { MAX_PUSH_SUBSCRIPTIONS, PushSubscriptionRepository } from './push-subscription-repository.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** A database file at schema v8 (the current migrations plus MIGRATION_V8). */
function pushDatabase(): Database.Database {
  const dir = mkdtempSync(join(tmpdir(), 'wren-push-'));
  const db = openDatabase(join(dir, 'wren.db'), { migrate: false });
  migrate(db, [...MIGRATIONS, MIGRATION_V8]);
  cleanups.push(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return db;
}

const keys = (n: number) => ({ p256dh: `p256dh-${n}`, auth: `auth-${n}` });

describe('PushSubscriptionRepository', () => {
  it('migrates to v8 and adds, refreshes and removes subscriptions', () => {
    const db = pushDatabase();
    expect(db.pragma('user_version', { simple: true })).toBeGreaterThanOrEqual(8);
    let now = 1_000;
    const repository = new PushSubscriptionRepository(db, () => now);
    const first = repository.add({ endpoint: 'https://push.test/a', keys: keys(1) });
    expect(first).toMatchObject({
      endpoint: 'https://push.test/a',
      keys: keys(1),
      createdAt: 1_000,
      failures: 0,
    });
    repository.markFailed(first.id);
    repository.markFailed(first.id);
    expect(repository.list()[0]?.failures).toBe(2);
    now = 2_000;
    repository.markOk(first.id);
    expect(repository.list()[0]).toMatchObject({ failures: 0, lastOkAt: 2_000 });
    repository.markFailed(first.id);
    now = 3_000;
    const again = repository.add({ endpoint: 'https://push.test/a', keys: keys(2) });
    expect(again).toMatchObject({ id: first.id, keys: keys(2), createdAt: 3_000, failures: 0 });
    expect(repository.count()).toBe(1);
    expect(repository.remove('https://push.test/a')).toBe(true);
    expect(repository.remove('https://push.test/a')).toBe(false);
    expect(repository.list()).toEqual([]);
  });

  it(`keeps at most ${MAX_PUSH_SUBSCRIPTIONS}: the 21st drops the oldest`, () => {
    const db = pushDatabase();
    let now = 0;
    const repository = new PushSubscriptionRepository(db, () => now);
    for (let n = 1; n <= MAX_PUSH_SUBSCRIPTIONS; n += 1) {
      now = n;
      repository.add({ endpoint: `https://push.test/${n}`, keys: keys(n) });
    }
    // Refreshing the oldest makes it the newest, so number 2 is the oldest now.
    now = 100;
    repository.add({ endpoint: 'https://push.test/1', keys: keys(1) });
    now = 101;
    repository.add({ endpoint: 'https://push.test/21', keys: keys(21) });
    const endpoints = repository.list().map((subscription) => subscription.endpoint);
    expect(endpoints).toHaveLength(MAX_PUSH_SUBSCRIPTIONS);
    expect(endpoints).not.toContain('https://push.test/2');
    expect(endpoints.slice(-2)).toEqual(['https://push.test/1', 'https://push.test/21']);
  });
});
