/** A deadline: an abort signal that fires when the caller aborts or when `timeoutMs` has passed. */
export interface Deadline {
  readonly signal: AbortSignal;
  /** True once the timeout (not the caller) aborted the signal. */
  readonly timedOut: boolean;
  /** Clears the timer and detaches from the caller's signal. Idempotent; call it in `finally`. */
  dispose(): void;
}

/**
 * Merges the caller's signal with a timeout. Unlike `AbortSignal.any`, it detaches its listener on
 * `dispose()`, so a long-lived caller signal does not accumulate listeners across many calls.
 * A `timeoutMs` of 0 or less (or not finite) means no timeout.
 */
export function createDeadline(timeoutMs: number, signal?: AbortSignal): Deadline {
  const controller = new AbortController();
  let timedOut = false;
  const onAbort = () => controller.abort(signal?.reason);
  let timer: NodeJS.Timeout | undefined;
  if (signal?.aborted) {
    controller.abort(signal.reason);
  } else {
    signal?.addEventListener('abort', onAbort, { once: true });
    if (Number.isFinite(timeoutMs) && timeoutMs > 0) {
      timer = setTimeout(() => {
        timedOut = true;
        controller.abort(new DOMException(`Timed out after ${timeoutMs} ms`, 'TimeoutError'));
      }, timeoutMs);
    }
  }
  return {
    signal: controller.signal,
    get timedOut() {
      return timedOut;
    },
    dispose() {
      if (timer) clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    },
  };
}

/**
 * Resolves after `ms`; rejects with the signal's reason as soon as `signal` aborts (also when already
 * aborted). The timer never outlives an abort.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
