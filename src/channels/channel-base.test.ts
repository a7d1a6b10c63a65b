import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ScriptedModel } from '../../test/support/scripted-model.js';
import { AgentRuntime } from '../agent/agent-runtime.js';
import { ContextBuilder } from '../agent/context-builder.js';
import { MemorySessionStore } from '../agent/memory-session-store.js';
import { ToolRegistry } from '../agent/tool-registry.js';
import { MessageBus } from '../bus/message-bus.js';
import type { ApprovalRequest, InboundMessage, OutboundMessage } from '../bus/messages.js';
import {
  type ChannelAccess,
  ChannelBase,
  channelAccessSchema,
  type PlatformMessage,
  toChannelAccess,
} from './channel-base.js';

/** A channel whose "platform" is the test: `deliver` plays an incoming message, `sent` holds what went out. */
class FakeChannel extends ChannelBase {
  readonly sent: OutboundMessage[] = [];
  readonly approvals: ApprovalRequest[] = [];
  async start(): Promise<void> {
    this.attach();
  }
  async stop(): Promise<void> {
    this.detach();
  }
  async send(message: OutboundMessage): Promise<void> {
    this.sent.push(message);
  }
  override async presentApproval(request: ApprovalRequest): Promise<void> {
    this.approvals.push(request);
  }
  deliver(message: PlatformMessage) {
    return this.receive(message);
  }
  answer(senderId: string, id: string) {
    return this.answerApproval(senderId, id, 'once');
  }
}

function setup(section: Record<string, unknown>) {
  const workspace = mkdtempSync(join(tmpdir(), 'wren-chan-'));
  const bus = new MessageBus();
  const model = new ScriptedModel();
  new AgentRuntime({
    bus,
    store: new MemorySessionStore(),
    model,
    registry: new ToolRegistry(),
    context: new ContextBuilder({ workspace }),
    workspace: () => workspace,
    settings: () => ({
      maxRounds: 3,
      maxConcurrency: 2,
      maxToolResultChars: 1000,
      repeatLimit: 2,
      historyReserveTokens: 10,
    }),
  }).start();
  let access: ChannelAccess = toChannelAccess(channelAccessSchema.parse(section));
  const channel = new FakeChannel({ name: 'fake', bus, access: () => access });
  void channel.start();
  const message = (senderId: string, platformId: string, text = 'hello'): PlatformMessage => ({
    platformId,
    senderId,
    chatId: `chat-${senderId}`,
    text,
  });
  const settle = async (count: number) => {
    const deadline = Date.now() + 5000;
    while (channel.sent.length < count) {
      if (Date.now() > deadline)
        throw new Error(`expected ${count} sent messages, got ${channel.sent.length}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };
  return {
    bus,
    model,
    channel,
    message,
    settle,
    setAccess: (next: Record<string, unknown>) => {
      access = toChannelAccess(channelAccessSchema.parse(next));
    },
  };
}

describe('ChannelBase', () => {
  it('drops a message from a sender not on allow_from: zero model tokens, no reply', async () => {
    const { channel, model, message, settle } = setup({ owner_ids: ['100'], allow_from: ['200'] });
    expect(channel.deliver(message('666', 'm1'))).toBe('blocked');
    expect(channel.deliver(message('200', 'm2'))).toBe('accepted');
    await settle(1);
    expect(model.requests).toHaveLength(1);
    expect(channel.sent).toHaveLength(1);
    expect(channel.sent[0]).toMatchObject({ chatId: 'chat-200', kind: 'reply' });
  });

  it('fails closed: an empty allow_from admits only the owner; ids are compared exactly', async () => {
    const { channel, model, message, settle } = setup({ owner_ids: ['100'] });
    expect(channel.deliver(message('200', 'a'))).toBe('blocked');
    expect(channel.deliver(message('100 ', 'b'))).toBe('blocked');
    expect(channel.deliver(message('Owner Name', 'c'))).toBe('blocked');
    expect(channel.deliver(message('100', 'd'))).toBe('accepted');
    await settle(1);
    expect(model.requests).toHaveLength(1);
  });

  it('marks the owner as owner and interactive, other allowed senders as neither', () => {
    const { bus, channel, message } = setup({ owner_ids: ['100'], allow_from: ['*'] });
    const published: InboundMessage[] = [];
    const original = bus.publishInbound.bind(bus);
    bus.publishInbound = (inbound) => {
      published.push(inbound);
      original(inbound);
    };
    channel.deliver(message('100', 'x'));
    channel.deliver(message('300', 'y'));
    expect(published).toEqual([
      expect.objectContaining({ id: 'fake:chat-100:x', senderId: '100', fromOwner: true, interactive: true }),
      expect.objectContaining({
        id: 'fake:chat-300:y',
        senderId: '300',
        fromOwner: false,
        interactive: false,
      }),
    ]);
  });

  it('de-duplicates platform message ids per chat', async () => {
    const { channel, model, message, settle } = setup({ owner_ids: ['100'] });
    expect(channel.deliver(message('100', 'same'))).toBe('accepted');
    expect(channel.deliver(message('100', 'same'))).toBe('duplicate');
    expect(channel.deliver(message('100', 'other'))).toBe('accepted');
    await settle(2);
    expect(model.requests).toHaveLength(2);
  });

  it('with pairing on, answers a stranger once with their id and still spends no tokens', async () => {
    const { channel, model, message } = setup({ pairing: true });
    expect(channel.deliver(message('777', 'p1'))).toBe('blocked');
    expect(channel.deliver(message('777', 'p2'))).toBe('blocked');
    await new Promise((resolve) => setImmediate(resolve));
    expect(channel.sent).toHaveLength(1);
    expect(channel.sent[0]!.text).toContain('Your id on fake is 777');
    expect(model.requests).toHaveLength(0);
  });

  it('applies allow-list edits at once', () => {
    const { channel, message, setAccess } = setup({});
    expect(channel.deliver(message('5', 'q1'))).toBe('blocked');
    setAccess({ allow_from: ['5'] });
    expect(channel.deliver(message('5', 'q2'))).toBe('accepted');
  });

  it('presents approval requests of its own channel and lets only the owner answer', () => {
    const { bus, channel } = setup({ owner_ids: ['100'] });
    const answers: string[] = [];
    bus.handleApprovalAnswers((answer) => {
      answers.push(`${answer.id}:${answer.choice}:${answer.by}`);
      return { ok: true };
    });
    const request = {
      id: 'r1',
      sessionId: 's',
      channel: 'fake',
      chatId: 'c',
      senderId: '100',
      tool: 'exec',
      args: '{}',
      reason: 'why',
      choices: ['once', 'deny'] as ApprovalRequest['choices'],
      createdAt: 0,
      expiresAt: 1,
    };
    bus.publishApproval({ type: 'approval-requested', request });
    bus.publishApproval({ type: 'approval-requested', request: { ...request, id: 'r2', channel: 'other' } });
    expect(channel.approvals.map((item) => item.id)).toEqual(['r1']);
    expect(channel.answer('200', 'r1')).toMatchObject({ ok: false, code: 'not_allowed' });
    expect(channel.answer('100', 'r1')).toEqual({ ok: true });
    expect(answers).toEqual(['r1:once:fake:100']);
  });

  it('rejects unknown keys, empty ids and wrong types in the access config', () => {
    expect(channelAccessSchema.safeParse({ allow_form: ['1'] }).success).toBe(false);
    expect(channelAccessSchema.safeParse({ allow_from: [''] }).success).toBe(false);
    expect(channelAccessSchema.safeParse({ owner_ids: 'me' }).success).toBe(false);
  });
});
