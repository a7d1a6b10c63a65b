import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { HttpChannel, TurnChange } from '../channels/http/http-channel.js';
import { chatEventSse, endSse, presentTurn } from './chat-events.js';
import { approvalSse } from './gate-routes.js';
import { problem } from './problem.js';
import { SESSION_ID } from './session-id.js';
import { pump, type SseMessage } from './sse-pump.js';

/**
 * A session's turn in flight, for a client that was not watching it from the start (a reloaded web app, an
 * API client that sent `keepRunning: true` and went away):
 * - `GET /api/sessions/:id/turn` → `{turn}`: the running turn (or the one that ended in the last two
 *   minutes) with its text and tool calls so far and the approvals it waits for; `null` when there is none.
 *   With `Accept: text/event-stream`: the same as a `turn` event, then — while it runs — the turn's live
 *   events as on `POST /api/chat`, ending with `done`/`error`. Watching never cancels anything.
 * - `DELETE /api/sessions/:id/turn` stops the running turn (the web app's Stop); `404` when none runs.
 */
export function turnRoutes(channel: HttpChannel, redact: (text: string) => string): Hono {
  const app = new Hono();
  app.get('/api/sessions/:id/turn', (c) => {
    const session = c.req.param('id');
    if (!SESSION_ID.test(session)) {
      return c.json(problem('bad_request', 'session must be 1-128 letters, digits, _ . : -'), 400);
    }
    c.header('Cache-Control', 'no-store');
    if (!c.req.header('accept')?.includes('text/event-stream')) {
      const turn = channel.turnOf(session);
      return c.json({ turn: turn ? presentTurn(turn, redact) : null });
    }
    return streamSSE(c, async (stream) => {
      const gone = new AbortController();
      stream.onAbort(() => gone.abort(new Error('client disconnected')));
      let ended: () => void = () => {};
      const finished = new Promise<void>((resolve) => {
        ended = resolve;
      });
      await pump(
        stream,
        (push) => {
          // The snapshot and the subscription are taken in one synchronous step: no event falls between.
          const watched = channel.watchTurn(session, (change) => {
            const message = changeSse(change, redact);
            if (message) push(message);
            if (change.type === 'end') ended();
          });
          const snapshot = watched?.snapshot;
          push({ event: 'turn', data: JSON.stringify(snapshot ? presentTurn(snapshot, redact) : null) });
          if (snapshot?.state !== 'running') {
            if (snapshot) push(endSse(snapshot));
            ended();
          }
          return () => watched?.stop();
        },
        finished,
        gone.signal,
      );
    });
  });

  app.delete('/api/sessions/:id/turn', (c) => {
    const session = c.req.param('id');
    if (!SESSION_ID.test(session) || !channel.stopTurn(session)) {
      return c.json(problem('not_found', `Nothing is running in session ${session}.`), 404);
    }
    return c.json({ stopping: session });
  });
  return app;
}

function changeSse(change: TurnChange, redact: (text: string) => string): SseMessage | undefined {
  if (change.type === 'event') return chatEventSse(change.event, redact);
  if (change.type === 'approval') return approvalSse(change.event);
  return endSse(change.snapshot);
}
