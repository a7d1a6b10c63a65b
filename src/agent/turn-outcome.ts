import type { AgentEvent, OutboundMessage } from '../bus/messages.js';
import type { LoopEvent, TurnResult } from './run-turn.js';

/** A loop event as the bus carries it. */
export function toAgentEvent(
  base: { sessionId: string; replyTo: string; channel: string; chatId: string },
  event: LoopEvent,
): AgentEvent {
  switch (event.type) {
    case 'text-delta':
      return { ...base, type: 'text-delta', text: event.text };
    case 'tool-call-start':
      return {
        ...base,
        type: 'tool-call-start',
        callId: event.call.id,
        name: event.call.name,
        hint: event.hint,
        args: event.call.arguments.slice(0, 4000),
      };
    case 'tool-call-end':
      return {
        ...base,
        type: 'tool-call-end',
        callId: event.call.id,
        name: event.call.name,
        isError: event.result.isError === true,
        preview: event.result.content.slice(0, 300),
      };
  }
}

/** What the owner is told when a turn ends: the reply, or why there is none, plus notices. */
export function describeOutcome(result: TurnResult): {
  text: string;
  kind: OutboundMessage['kind'];
  notice?: string;
} {
  if (result.stopReason === 'aborted') {
    return {
      text: result.reply ? `${result.reply}\n\n(stopped)` : 'Stopped.',
      kind: 'notice',
      notice: 'stopped',
    };
  }
  if (result.stopReason === 'error') {
    return { text: result.errorMessage ?? 'The model request failed.', kind: 'error' };
  }
  const notices: string[] = [];
  if (result.stopReason === 'length')
    notices.push('The reply hit the output token limit and may be cut short.');
  if (result.notice) notices.push(result.notice);
  const notice = notices.join(' ');
  const text = (result.reply || '(no reply)') + (notice ? `\n\n(${notice})` : '');
  return notice ? { text, kind: 'reply', notice } : { text, kind: 'reply' };
}
