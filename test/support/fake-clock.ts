import type { Timers } from '../../src/proactive/scheduler.js';

/**
 * A clock and timers a test moves by hand: `advance(ms)` moves time forward and fires every timer that came
 * due, in order; `jump(ms)` moves the wall clock without firing anything (a suspended laptop, an NTP
 * correction: time may also jump backwards) — the next `fire()` or `advance` sees the new time.
 */
export class FakeClock implements Timers {
  private timers: Array<{ at: number; callback: () => void; id: number }> = [];
  private counter = 0;

  constructor(public time: number) {}

  now = (): number => this.time;

  setTimeout(callback: () => void, ms: number): unknown {
    const id = ++this.counter;
    this.timers.push({ at: this.time + Math.max(0, ms), callback, id });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.timers = this.timers.filter((timer) => timer.id !== handle);
  }

  /** Moves time forward by `ms`, firing due timers in order (each at its own time). */
  async advance(ms: number): Promise<void> {
    const end = this.time + ms;
    for (;;) {
      // Work already started (a tick awaiting I/O) may still set timers: let it run first.
      await settle();
      this.timers.sort((a, b) => a.at - b.at);
      const next = this.timers[0];
      if (!next || next.at > end) break;
      this.timers.shift();
      this.time = Math.max(this.time, next.at);
      next.callback();
      await settle();
    }
    this.time = end;
  }

  /** Sets the wall clock (forward or back) without firing timers. */
  jump(ms: number): void {
    this.time += ms;
  }

  /** Fires every pending timer now, as a woken process would. */
  async fire(): Promise<void> {
    await settle();
    const due = this.timers.splice(0);
    for (const timer of due) timer.callback();
    await settle();
  }

  pending(): number {
    return this.timers.length;
  }
}

/** Lets promise chains and I/O callbacks started by fired timers run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}
