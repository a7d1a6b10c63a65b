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
    await expect(pending).rejects.toBeDefined();
    expect(cancelled).toEqual(['r2']);
  });
});
