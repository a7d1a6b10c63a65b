/** The answer of {@link HookRateLimiter.take}: allowed, or refused with the seconds until one is. */
export type RateDecision = { ok: true } | { ok: false; retryAfterSeconds: number };

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * Per-hook rate limits as token buckets: a hook allowed N deliveries a minute holds up to N tokens and gets
 * one back every 60/N seconds, so a burst of N passes and a steady flood is cut to N a minute. Keyed by the
 * hook's name (only configured hooks that authenticated reach it, so the map stays as small as the config).
 */
export class HookRateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly clock: () => number = Date.now) {}

  /** Takes one delivery from `name`'s allowance of `perMinute`. */
  take(name: string, perMinute: number): RateDecision {
    const now = this.clock();
    const refillMs = 60_000 / perMinute;
    const bucket = this.buckets.get(name) ?? { tokens: perMinute, at: now };
    const tokens = Math.min(perMinute, bucket.tokens + (now - bucket.at) / refillMs);
    if (tokens >= 1) {
      this.buckets.set(name, { tokens: tokens - 1, at: now });
      return { ok: true };
    }
    this.buckets.set(name, { tokens, at: now });
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(((1 - tokens) * refillMs) / 1000)) };
  }
}
