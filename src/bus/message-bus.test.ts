import { describe, expect, it } from 'vitest';
import { MessageBus } from './message-bus.js';

describe('MessageBus', () => {
  it('buffers inbound messages until a consumer attaches, and allows only one consumer', () => {
    const bus = new MessageBus();
    bus.publishInbound({ id: '1', channel: 'c', senderId: 's', chatId: 'x', text: 'early' });
    const seen: string[] = [];
    bus.consumeInbound((message) => seen.push(message.text));
    expect(seen).toEqual(['early']);
    expect(() => bus.consumeInbound(() => {})).toThrow(/already has an inbound consumer/);
  });

  it('knows which channels deliver unsolicited messages, counting listeners', () => {
    const bus = new MessageBus();
    expect(bus.deliveringChannels()).toEqual([]);
    const a = bus.subscribeOutbound(() => {}, 'cli');
    const b = bus.subscribeOutbound(() => {}, 'cli');
    const plain = bus.subscribeOutbound(() => {});
    expect(bus.deliveringChannels()).toEqual(['cli']);
    a();
    a();
    expect(bus.deliveringChannels()).toEqual(['cli']);
    b();
    plain();
    expect(bus.deliveringChannels()).toEqual([]);
  });

  it('request resolves with the matching outbound and cancels on abort', async () => {
    const bus = new MessageBus();
    const cancelled: string[] = [];
    bus.subscribeCancel((id) => cancelled.push(id));
    bus.consumeInbound((message) => {
      if (message.text === 'answer me') {
        bus.publishOutbound({
          channel: 'c',
          chatId: 'x',
          replyTo: 'other',
          sessionId: 's',
          text: 'not yours',
          kind: 'reply',
          usage: { inputTokens: 0, outputTokens: 0 },
        });
        bus.publishOutbound({
          channel: 'c',
          chatId: 'x',
          replyTo: message.id,
          sessionId: 's',
          text: 'yours',
          kind: 'reply',
          usage: { inputTokens: 0, outputTokens: 0 },
        });
      }
    });
    const reply = await bus.request({
      id: 'r1',
      channel: 'c',
      senderId: 's',
      chatId: 'x',
      text: 'answer me',
    });
    expect(reply.text).toBe('yours');
    const controller = new AbortController();
    const pending = bus.request(
      { id: 'r2', channel: 'c', senderId: 's', chatId: 'x', text: 'never answered' },
      undefined,
      controller.signal,
    );
    controller.abort();
    await expect(pending).rejects.toHaveProperty('name', 'AbortError');
    expect(cancelled).toEqual(['r2']);
  });

  it('deliver resolves once faces sent the message and rejects when a send fails; publish never throws', async () => {
    const bus = new MessageBus();
    const sent: string[] = [];
    let failing = true;
    bus.subscribeOutbound(async (message) => {
      if (failing) throw new Error('platform down');
      sent.push(message.text);
    }, 'x');
    const message = {
      channel: 'x',
      chatId: 'c',
      replyTo: '',
      sessionId: '',
      text: 'due now',
      kind: 'message' as const,
      usage: { inputTokens: 0, outputTokens: 0 },
    };
    await expect(bus.deliver(message)).rejects.toThrow('platform down');
    expect(() => bus.publishOutbound(message)).not.toThrow();
    failing = false;
    await bus.deliver(message);
    expect(sent).toEqual(['due now']);
  });
});
