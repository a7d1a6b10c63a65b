import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { gatedRuntime, recordingTool, until } from '../../test/support/gated-runtime.js';
import { ScriptedModel } from '../../test/support/scripted-model.js';
import type { InboundMessage, OutboundMessage } from '../bus/messages.js';
import { ChannelRepository } from '../store/channel-repository.js';
import { openDatabase } from '../store/open-database.js';
import { type ChannelAccess, channelAccessShape, toChannelAccess } from './channel-access.js';
import { PlatformChannel, type PlatformMessage } from './platform-channel.js';

/** A channel whose "platform" is the test: `deliver` plays an incoming message, `sent` holds what went out. */
class FakeChannel extends PlatformChannel {
  protected readonly textLimit = 100;
  readonly sent: Array<{ chatId: string; text: string }> = [];
  async start(): Promise<void> {
    this.attachPlatform();
    this.setState('connected');
  }
  async stop(): Promise<void> {
    this.detachPlatform();
  }
  protected async sendText(chatId: string, text: string): Promise<void> {
    this.sent.push({ chatId, text });
  }
  deliver(message: PlatformMessage) {
    return this.receive(message);
  }
}

const accessSchema = z.strictObject(channelAccessShape('fake', { pattern: /^\d+$/, explain: 'use digits' }));

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

function setup(section: Record<string, unknown>, dbPath?: string) {
  const model = new ScriptedModel();
  const exec = recordingTool('exec', 'dangerous');
  const runtime = gatedRuntime({ model, tools: [exec.tool] });
  const path = dbPath ?? join(mkdtempSync(join(tmpdir(), 'wren-chan-')), 'wren.db');
  const db = openDatabase(path);
  let access: ChannelAccess = toChannelAccess(accessSchema.parse(section));
  let now = 1_000_000;
  const channel = new FakeChannel({
    name: 'fake',
    bus: runtime.bus,
    access: () => access,
    ledger: new ChannelRepository(db),
    clock: () => now,
  });
  void channel.start();
  cleanups.push(async () => {
    await channel.stop();
    await runtime.close();
    db.close();
  });
  const published: InboundMessage[] = [];
  const original = runtime.bus.publishInbound.bind(runtime.bus);
  runtime.bus.publishInbound = (inbound) => {
    published.push(inbound);
    original(inbound);
  };
  const message = (senderId: string, platformId: string, text = 'hello'): PlatformMessage => ({
    platformId,
    senderId,
    chatId: `chat-${senderId}`,
    text,
  });
  return {
    ...runtime,
    model,
    exec,
    channel,
    message,
    published,
    path,
    db,
    advance: (ms: number) => {
      now += ms;
    },
    setAccess: (next: Record<string, unknown>) => {
      access = toChannelAccess(accessSchema.parse(next));
    },
  };
}

