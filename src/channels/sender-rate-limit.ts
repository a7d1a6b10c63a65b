/**
 * Messages per sender per minute (a fixed one-minute window from the sender's first message in it). At most
 * 10,000 senders are remembered, oldest dropped first, so a flood of new ids cannot grow memory without end.
 */
export class SenderRateLimit {
  private readonly windows = new Map<string, { start: number; count: number; warned: boolean }>();

  /** `ok`; `first-over` the first time a sender goes over in a window (tell them once); `over` after that. */
  admit(senderId: string, perMinute: number, now: number): 'ok' | 'first-over' | 'over' {
    const window = this.windows.get(senderId);
    if (!window || now - window.start >= 60_000) {
      this.windows.delete(senderId);
      this.windows.set(senderId, { start: now, count: 1, warned: false });
      if (this.windows.size > 10_000) this.windows.delete(this.windows.keys().next().value as string);
      return 'ok';
    }
    window.count++;
    if (window.count <= perMinute) return 'ok';
    if (window.warned) return 'over';
    window.warned = true;
    return 'first-over';
  }
}
