import type { SSEStreamingApi } from 'hono/streaming';

/** One server-sent event. */
export type SseMessage = { event: string; data: string };

/**
 * Writes what `subscribe` delivers to an SSE stream until `finished` resolves or the client goes away.
 * Events are queued so a slow client never blocks the bus.
 */
export async function pump(
  stream: SSEStreamingApi,
  subscribe: (push: (message: SseMessage) => void) => () => void,
  finished: Promise<unknown>,
  gone: AbortSignal,
): Promise<void> {
  const queue: SseMessage[] = [];
  let wake: (() => void) | undefined;
  let done = false;
  const unsubscribe = subscribe((message) => {
    queue.push(message);
    wake?.();
  });
  const stop = () => {
    done = true;
    wake?.();
  };
  void finished.finally(stop).catch(() => {});
  gone.addEventListener('abort', stop, { once: true });
  try {
    while ((!done || queue.length > 0) && !gone.aborted) {
      const next = queue.shift();
      if (next) {
        await stream.writeSSE(next);
        continue;
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
      wake = undefined;
    }
  } finally {
    unsubscribe();
    gone.removeEventListener('abort', stop);
  }
}
