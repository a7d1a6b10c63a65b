import { describe, expect, it } from 'vitest';
import { createDeadline, sleep } from './create-deadline.js';

describe('createDeadline', () => {
  it('aborts with a TimeoutError and reports timedOut', async () => {
    const deadline = createDeadline(5);
    await new Promise<void>((resolve) => deadline.signal.addEventListener('abort', () => resolve()));
    expect(deadline.timedOut).toBe(true);
    expect((deadline.signal.reason as DOMException).name).toBe('TimeoutError');
    deadline.dispose();
  });

  it("follows the caller's abort, with its reason", () => {
    const caller = new AbortController();
    const deadline = createDeadline(60_000, caller.signal);
    caller.abort(new Error('stop'));
    expect(deadline.signal.aborted).toBe(true);
    expect(deadline.timedOut).toBe(false);
    expect((deadline.signal.reason as Error).message).toBe('stop');
    deadline.dispose();
  });

  it('starts aborted for an aborted caller signal and detaches on dispose', () => {
    expect(createDeadline(1_000, AbortSignal.abort()).signal.aborted).toBe(true);
    const caller = new AbortController();
    const deadline = createDeadline(0, caller.signal);
    deadline.dispose();
    caller.abort();
    expect(deadline.signal.aborted).toBe(false);
  });
});

describe('sleep', () => {
  it('resolves after the delay and rejects on abort', async () => {
    await expect(sleep(1)).resolves.toBeUndefined();
    const controller = new AbortController();
    const pending = sleep(60_000, controller.signal);
    controller.abort(new Error('cancelled'));
    await expect(pending).rejects.toThrow('cancelled');
    await expect(sleep(10, AbortSignal.abort(new Error('early')))).rejects.toThrow('early');
  });
});
