import { afterEach, describe, expect, it } from 'vitest';
import { capturedIo } from '../../../test/support/captured-io.js';
import { gatedRuntime, recordingTool } from '../../../test/support/gated-runtime.js';
import { ScriptedModel } from '../../../test/support/scripted-model.js';
import { oneShot } from './chat.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe('wren chat -m (oneShot)', () => {
  it('denies a call that needs approval at once, tells the model and the user why', async () => {
    const model = new ScriptedModel();
    const email = recordingTool('send_email', 'sensitive');
    const setup = gatedRuntime({ model, tools: [email.tool] });
    cleanups.push(setup.close);
    let told = '';
    model.script({ toolCalls: [{ name: 'send_email', arguments: { to: 'a@b.c' } }] }, (request) => {
      told = JSON.stringify(request.messages.at(-1));
      return { text: 'I could not send it without your approval.' };
    });
    const { out, io } = capturedIo();
    const code = await oneShot(setup.bus, { message: 'mail a@b.c', session: 'one-shot-1' }, io);
    expect(code).toBe(0);
    expect(email.calls).toHaveLength(0);
    expect(told).toContain('cannot ask anyone');
    expect(out.stdout).toBe('I could not send it without your approval.\n');
    expect(out.stderr).toMatch(
      /^wren: denied send_email: it needs your approval and `wren chat -m` cannot ask/,
    );
    expect(setup.gate.approvals.pending()).toHaveLength(0);
    expect(setup.gate.audit.list({ sessionId: 'one-shot-1' })[0]).toMatchObject({
      tool: 'send_email',
      answer: 'unattended',
      outcome: 'denied',
    });
  });

  it('runs allowed calls without asking and refuses an empty message', async () => {
    const model = new ScriptedModel();
    const read = recordingTool('read_file', 'safe');
    const setup = gatedRuntime({ model, tools: [read.tool] });
    cleanups.push(setup.close);
    model.script({ toolCalls: [{ name: 'read_file', arguments: { path: 'a.md' } }] }, { text: 'read it' });
    const { out, io } = capturedIo();
    expect(await oneShot(setup.bus, { message: 'read a.md', json: true }, io)).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({ reply: 'read it' });
    expect(out.stderr).toBe('');
    expect(read.calls).toHaveLength(1);
    expect(await oneShot(setup.bus, { message: '  ' }, io)).toBe(2);
  });
});
