import { createParser } from 'eventsource-parser';
import { ApiError, noteUnauthorized, send } from './api';
import type { ApprovalRequest, ApprovalResolved, Usage } from './types';

/**
 * `POST /api/chat` as Server-Sent Events. Aborting `signal` closes the request, which cancels the turn on
 * the server. Resolves after `done`/`error`; rejects with an ApiError when the request itself fails (bad
 * body, lost session, gateway down) or the stream ends without a last event.
 */
export interface ChatRequest {
  message: string;
  session?: string;
  images?: Array<{ data: string; mediaType: string }>;
}

export type ChatEvent =
  | { event: 'turn-start'; data: { session: string } }
  | { event: 'turn-end'; data: { session: string } }
  | { event: 'delta'; data: { text: string } }
  | {
      event: 'tool';
      data:
        | { phase: 'start'; id: string; name: string; hint: string; args?: string }
        | { phase: 'end'; id: string; name: string; isError: boolean; preview: string };
    }
  | { event: 'approval'; data: ApprovalRequest }
  | { event: 'approval-resolved'; data: ApprovalResolved }
  | {
      event: 'done' | 'error';
      data: { reply: string; session: string; usage?: Usage; kind: string; notice?: string };
    };

export async function streamChat(
  body: ChatRequest,
  onEvent: (event: ChatEvent) => void,
  signal: AbortSignal,
): Promise<void> {
  const response = await send('POST', '/api/chat', {
    headers: { accept: 'text/event-stream', 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal,
  });
  if (!response.ok || !response.body) {
    noteUnauthorized(response.status);
    let message = `The gateway answered ${response.status}.`;
    let code = 'http_error';
    try {
      const data = (await response.json()) as { error?: { code?: string; message?: string } };
      message = data.error?.message ?? message;
      code = data.error?.code ?? code;
    } catch {
      // Not JSON.
    }
    throw new ApiError(response.status, code, message);
  }
  let finished = false;
  const parser = createParser({
    onEvent(message) {
      if (!message.event) return;
      let data: unknown;
      try {
        data = JSON.parse(message.data);
      } catch {
        return;
      }
      if (message.event === 'done' || message.event === 'error') finished = true;
      onEvent({ event: message.event, data } as ChatEvent);
    },
  });
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parser.feed(value);
    }
  } finally {
    reader.releaseLock();
  }
  if (!finished && !signal.aborted) {
    throw new ApiError(0, 'stream_closed', 'The connection closed before the answer was finished.');
  }
}
