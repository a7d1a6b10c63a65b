import { describe, expect, it } from 'vitest';
import { MessageBus } from '../bus/message-bus.js';
import type { ApprovalAnswer, ApprovalEvent, ApprovalRequest, InboundMessage } from '../bus/messages.js';
import { shortApprovalId } from './approval-text.js';
import type { ChannelLedger } from './channel-ledger.js';
import { PlatformChannel, type PlatformMessage } from './platform-channel.js';

/** What the fake platform keeps of a shown approval: where it went and the message id it got. */
interface Shown {
  chatId: string;
  messageId: number;
}

/**
 * A platform with approval buttons, played by the test: `showApproval` "sends" a message (none when the
 * platform gave no id back), `closeApproval` records the edit that takes its buttons away.
 */
class ButtonChannel extends PlatformChannel<Shown> {
  protected readonly textLimit = 1000;
  readonly texts: Array<{ chatId: string; text: string }> = [];
  readonly shown: ApprovalRequest[] = [];
  readonly closed: Array<{ shown: Shown; outcome: string }> = [];
  /** Requests whose message the platform sends without an id (nothing to edit later). */
  readonly noId = new Set<string>();
  async start(): Promise<void> {}
  async stop(): Promise<void> {}
  protected async sendText(chatId: string, text: string): Promise<void> {
    this.texts.push({ chatId, text });
  }
  protected override async showApproval(request: ApprovalRequest): Promise<Shown | undefined> {
    this.shown.push(request);
    return this.noId.has(request.id) ? undefined : { chatId: request.chatId, messageId: this.shown.length };
  }
  protected override async closeApproval(shown: Shown, outcome: string): Promise<void> {
    this.closed.push({ shown, outcome });
  }
  deliver(message: PlatformMessage) {
    return this.receive(message);
  }
}

/** A channel with typed answers only: the base's own question. */
class TypedChannel extends PlatformChannel {
  protected readonly textLimit = 1000;
  readonly texts: Array<{ chatId: string; text: string }> = [];
  async start(): Promise<void> {}
  async stop(): Promise<void> {}
  protected async sendText(chatId: string, text: string): Promise<void> {
    this.texts.push({ chatId, text });
  }
}

const ledger: ChannelLedger = {
  firstSeen: () => true,
  cursor: () => undefined,
  setCursor: () => {},
  deleteCursors: () => {},
  isPaired: () => false,
  askPairing: () => ({ kind: 'full' }),
};
const access = () => ({ owner: ['1'], allowFrom: [], pairing: false, groups: [], rateLimit: 100 });

function setup() {
  const bus = new MessageBus();
  const answers: ApprovalAnswer[] = [];
  bus.handleApprovalAnswers((answer) => {
    answers.push(answer);
    return { ok: true };
  });
  const inbound: InboundMessage[] = [];
  bus.consumeInbound((message) => void inbound.push(message));
  const channel = new ButtonChannel({ name: 'fake', bus, access, ledger });
  return { bus, channel, answers, inbound };
}

const request = (id: string, chatId = '1'): ApprovalRequest => ({
  id,
  sessionId: `fake:${chatId}`,
  channel: 'fake',
  chatId,
  senderId: '1',
  tool: 'exec',
  args: 'rm -rf build',
  reason: 'dangerous',
  choices: ['once', 'session', 'always', 'deny'],
  createdAt: 0,
  expiresAt: 60_000,
});

const resolved = (id: string | undefined, outcome: 'once' | 'deny' | 'timeout', by?: string) =>
  ({
    type: 'approval-resolved',
    ...(id ? { id } : {}),
    sessionId: 'fake:1',
    channel: 'fake',
    chatId: '1',
    tool: 'exec',
    outcome,
    ...(by ? { by } : {}),
  }) satisfies Extract<ApprovalEvent, { type: 'approval-resolved' }>;

const typed = (text: string, platformId: string): PlatformMessage => ({
  platformId,
  senderId: '1',
  chatId: '1',
  text,
});

describe('approval bookkeeping in PlatformChannel', () => {
  it('takes the buttons away once, from the message the approval was shown in, with the outcome', async () => {
    const { channel } = setup();
    await channel.presentApproval(request('aaaa1111-0000'));
    await channel.presentApproval(request('bbbb2222-0000', '2'));
    await channel.approvalResolved(resolved('bbbb2222-0000', 'deny', 'fake:1'));
    await channel.approvalResolved(resolved('bbbb2222-0000', 'deny', 'fake:1'));
    await channel.approvalResolved(resolved('aaaa1111-0000', 'timeout'));
    expect(channel.closed).toEqual([
      { shown: { chatId: '2', messageId: 2 }, outcome: 'deny (by fake:1)' },
      { shown: { chatId: '1', messageId: 1 }, outcome: 'no answer in time: denied' },
    ]);
  });

  it('edits nothing for an approval it never showed, one without an id, or one the platform gave no id', async () => {
    const { channel } = setup();
    channel.noId.add('cccc3333-0000');
    await channel.presentApproval(request('cccc3333-0000'));
    await channel.approvalResolved(resolved('cccc3333-0000', 'once'));
    await channel.approvalResolved(resolved('dddd4444-0000', 'once'));
    await channel.approvalResolved(resolved(undefined, 'deny'));
    expect(channel.closed).toEqual([]);
  });

  it('takes a typed answer only while the approval is pending, from the owner', async () => {
    const { channel, answers, inbound } = setup();
    await channel.presentApproval(request('eeee5555-0000'));
    const id = shortApprovalId('eeee5555-0000');
    expect(await channel.deliver(typed(`once ${id}`, 'm1'))).toBe('answered');
    expect(answers).toEqual([{ id: 'eeee5555-0000', choice: 'once', by: 'fake:1' }]);
    await channel.approvalResolved(resolved('eeee5555-0000', 'once', 'fake:1'));
    // Answered: the same words are now just a message, and nobody is asked again.
    expect(await channel.deliver(typed(`deny ${id}`, 'm2'))).toBe('accepted');
    expect(answers).toHaveLength(1);
    expect(inbound.map((message) => message.text)).toEqual([`deny ${id}`]);
  });

  it('without buttons asks in words and has nothing to take back', async () => {
    const bus = new MessageBus();
    const channel = new TypedChannel({ name: 'typed', bus, access, ledger });
    await channel.presentApproval(request('ffff6666-0000'));
    await channel.approvalResolved(resolved('ffff6666-0000', 'once'));
    expect(channel.texts).toHaveLength(1);
    expect(channel.texts[0]!.text).toContain(`Reply with one of: once ${shortApprovalId('ffff6666-0000')}`);
  });
});
