import type { AgentEvent, OutboundMessage } from '../bus/messages.js';
import type { TurnSegment, TurnSnapshot } from '../channels/http/http-channel.js';
import type * as Api from './api-types.js';
import type { SseMessage } from './sse-pump.js';

type Redact = (text: string) => string;

/** A turn's progress event as the chat stream's SSE event (`delta`, `tool`, `turn-start`, `turn-end`). */
export function chatEventSse(event: AgentEvent, redact: Redact): SseMessage {
  switch (event.type) {
    case 'text-delta':
      return { event: 'delta', data: JSON.stringify({ text: event.text }) };
    case 'tool-call-start':
      return {
        event: 'tool',
        data: JSON.stringify({
          phase: 'start',
          id: event.callId,
          name: event.name,
          hint: redact(event.hint),
          ...(event.args !== undefined ? { args: redact(event.args) } : {}),
        }),
      };
    case 'tool-call-end':
      return {
        event: 'tool',
        data: JSON.stringify({
          phase: 'end',
          id: event.callId,
          name: event.name,
          isError: event.isError,
          preview: redact(event.preview),
        }),
      };
    default:
      return { event: event.type, data: JSON.stringify({ session: event.sessionId }) };
  }
}

/** The chat stream's last event for an answer: `done`, or `error` when the turn failed. */
export function answerSse(outbound: OutboundMessage, session: string | undefined): SseMessage {
  return {
    event: outbound.kind === 'error' ? 'error' : 'done',
    data: JSON.stringify({
      reply: outbound.text,
      session: outbound.sessionId || session,
      usage: outbound.usage,
      kind: outbound.kind,
      ...(outbound.notice ? { notice: outbound.notice } : {}),
    }),
  };
}

/**
 * The last event of a re-attached turn's stream: `done` (`state` `done` or `stopped`) or `error`, with the
 * answer when the turn ended with one.
 */
export function endSse(snapshot: TurnSnapshot): SseMessage {
  const result = snapshot.result;
  return {
    event: snapshot.state === 'error' ? 'error' : 'done',
    data: JSON.stringify({
      reply: result?.text ?? '',
      session: snapshot.session,
      kind: result?.kind ?? 'notice',
      state: snapshot.state,
      ...(result?.usage ? { usage: result.usage } : {}),
      ...(result?.notice ? { notice: result.notice } : {}),
    }),
  };
}

function presentSegment(segment: TurnSegment, redact: Redact): TurnSegment {
  if (segment.type === 'text') return segment;
  return {
    ...segment,
    hint: redact(segment.hint),
    ...(segment.args !== undefined ? { args: redact(segment.args) } : {}),
    ...(segment.preview !== undefined ? { preview: redact(segment.preview) } : {}),
  };
}

/** A turn as the API shows it: tool hints, arguments and previews redacted like the live events. */
export function presentTurn(snapshot: TurnSnapshot, redact: Redact) {
  return {
    ...snapshot,
    segments: snapshot.segments.map((segment) => presentSegment(segment, redact)),
  } satisfies Api.TurnSnapshot;
}
