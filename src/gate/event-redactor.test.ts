import { describe, expect, it } from 'vitest';
import { MessageBus } from '../bus/message-bus.js';
import type { AgentEvent } from '../bus/messages.js';
import { createEventRedactor, createHoldBackRedactor } from './event-redactor.js';
import { Redactor } from './redactor.js';

const SECRET = 'pa ss/wörd+42=';
const forms = [SECRET, encodeURIComponent(SECRET), Buffer.from(SECRET).toString('base64')];

/** Streams `text` cut at every pair of positions (three chunks) and collects what the redactor released. */
function everySplit(redactor: Redactor, text: string, check: (released: string) => void): void {
  for (let a = 0; a <= text.length; a++)
    for (let b = a; b <= text.length; b += 3) {
      const stream = createHoldBackRedactor(redactor);
      const released = [text.slice(0, a), text.slice(a, b), text.slice(b)].map((chunk) => stream.push(chunk));
      check(released.join('') + stream.end());
    }
}

describe('the hold-back redactor', () => {
  it('never lets a secret through, plain, URL-encoded or base64, however the chunks split it', () => {
    const redactor = new Redactor(['unrelated-key-123']);
    redactor.add([SECRET]);
    for (const form of forms)
      everySplit(redactor, `before ${form} middle ${form}after`, (released) => {
        expect(released).toBe('before [redacted] middle [redacted]after');
      });
  });

  it('holds back only the longest form less one character, and nothing without secrets', () => {
    const redactor = new Redactor();
    const plain = createHoldBackRedactor(redactor);
    expect(plain.push('hello ')).toBe('hello ');
    redactor.add(['abcdef']);
    const stream = createHoldBackRedactor(redactor);
    const longest = Buffer.from('abcdef').toString('base64').length;
    expect(redactor.longest).toBe(longest);
    expect(stream.push('0123456789abc')).toBe('0123456789abc'.slice(0, 13 - (longest - 1)));
    expect(stream.end()).toBe('0123456789abc'.slice(13 - (longest - 1)));
  });
});

describe('the bus event filter the gate installs', () => {
  const base = { sessionId: 's', replyTo: 'm1', channel: 'web', chatId: 'c' };

  it('redacts a secret split across two text deltas before any listener sees it; flushes at the next event', () => {
    const redactor = new Redactor();
    redactor.add([SECRET]);
    const bus = new MessageBus();
    bus.filterEvents(createEventRedactor(redactor));
    const seen: AgentEvent[] = [];
    bus.subscribeEvents((event) => seen.push(event));
    bus.publishEvent({ ...base, type: 'turn-start' });
    bus.publishEvent({ ...base, type: 'text-delta', text: `the value is ${SECRET.slice(0, 5)}` });
    bus.publishEvent({ ...base, type: 'text-delta', text: `${SECRET.slice(5)} ok` });
    bus.publishEvent({
      ...base,
      type: 'tool-call-start',
      callId: 'x',
      name: 'exec',
      hint: 'calling exec',
      args: `{"a":"${SECRET}"}`,
    });
    bus.publishEvent({
      ...base,
      type: 'tool-call-end',
      callId: 'x',
      name: 'exec',
      isError: false,
      preview: SECRET,
    });
    bus.publishEvent({ ...base, type: 'text-delta', text: 'done' });
    bus.publishEvent({
      ...base,
      type: 'turn-end',
      stopReason: 'stop',
      usage: { inputTokens: 1, outputTokens: 1 },
    });
    const text = JSON.stringify(seen);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(SECRET.slice(5));
    const deltas = seen.filter((event) => event.type === 'text-delta').map((event) => event.text);
    expect(deltas.join('')).toBe('the value is [redacted] okdone');
    // What the stream held is released before the tool call, not after it.
    const start = seen.findIndex((event) => event.type === 'tool-call-start');
    const first = seen.slice(0, start).flatMap((event) => (event.type === 'text-delta' ? [event.text] : []));
    expect(first.join('')).toBe('the value is [redacted] ok');
    expect(seen.filter((event) => event.type !== 'text-delta').map((event) => event.type)).toEqual([
      'turn-start',
      'tool-call-start',
      'tool-call-end',
      'turn-end',
    ]);
  });
});
