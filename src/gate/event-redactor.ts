import type { AgentEvent } from '../bus/messages.js';
import type { Redactor } from './redactor.js';

/** Text released by a hold-back redactor: `push` returns what is safe to pass on now, `end` the rest. */
export interface HoldBackRedactor {
  push(text: string): string;
  end(): string;
}

/**
 * Redacts a stream whose chunks may split a secret anywhere (model text deltas): it holds back the last
 * (longest redacted form − 1) characters until the next chunk or the end, and never releases text up to a
 * cut a secret form crosses, so a value split across chunks is whole when it is redacted. Reads the
 * redactor at each chunk: values learnt mid-stream count from the next chunk on.
 */
export function createHoldBackRedactor(
  redactor: Pick<Redactor, 'text' | 'longest' | 'safeCut'>,
): HoldBackRedactor {
  let held = '';
  return {
    push(text) {
      held += text;
      const keep = Math.max(0, redactor.longest - 1);
      const cut = redactor.safeCut(held, Math.max(0, held.length - keep));
      const released = held.slice(0, cut);
      held = held.slice(cut);
      return released === '' ? '' : redactor.text(released);
    },
    end() {
      const rest = held;
      held = '';
      return rest === '' ? '' : redactor.text(rest);
    },
  };
}

/**
 * The filter every agent event passes before a face sees it (MessageBus.filterEvents): each reply's text
 * deltas go through a hold-back redactor (what it holds is released before the reply's next other event and
 * at its end), tool-call arguments and previews are redacted whole.
 */
export function createEventRedactor(redactor: Redactor): (event: AgentEvent) => AgentEvent[] {
  const streams = new Map<string, HoldBackRedactor>();
  /** What the reply's stream still holds, as one last text delta (none when it holds nothing). */
  const flush = ({ sessionId, replyTo, channel, chatId }: AgentEvent): AgentEvent[] => {
    const stream = streams.get(replyTo);
    if (!stream) return [];
    streams.delete(replyTo);
    const text = stream.end();
    return text === '' ? [] : [{ type: 'text-delta', sessionId, replyTo, channel, chatId, text }];
  };
  return (event) => {
    if (event.type === 'text-delta') {
      let stream = streams.get(event.replyTo);
      if (!stream) {
        stream = createHoldBackRedactor(redactor);
        streams.set(event.replyTo, stream);
      }
      const text = stream.push(event.text);
      return text === '' ? [] : [{ ...event, text }];
    }
    const before = flush(event);
    if (event.type === 'tool-call-start')
      return [
        ...before,
        {
          ...event,
          hint: redactor.text(event.hint),
          ...(event.args !== undefined ? { args: redactor.text(event.args) } : {}),
        },
      ];
    if (event.type === 'tool-call-end')
      return [...before, { ...event, preview: redactor.text(event.preview) }];
    return [...before, event];
  };
}
