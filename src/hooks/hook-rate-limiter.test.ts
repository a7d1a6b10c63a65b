import { describe, expect, it } from 'vitest';
import { HookRateLimiter } from './hook-rate-limiter.js';

describe('HookRateLimiter', () => {
  it('lets a burst of the per-minute allowance pass, then refuses with the wait until the next one', () => {
    let now = 0;
    const limiter = new HookRateLimiter(() => now);
    for (let i = 0; i < 6; i++) expect(limiter.take('ci', 6).ok).toBe(true);
    expect(limiter.take('ci', 6)).toEqual({ ok: false, retryAfterSeconds: 10 });
    // Another hook has its own allowance.
    expect(limiter.take('door', 6).ok).toBe(true);
    now += 10_000;
    expect(limiter.take('ci', 6).ok).toBe(true);
    expect(limiter.take('ci', 6).ok).toBe(false);
    now += 60_000;
    for (let i = 0; i < 6; i++) expect(limiter.take('ci', 6).ok).toBe(true);
    expect(limiter.take('ci', 6).ok).toBe(false);
  });
});
