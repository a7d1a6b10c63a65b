import { describe, expect, it } from 'vitest';
import { SenderRateLimit } from './sender-rate-limit.js';

describe('SenderRateLimit', () => {
  it('admits perMinute messages per sender, says once when one goes over, and opens a new window a minute later', () => {
    const limit = new SenderRateLimit();
    expect([0, 1, 2].map((at) => limit.admit('a', 2, at))).toEqual(['ok', 'ok', 'first-over']);
    expect(limit.admit('a', 2, 3)).toBe('over');
    expect(limit.admit('b', 2, 3)).toBe('ok');
    expect(limit.admit('a', 2, 60_000)).toBe('ok');
  });

  it('keeps memory bounded under a flood of new sender ids', () => {
    const limit = new SenderRateLimit();
    for (let id = 0; id < 20_000; id++) limit.admit(`s${id}`, 1, 0);
    // The oldest were forgotten: s0 starts a fresh window instead of being over its limit.
    expect(limit.admit('s0', 1, 1)).toBe('ok');
    expect(limit.admit('s19999', 1, 1)).toBe('first-over');
  });
});
