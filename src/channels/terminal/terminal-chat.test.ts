import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { gatedRuntime, recordingTool, until } from '../../../test/support/gated-runtime.js';
import { ScriptedModel } from '../../../test/support/scripted-model.js';
import { TerminalChannel } from './terminal-channel.js';
import { runTerminalChat } from './terminal-chat.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

function chat(options: { interactive?: boolean; gate?: Record<string, unknown> } = {}) {
  const model = new ScriptedModel();
  const email = recordingTool('send_email', 'sensitive');
  const setup = gatedRuntime({ model, tools: [email.tool], gate: options.gate ?? {} });
  cleanups.push(setup.close);
  const input = new PassThrough();
  const output = new PassThrough();
  let text = '';
  output.on('data', (chunk: Buffer) => {
    text += chunk.toString();
  });
  const channel = new TerminalChannel({ bus: setup.bus, interactive: options.interactive ?? false });
  const done = runTerminalChat({ channel, input, output, tty: false });
  return { ...setup, model, email, input, done, output: () => text };
}

describe('runTerminalChat approvals', () => {
  it('asks inline with tool, redacted arguments and reason, and runs the call once approved', async () => {
    const { model, email, input, output, done, gate } = chat({
      interactive: true,
      gate: { secrets: { SMTP_PASSWORD: 'hunter2-very-secret' } },
    });
    model.script(
      {
        toolCalls: [
          { name: 'send_email', arguments: { to: 'ann@example.com', body: 'pw hunter2-very-secret' } },
        ],
      },
      { text: 'Sent it.' },
    );
    input.write('mail ann\n');
    await until(() => output().includes('approval needed'), 'the approval prompt');
    expect(output()).toContain(
      '? approval needed: send_email {"to":"ann@example.com","body":"pw [redacted]"}',
    );
    expect(output()).toContain('why: send_email is a sensitive tool and the gate runs in ask mode.');
    expect(output()).toContain('answer [o]nce, for this [s]ession, [a]lways, [d]eny');
    input.write('maybe\n');
    await until(() => output().includes('please answer'), 'the re-ask');
    expect(email.calls).toHaveLength(0);
    input.write('o\n');
    await until(() => output().includes('Sent it.'), 'the reply');
    expect(output()).toContain('approved (once)');
    expect(email.calls).toHaveLength(1);
    expect(gate.audit.list()[0]).toMatchObject({ answer: 'once', answeredBy: 'cli', outcome: 'allowed' });
    input.end();
    await done;
  });

  it('denies on "d" and the model hears why', async () => {
    const { model, email, input, output, done } = chat({ interactive: true });
    model.script({ toolCalls: [{ name: 'send_email', arguments: { to: 'x@evil.test' } }] }, (request) => ({
      text: `model saw: ${JSON.stringify(request.messages.at(-1)?.content).slice(0, 80)}`,
    }));
    input.write('send\n');
    await until(() => output().includes('approval needed'), 'the approval prompt');
    input.write('d\n');
    await until(() => output().includes('model saw:'), 'the reply');
    expect(output()).toContain('Not allowed: The owner denied this send_email call');
    expect(email.calls).toHaveLength(0);
    input.end();
    await done;
  });

  it('shows when an approval was answered elsewhere and leaves the question', async () => {
    const { model, input, output, done, bus } = chat({ interactive: true });
    model.script({ toolCalls: [{ name: 'send_email', arguments: { to: 'a@b.c' } }] }, { text: 'ok then' });
    let id = '';
    bus.subscribeApprovals((event) => {
      if (event.type === 'approval-requested') id = event.request.id;
    });
    input.write('send\n');
    await until(() => id !== '', 'the request');
    expect(bus.answerApproval({ id, choice: 'session', by: 'api' })).toEqual({ ok: true });
    await until(() => output().includes('ok then'), 'the reply');
    expect(output()).toContain('approval for send_email: session (by api)');
    input.end();
    await done;
  });

  it('without a terminal, asks are denied at once', async () => {
    const { model, email, input, output, done } = chat();
    model.script({ toolCalls: [{ name: 'send_email', arguments: { to: 'a@b.c' } }] }, { text: 'could not' });
    input.write('send\n');
    await until(() => output().includes('could not'), 'the reply');
    expect(output()).not.toContain('approval needed');
    expect(email.calls).toHaveLength(0);
    input.end();
    await done;
  });
});

describe('runTerminalChat at the prompt', () => {
  it('prints a reminder on its own line and draws the prompt again with the half-typed input', async () => {
    const setup = gatedRuntime({ model: new ScriptedModel(), tools: [], gate: {} });
    cleanups.push(setup.close);
    const input = new PassThrough();
    const output = new PassThrough();
    let screen = '';
    output.on('data', (chunk: Buffer) => {
      screen += chunk.toString();
    });
    const channel = new TerminalChannel({ bus: setup.bus, interactive: true });
    const done = runTerminalChat({ channel, input, output, tty: true });
    await until(() => screen.includes('you › '), 'the prompt');
    input.write('how ar');
    await until(() => screen.endsWith('how ar'), 'the typed text echoed');
    const before = screen.length;
    await channel.send({
      channel: 'cli',
      chatId: 'terminal',
      replyTo: '',
      sessionId: 'reminders',
      kind: 'message',
      text: '⏰ stretch',
      usage: { inputTokens: 0, outputTokens: 0 },
    });
    const drawn = screen.slice(before);
    // Back to the line's start and cleared (no "you › how arwren › …"), the reminder, then the prompt and the
    // typed text again, ready to go on.
    expect(drawn).toMatch(/^\r?(\x1b\[1G)?\x1b\[2K/);
    expect(drawn).toContain('wren › ⏰ stretch\n');
    expect(drawn.indexOf('wren › ⏰ stretch')).toBeLessThan(drawn.lastIndexOf('you › how ar'));
    expect(screen).not.toMatch(/you › (how ar)?\S*wren ›/);
    input.write('e you?\r');
    await until(() => screen.includes('ok'), 'the reply to the finished line');
    input.end();
    await done;
  });
});
