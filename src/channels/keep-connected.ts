import { sleep } from '../util/create-deadline.js';
import type { ChannelState } from './channel.js';
import { defaultBackoff } from './retry.js';

export interface KeepConnectedOptions {
  signal: AbortSignal;
  /** One connection: resolves or throws when it ends, calls `connected` once it is up. */
  session: (signal: AbortSignal, connected: () => void) => Promise<void>;
  /** A reason for errors retrying cannot fix (a revoked token), else undefined. */
  fatal: (error: unknown) => string | undefined;
  setState: (state: ChannelState, detail?: string) => void;
  /** Milliseconds before reconnect attempt `n` (default 1 s doubling to 60 s, ±20 %). */
  backoff?: (attempt: number) => number;
  onError?: (error: unknown) => void;
}

/**
 * Runs `session` until `signal` aborts, reconnecting with backoff and reporting `starting`, `connected`,
 * `reconnecting: <why>`, then `stopped`; a fatal error ends it as `failed: <reason>`. Never throws.
 */
export async function keepConnected(options: KeepConnectedOptions): Promise<void> {
  const { signal, setState } = options;
  let attempt = 0;
  let reason: string | undefined;
  setState('starting');
  while (!signal.aborted) {
    try {
      await options.session(signal, () => {
        attempt = 0;
        reason = undefined;
        setState('connected');
      });
      reason = 'the connection closed';
    } catch (error) {
      if (signal.aborted) break;
      const fatalReason = options.fatal(error);
      if (fatalReason) {
        setState('failed', fatalReason);
        options.onError?.(error);
        return;
      }
      reason = error instanceof Error ? error.message : String(error);
    }
    if (signal.aborted) break;
    attempt++;
    setState('reconnecting', reason);
    // An abort ends the wait early; the loop then sees the signal and stops.
    await sleep((options.backoff ?? defaultBackoff)(attempt), signal).catch(() => {});
  }
  setState('stopped');
}
