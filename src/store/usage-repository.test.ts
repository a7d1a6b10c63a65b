import type Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from './open-database.js';
import { SqliteSessionStore } from './sqlite-session-store.js';
import { recordUsage, usageTotals } from './usage-repository.js';

let db: Database.Database;
beforeEach(() => {
  db = openDatabase(':memory:');
});
afterEach(() => db.close());

describe('usage', () => {
  it('sums usage overall, per endpoint, per session and per time range', async () => {
    const session = await new SqliteSessionStore(db).activeSession('k', { channel: 'cli', chatId: 'x' });
    recordUsage(db, {
      sessionId: session.id,
      endpoint: 'a',
      usage: { inputTokens: 100, outputTokens: 10 },
      at: 1000,
    });
    recordUsage(db, {
      sessionId: session.id,
      endpoint: 'b',
      usage: { inputTokens: 300, outputTokens: 30, cachedInputTokens: 200 },
      at: 2000,
    });
    recordUsage(db, { endpoint: 'a', usage: { inputTokens: 50, outputTokens: 5 }, at: 3000 });
    expect(usageTotals(db)).toEqual({
      calls: 3,
      inputTokens: 450,
      outputTokens: 45,
      cachedTokens: 200,
      byEndpoint: [
        { endpoint: 'b', calls: 1, inputTokens: 300, outputTokens: 30, cachedTokens: 200 },
        { endpoint: 'a', calls: 2, inputTokens: 150, outputTokens: 15, cachedTokens: 0 },
      ],
    });
    expect(usageTotals(db, { sessionId: session.id }).calls).toBe(2);
    expect(usageTotals(db, { since: 2000 }).inputTokens).toBe(350);
    expect(usageTotals(db, { since: 1000, until: 3000 }).inputTokens).toBe(400);
  });

  it('reports zeros when nothing was recorded', () => {
    expect(usageTotals(db)).toEqual({
      calls: 0,
      inputTokens: 0,
      outputTokens: 0,
      cachedTokens: 0,
      byEndpoint: [],
    });
  });

  it('rejects usage for an unknown session', () => {
    expect(() =>
      recordUsage(db, { sessionId: 'nope', endpoint: 'a', usage: { inputTokens: 1, outputTokens: 1 } }),
    ).toThrow(/FOREIGN KEY/);
  });
});
