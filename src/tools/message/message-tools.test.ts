import { linkSync, mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { Tool, ToolContext } from '../../agent/tool.js';
import { MessageBus } from '../../bus/message-bus.js';
import type { OutboundMessage } from '../../bus/messages.js';
import { TerminalChannel } from '../../channels/terminal/terminal-channel.js';
import { runTerminalChat } from '../../channels/terminal/terminal-chat.js';
import { createMessageTools } from './message-tools.js';

const base = realpathSync(mkdtempSync(join(tmpdir(), 'wren-msg-')));
const workspace = join(base, 'workspace');
mkdirSync(join(workspace, 'reports'), { recursive: true });
writeFileSync(join(workspace, 'reports', 'week.md'), '# Week\nAll good.');
writeFileSync(join(base, 'secret.txt'), 'nope');
symlinkSync(join(base, 'secret.txt'), join(workspace, 'leak.txt'));

const ctx: ToolContext = {
  sessionId: 's1',
  channel: 'cli',
  chatId: 'terminal',
  senderId: 'owner',
  isOwner: true,
  interactive: true,
  workspace,
};

function setup() {
  const bus = new MessageBus();
  const sent: OutboundMessage[] = [];
  bus.subscribeOutbound((message) => {
    sent.push(message);
  });
  const [message, sendFile] = createMessageTools({
    bus,
    roots: () => [workspace],
    channels: () => ['cli', 'api', 'telegram', 'slack'],
    ownerChat: (channel) => (channel === 'telegram' ? '4242' : undefined),
  }) as [Tool, Tool];
  return { bus, sent, message, sendFile };
}

describe('message and send_file', () => {
  it('message sends to the current chat by default, or to a named one', async () => {
    const { message, sent } = setup();
    expect(
      (await message.execute({ text: 'Reminder: stretch' }, ctx, new AbortController().signal)).content,
    ).toBe('Sent to cli:terminal.');
    await message.execute(
      { text: 'over there', channel: 'api', chat_id: 'abc' },
      ctx,
      new AbortController().signal,
    );
    expect(sent.map((item) => [item.channel, item.chatId, item.kind, item.replyTo, item.text])).toEqual([
      ['cli', 'terminal', 'message', '', 'Reminder: stretch'],
      ['api', 'abc', 'message', '', 'over there'],
    ]);
  });

  it('message to another chat is egress for the gate; to the current chat it is not', async () => {
    const { message } = setup();
    expect(await message.assess!({ text: 'x' }, ctx)).toEqual({ target: 'cli:terminal' });
    expect(await message.assess!({ text: 'x', channel: 'api', chat_id: 'z' }, ctx)).toMatchObject({
      egress: { target: 'api:z' },
    });
  });

  it('refuses a channel that is not connected', async () => {
    const { message } = setup();
    await expect(
      message.execute({ text: 'x', channel: 'discord' }, ctx, new AbortController().signal),
    ).rejects.toThrow(
      /channel "discord" is not connected right now \(connected: cli, api, telegram, slack\)/,
    );
  });

  it("sends to the owner's own chat on another channel when no chat is named", async () => {
    const { message, sent } = setup();
    const signal = new AbortController().signal;
    const result = await message.execute({ text: 'from the terminal', channel: 'telegram' }, ctx, signal);
    expect(result.content).toBe('Sent to telegram:4242.');
    expect(sent.at(-1)).toMatchObject({ channel: 'telegram', chatId: '4242' });
    await expect(message.execute({ text: 'x', channel: 'slack' }, ctx, signal)).rejects.toThrow(
      /Name the chat_id/,
    );
  });

  it('send_file delivers a workspace file and refuses escapes and folders', async () => {
    const { sendFile, sent } = setup();
    const signal = new AbortController().signal;
    const result = await sendFile.execute({ path: 'reports/week.md', caption: 'This week' }, ctx, signal);
    expect(result.content).toBe('Sent reports/week.md (16 bytes) to cli:terminal.');
    expect(sent[0]).toMatchObject({
      text: 'This week',
      attachments: [{ name: 'reports/week.md', size: 16, path: join(workspace, 'reports', 'week.md') }],
    });
    await expect(sendFile.execute({ path: 'leak.txt' }, ctx, signal)).rejects.toThrow(
      /outside the workspace/,
    );
    await expect(sendFile.execute({ path: '../secret.txt' }, ctx, signal)).rejects.toThrow(
      /outside the workspace/,
    );
    await expect(sendFile.execute({ path: 'reports' }, ctx, signal)).rejects.toThrow(/is a folder/);
    // A hard link inside the workspace may be a file outside it: never sent.
    const outside = join(mkdtempSync(join(tmpdir(), 'wren-outside-')), 'secret.txt');
    writeFileSync(outside, 'outside secret');
    linkSync(outside, join(workspace, 'linked.txt'));
    await expect(sendFile.execute({ path: 'linked.txt' }, ctx, signal)).rejects.toThrow(/hard links/);
    await expect(sendFile.execute({ path: 'missing.md' }, ctx, signal)).rejects.toThrow(/No file at/);
  });

  it('the terminal chat prints messages Wren sends on its own, with attachment paths', async () => {
    const { bus, sendFile, message } = setup();
    bus.consumeInbound(() => {});
    const input = new PassThrough();
    const output = new PassThrough();
    let printed = '';
    output.on('data', (chunk: Buffer) => {
      printed += chunk.toString();
    });
    const done = runTerminalChat({
      channel: new TerminalChannel({ bus, interactive: false }),
      input,
      output,
      tty: false,
    });
    await message.execute({ text: 'Your build finished.' }, ctx, new AbortController().signal);
    await sendFile.execute({ path: 'reports/week.md' }, ctx, new AbortController().signal);
    await message.execute(
      { text: 'not for this terminal', channel: 'api', chat_id: 'x' },
      ctx,
      new AbortController().signal,
    );
    input.end();
    await done;
    expect(printed).toContain('Your build finished.');
    expect(printed).toContain(`📎 reports/week.md (16 bytes): ${join(workspace, 'reports', 'week.md')}`);
    expect(printed).not.toContain('not for this terminal');
  });
});
