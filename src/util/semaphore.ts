/** Limits how many tasks run at once; waiters are served first come, first served. */
export class Semaphore {
  private active = 0;
  private readonly waiters: Array<() => void> = [];

  constructor(private limit: number) {}

  /** Changes the limit (config reload); waiters are released as room appears. */
  setLimit(limit: number): void {
    this.limit = Math.max(1, limit);
    this.drain();
  }

  /**
   * Runs `task` once a slot is free. When `signal` aborts while waiting, the wait ends at once and `skipped`
   * is returned instead (the task never runs).
   */
  async run<T, S>(task: () => Promise<T>, signal?: AbortSignal, skipped?: S): Promise<T | S> {
    if (this.active >= this.limit) {
      const acquired = await new Promise<boolean>((resolve) => {
        const waiter = () => {
          signal?.removeEventListener('abort', onAbort);
          resolve(true);
        };
        const onAbort = () => {
          const index = this.waiters.indexOf(waiter);
          if (index >= 0) this.waiters.splice(index, 1);
          resolve(false);
        };
        if (signal?.aborted) return resolve(false);
        signal?.addEventListener('abort', onAbort, { once: true });
        this.waiters.push(waiter);
      });
      if (!acquired) return skipped as S;
    } else this.active++;
    try {
      return await task();
    } finally {
      this.active--;
      this.drain();
    }
  }

  private drain(): void {
    while (this.active < this.limit && this.waiters.length > 0) {
      this.active++;
      this.waiters.shift()?.();
    }
  }
}