describe('PlatformChannel', () => {
  it('drops a stranger: zero model calls, no reply; the owner and allowed senders get answers', async () => {
    const { channel, model, message } = setup({ owner: ['100'], allow_from: ['200'] });
    model.script({ text: 'hi 200' }, { text: 'hi owner' });
    expect(await channel.deliver(message('666', 'm1'))).toBe('blocked');
    expect(await channel.deliver(message('200', 'm2'))).toBe('accepted');
    await until(() => channel.sent.length === 1, 'the reply to 200');
    expect(await channel.deliver(message('100', 'm3'))).toBe('accepted');
    await until(() => channel.sent.length === 2, 'the reply to the owner');
    expect(model.requests).toHaveLength(2);
    expect(channel.sent.map((item) => item.chatId)).toEqual(['chat-200', 'chat-100']);
  });

  it('fails closed: an empty allow_from admits only the owner; ids are compared exactly', async () => {
    const { channel, model, message } = setup({ owner: [100] });
    expect(await channel.deliver(message('200', 'a'))).toBe('blocked');
    expect(await channel.deliver(message('100 ', 'b'))).toBe('blocked');
    expect(await channel.deliver(message('1000', 'c'))).toBe('blocked');
    expect(await channel.deliver(message('100', 'd'))).toBe('accepted');
    expect(model.requests.length).toBeLessThanOrEqual(1);
  });

  it('refuses usernames and display names in the config, saying why', async () => {
    const bad = accessSchema.safeParse({ owner: ['@alice'], allow_from: ['Bob Smith'] });
    expect(bad.success).toBe(false);
    const messages = bad.error!.issues.map((issue) => issue.message).join('\n');
    expect(messages).toContain('owner: "@alice" is a username, not a fake user id');
    expect(messages).toContain('allow_from: "Bob Smith" is a display name');
    expect(messages).toContain('Names can change hands');
    expect(accessSchema.safeParse({ allow_form: ['1'] }).success).toBe(false);
    expect(accessSchema.safeParse({ owner: 'me' }).success).toBe(false);
  });

  it('marks the owner as owner and interactive, other allowed senders as neither', async () => {
    const { channel, message, published } = setup({ owner: ['100'], allow_from: ['*'] });
    await channel.deliver(message('100', 'x'));
    await channel.deliver(message('300', 'y'));
    expect(published).toEqual([
      expect.objectContaining({ id: 'fake:chat-100:x', senderId: '100', fromOwner: true, interactive: true }),
      expect.objectContaining({ id: 'fake:chat-300:y', fromOwner: false, interactive: false }),
    ]);
  });

  it('de-duplicates platform ids per chat, also after a restart (the ids are stored)', async () => {
    const first = setup({ owner: ['100'] });
    expect(await first.channel.deliver(first.message('100', 'same'))).toBe('accepted');
    expect(await first.channel.deliver(first.message('100', 'same'))).toBe('duplicate');
    first.db.close();
    const again = setup({ owner: ['100'] }, first.path);
    expect(await again.channel.deliver(again.message('100', 'same'))).toBe('duplicate');
    expect(await again.channel.deliver(again.message('100', 'other'))).toBe('accepted');
  });

  it('in groups answers only listed groups, only when addressed, only allowed senders', async () => {
    const { channel, message, published } = setup({ owner: ['100'], groups: ['-55'] });
    const inGroup = (senderId: string, id: string, chatId: string, mentioned: boolean) => ({
      ...message(senderId, id),
      chatId,
      group: { mentioned, repliedToBot: false },
    });
    expect(await channel.deliver(inGroup('100', 'g1', '-55', false))).toBe('ignored');
    expect(await channel.deliver(inGroup('100', 'g2', '-66', true))).toBe('ignored');
    expect(await channel.deliver(inGroup('999', 'g3', '-55', true))).toBe('blocked');
    expect(await channel.deliver(inGroup('100', 'g4', '-55', true))).toBe('accepted');
    expect(published.map((item) => item.id)).toEqual(['fake:-55:g4']);
  });

  it('pairing: a stranger gets one 8-character code; at most 3 wait; approved senders are admitted', async () => {
    const { channel, message, db, model } = setup({ owner: ['100'], pairing: true });
    const repository = new ChannelRepository(db);
    const toStrangers = () => channel.sent.filter((item) => item.chatId !== '100');
    expect(await channel.deliver(message('701', 'p1'))).toBe('blocked');
    expect(await channel.deliver(message('701', 'p2'))).toBe('blocked');
    const codes = toStrangers().map((item) => /pairing code is ([A-Z0-9]{8})/.exec(item.text)?.[1]);
    expect(codes).toHaveLength(1);
    await channel.deliver(message('702', 'p3'));
    await channel.deliver(message('703', 'p4'));
    await channel.deliver(message('704', 'p5'));
    expect(toStrangers()).toHaveLength(3);
    expect(repository.listPairings(1_000_000).filter((pairing) => !pairing.approvedAt)).toHaveLength(3);
    expect(repository.approvePairing(codes[0]!.toLowerCase(), 1_000_001)?.senderId).toBe('701');
    expect(await channel.deliver(message('701', 'p6'))).toBe('accepted');
    expect(repository.approvePairing('ZZZZZZZZ', 1_000_002)).toBeUndefined();
    expect(model.requests.length).toBeLessThanOrEqual(1);
  });

  it('pairing: the owner is told in their own chat once per code, never more than 3 an hour', async () => {
    const { channel, message, advance } = setup({ owner: ['100'], pairing: true });
    const toOwner = () => channel.sent.filter((item) => item.chatId === '100').map((item) => item.text);
    await channel.deliver({ ...message('701', 'q1'), senderName: 'Mallory' });
    await channel.deliver({ ...message('701', 'q2'), senderName: 'Mallory' });
    const code = /pairing code is ([A-Z0-9]{8})/.exec(channel.sent[0]!.text)![1]!;
    expect(toOwner()).toEqual([expect.stringContaining(`"Mallory", fake id 701`)]);
    expect(toOwner()[0]).toContain(`Their pairing code is ${code}`);
    expect(toOwner()[0]).toContain(`wren pairing approve ${code}, or use Approvals in the web app`);
    // A flood of new strangers: the 3-pending cap bounds what reaches the owner.
    for (let index = 0; index < 20; index++) await channel.deliver(message(`9${index}`, `f${index}`));
    expect(toOwner()).toHaveLength(3);
    // Once the codes expire, new ones (and new notices) can be made again.
    advance(60 * 60 * 1000 + 1);
    await channel.deliver(message('950', 'late'));
    expect(toOwner()).toHaveLength(4);
  });

  it('pairing codes expire after an hour', async () => {
    const { channel, message, db, advance } = setup({ pairing: true });
    await channel.deliver(message('801', 'e1'));
    const code = /pairing code is ([A-Z0-9]{8})/.exec(channel.sent[0]!.text)![1]!;
    advance(60 * 60 * 1000 + 1);
    expect(new ChannelRepository(db).approvePairing(code, 1_000_000 + 60 * 60 * 1000 + 1)).toBeUndefined();
  });

  it('rate-limits each sender per minute, with one notice', async () => {
    const { channel, message, advance } = setup({ owner: ['100'], rate_limit: 2 });
    expect(await channel.deliver(message('100', 'r1'))).toBe('accepted');
    expect(await channel.deliver(message('100', 'r2'))).toBe('accepted');
    expect(await channel.deliver(message('100', 'r3'))).toBe('limited');
    expect(await channel.deliver(message('100', 'r4'))).toBe('limited');
    expect(channel.sent.filter((item) => item.text.startsWith('Slow down'))).toHaveLength(1);
    advance(60_000);
    expect(await channel.deliver(message('100', 'r5'))).toBe('accepted');
  });

  it('refuses a huge message before it reaches the model', async () => {
    const { channel, message, published } = setup({ owner: ['100'] });
    expect(await channel.deliver(message('100', 'h1', 'x'.repeat(40_000)))).toBe('too_large');
    expect(published).toHaveLength(0);
    expect(channel.sent[0]!.text).toContain('40,000 characters');
  });

  it('splits a long reply at the platform limit', async () => {
    const { channel, model, message } = setup({ owner: ['100'] });
    const long = Array.from({ length: 12 }, (_, index) => `Part ${index} of the answer.`).join('\n\n');
    model.script({ text: long });
    await channel.deliver(message('100', 'long'));
    await until(() => channel.sent.length >= 3, 'the split reply');
    for (const item of channel.sent) expect(item.text.length).toBeLessThanOrEqual(100);
    expect(channel.sent.map((item) => item.text).join('\n\n')).toBe(long);
  });

  it('asks a held call in the chat; only the owner can answer by typing the short id', async () => {
    const { channel, model, message, exec } = setup({ owner: ['100'], allow_from: ['200'] });
    model.script(
      { toolCalls: [{ name: 'exec', arguments: { command: 'rm -rf build' } }] },
      { text: 'Done.' },
    );
    await channel.deliver(message('100', 'ask'));
    await until(() => channel.sent.some((item) => item.text.startsWith('Approval needed')), 'the question');
    const question = channel.sent.find((item) => item.text.startsWith('Approval needed'))!.text;
    expect(question).toContain('rm -rf build');
    const id = /\[([0-9a-f]{6})\]/.exec(question)![1]!;
    // Another allowed sender typing the answer is just a message to the model, not an answer.
    expect(await channel.deliver({ ...message('200', 'x1', `once ${id}`) })).toBe('accepted');
    expect(exec.calls).toHaveLength(0);
    expect(await channel.deliver({ ...message('100', 'x2', `once ${id}`) })).toBe('answered');
    await until(
      () => channel.sent.some((item: OutboundMessage | { text: string }) => item.text === 'Done.'),
      'the turn',
    );
    expect(exec.calls).toHaveLength(1);
  });

  it('with no owner set, says once in the log which id to add (the owner setting up writes first)', async () => {
    const { runtime, errors } = (() => {
      const model = new ScriptedModel();
      const setupRuntime = gatedRuntime({ model });
      const collected: string[] = [];
      return { runtime: setupRuntime, errors: collected };
    })();
    const db = openDatabase(join(mkdtempSync(join(tmpdir(), 'wren-chan-')), 'wren.db'));
    const channel = new FakeChannel({
      name: 'fake',
      bus: runtime.bus,
      access: () => toChannelAccess(accessSchema.parse({})),
      ledger: new ChannelRepository(db),
      onError: (error) => errors.push((error as Error).message),
    });
    cleanups.push(async () => {
      await runtime.close();
      db.close();
    });
    expect(await channel.deliver({ platformId: '1', senderId: '4242', chatId: '4242', text: 'hi' })).toBe(
      'blocked',
    );
    expect(await channel.deliver({ platformId: '2', senderId: '4242', chatId: '4242', text: 'hello?' })).toBe(
      'blocked',
    );
    expect(errors).toEqual([
      'fake has no owner set, so a message from 4242 was ignored; if that was you, add owner: ["4242"] under channels.fake',
    ]);
  });
});
