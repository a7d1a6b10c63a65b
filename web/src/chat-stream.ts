import { createParser } from 'eventsource-parser';
import { ApiError, noteUnauthorized, send } from './api';
import type { ApprovalRequest, ApprovalResolved, TurnSnapshot, Usage } from './types';

export type { TurnSnapshot };

/**
 * The chat's streams. `POST /api/chat` with `keepRunning: true` as Server-Sent Events: aborting `signal`
 * only stops watching — the turn goes on on the server (a reloaded tab picks it up again with `watchTurn`,
 * `GET /api/sessions/:id/turn`); `stopRemoteTurn` is what stops it. Both resolve after `done`/`error`;
 * they reject with an ApiError when the request itself fails (bad body, lost session, gateway down) or the
 * stream ends without a last event.
 */
export interface ChatRequest {
  message: string;
  session?: string;
  images?: Array<{ data: string; mediaType: string }>;
  keepRunning?: boolean;
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
  | { event: 'turn'; data: TurnSnapshot | null }
  | { event: 'approval'; data: ApprovalRequest }
  | { event: 'approval-resolved'; data: ApprovalResolved }
  | {
      event: 'done' | 'error';
      /** `state`: on a watched turn's stream (`done`, `stopped` or `error`). */
      data: { reply: string; session: string; usage?: Usage; kind: string; notice?: string; state?: string };
    };

/** Starts a turn; `onOpen` runs once the gateway accepted it (from then on it can be stopped). */
export async function streamChat(
  body: ChatRequest,
  onEvent: (event: ChatEvent) => void,
  signal: AbortSignal,
  onOpen?: () => void,
): Promise<void> {
  const response = await send('POST', '/api/chat', {
    headers: { accept: 'text/event-stream', 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal,
  });
  await readStream(response, onEvent, signal, onOpen);
}

/**
 * Watches the turn in flight of `session`: first a `turn` event (its snapshot, or null when none runs;
 * the stream then ends), then its live events until `done`/`error`. Watching never stops the turn.
 */
export async function watchTurn(
  session: string,
  onEvent: (event: ChatEvent) => void,
  signal: AbortSignal,
): Promise<void> {
  const response = await send('GET', `/api/sessions/${encodeURIComponent(session)}/turn`, {
    headers: { accept: 'text/event-stream' },
    signal,
  });
  let idle = false;
  await readStream(
    response,
    (event) => {
      if (event.event === 'turn' && !event.data) idle = true;
      onEvent(event);
    },
    signal,
    undefined,
    () => idle,
  );
}

/** Stops `session`'s running turn; false when nothing was running there. */
export async function stopRemoteTurn(session: string): Promise<boolean> {
  const response = await send('DELETE', `/api/sessions/${encodeURIComponent(session)}/turn`);
  noteUnauthorized(response.status);
  return response.ok;
}

async function failure(response: Response): Promise<ApiError> {
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
  return new ApiError(response.status, code, message);
}

async function readStream(
  response: Response,
  onEvent: (event: ChatEvent) => void,
  signal: AbortSignal,
  onOpen?: () => void,
  endedEarly: () => boolean = () => false,
): Promise<void> {
  if (!response.ok || !response.body) throw await failure(response);
  onOpen?.();
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
  if (!finished && !signal.aborted && !endedEarly()) {
    throw new ApiError(0, 'stream_closed', 'The connection closed before the answer was finished.');
  }
}
