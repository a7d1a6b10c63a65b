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

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiters.push(resolve));
    else this.active++;
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
