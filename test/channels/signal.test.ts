import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { WrenApp } from '../../src/app/create-app.js';
import { probeSignal } from '../../src/channels/signal/signal-probe.js';
import { type FakeSignalCli, type SignalPerson, startFakeSignalCli } from '../fakes/fake-signal-cli.js';
import { askedText, echo, startChannelApp } from '../support/channel-app.js';
import { ScriptedModel } from '../support/scripted-model.js';
import { makeHome, waitFor } from '../support/wren-home.js';

const ACCOUNT = '+15550100001';
const OWNER: SignalPerson = {
  number: '+15550100002',
  uuid: 'b0000000-0000-4000-8000-000000000002',
  name: 'Owner',
};
const STRANGER: SignalPerson = {
  number: '+15550100666',
  uuid: 'c0000000-0000-4000-8000-000000000666',
  name: 'Eve',
};
const GROUP = 'Pmpi+EfPWmsxiomLe9Nx2XF9HOE483p6iKiFj65iMwI=';
const OTHER_GROUP = 'QmpiXEfPWmsxiomLe9Nx2XF9HOE483p6iKiFj65iMwI=';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function config(url: string, extra: string[] = []) {
  return [
    'gate:',
    '  mode: ask',
    'channels:',
    '  signal:',
    `    account: "${ACCOUNT}"`,
    `    url: ${url}`,
    `    owner: ["${OWNER.number}"]`,
    `    groups: ["${GROUP}"]`,
    ...extra.map((line) => `    ${line}`),
  ].join('\n');
}

async function start(
  options: {
    signal?: FakeSignalCli;
    home?: string;
    extra?: string[];
    tcp?: boolean;
    model?: ScriptedModel;
  } = {},
) {
  const signal = options.signal ?? (await startFakeSignalCli({ account: ACCOUNT }));
  if (!options.signal) cleanups.push(() => signal.close());
  const home = options.home ?? makeHome(config(options.tcp ? signal.tcpUrl : signal.httpUrl, options.extra));
  const model = options.model ?? new ScriptedModel();
  const { app, close } = await startChannelApp({ home, model, cleanups });
  await waitFor(() => state(app) === 'connected');
  return { app, signal, model, home, close };
}

function state(app: WrenApp) {
  return app.channels.status().find((status) => status.name === 'signal')?.state;
}

const asked = askedText;

/** The owner's next message answered: events are handled in order, so everything before it was too. */
async function answeredAfter(signal: FakeSignalCli, model: ScriptedModel, word = 'after') {
  model.script(echo);
  signal.message({ from: OWNER, text: word });
  await waitFor(() => signal.textsTo(OWNER.number!).includes(`re: ${word}`));
}

describe('the Signal channel (against a fake signal-cli daemon over HTTP and SSE)', () => {
  it('answers the owner; a stranger costs no model call and gets nothing; typing shows while it works', async () => {
    const { signal, model } = await start();
    model.script({ text: 'Hello there' });
    signal.message({ from: STRANGER, text: 'let me in' });
    signal.message({ from: OWNER, text: 'hi' });
    await waitFor(() => signal.textsTo(OWNER.number!).length === 1);
    expect(signal.textsTo(OWNER.number!)).toEqual(['Hello there']);
    const reply = signal.calls('send')[0]!;
    expect(reply.params).toMatchObject({
      account: ACCOUNT,
      recipient: [OWNER.number],
      message: 'Hello there',
    });
    expect(
      signal.calls('sendTyping').some((call) => JSON.stringify(call.params).includes(OWNER.number!)),
    ).toBe(true);
    await answeredAfter(signal, model);
    expect(model.requests).toHaveLength(2);
    expect(asked(model)).not.toContain('let me in');
    expect(signal.textsTo(STRANGER.number!)).toEqual([]);
    expect(signal.textsTo(STRANGER.uuid)).toEqual([]);
  });

  it('knows the owner by UUID too, and sends read receipts when asked to', async () => {
    const { signal, model } = await start({
      extra: [`allow_from: ["${STRANGER.uuid}"]`, 'read_receipts: true'],
    });
    model.script({ text: 'hi friend' });
    const { timestamp } = signal.message({ from: { uuid: STRANGER.uuid, name: 'Eve' }, text: 'hello' });
    await waitFor(() => signal.textsTo(STRANGER.uuid).includes('hi friend'));
    const receipt = await signal.waitFor((call) => call.method === 'sendReceipt');
    expect(receipt.params).toMatchObject({
      recipient: STRANGER.uuid,
      targetTimestamp: [timestamp],
      type: 'read',
    });
  });

  it('offers a stranger a pairing code and tells the owner, still at zero model cost', async () => {
    const { signal, model } = await start({ extra: ['pairing: true'] });
    signal.message({ from: STRANGER, text: 'let me in' });
    await waitFor(() => signal.textsTo(OWNER.number!).some((text) => text.includes('pairing code')));
    const offer = signal.textsTo(STRANGER.uuid)[0]!;
    const code = /pairing code is ([A-Z0-9]{8})/.exec(offer)![1]!;
    expect(signal.textsTo(OWNER.number!)[0]).toContain(code);
    expect(model.requests).toHaveLength(0);
  });

  it('asks a held exec in the chat: the owner’s 👍 reaction approves it and the turn finishes', async () => {
    const { app, signal, model } = await start();
    model.script(
      { toolCalls: [{ name: 'exec', arguments: { command: 'touch from-signal.txt' } }] },
      { text: 'Done.' },
    );
    signal.message({ from: OWNER, text: 'make the file' });
    await waitFor(() => signal.textsTo(OWNER.number!).some((text) => text.includes('Approval needed')));
    const question = signal
      .calls('send')
      .find((call) => String(call.params['message']).includes('Approval needed'))!;
    expect(String(question.params['message'])).toContain('touch from-signal.txt');
    expect(String(question.params['message'])).toMatch(
      /React 👍 allow once.*reply with a number: 1 allow once/s,
    );
    const sentAt = question.sentAt!;
    // A stranger's reaction and the owner's unrelated one change nothing.
    signal.reaction(STRANGER, '👍', sentAt);
    signal.reaction(OWNER, '😂', sentAt);
    signal.reaction(OWNER, '👍', sentAt);
    await waitFor(() => signal.textsTo(OWNER.number!).includes('Done.'));
    expect(existsSync(join(app.config().workspace, 'from-signal.txt'))).toBe(true);
    expect(app.gate.approvals.pending()).toHaveLength(0);
  });

  it('takes a numbered reply as the answer to the open approval', async () => {
    const { app, signal, model } = await start();
    model.script(
      { toolCalls: [{ name: 'exec', arguments: { command: 'touch numbered.txt' } }] },
      { text: 'Made it.' },
    );
    signal.message({ from: OWNER, text: 'make another' });
    await waitFor(() => signal.textsTo(OWNER.number!).some((text) => text.includes('Approval needed')));
    signal.message({ from: STRANGER, text: '1' });
    signal.message({ from: OWNER, text: '1' });
    await waitFor(() => signal.textsTo(OWNER.number!).includes('Made it.'));
    expect(existsSync(join(app.config().workspace, 'numbered.txt'))).toBe(true);
    expect(model.requests).toHaveLength(2);
  });

  it('passes an image to the model as an image part and saves a file into the inbox', async () => {
    const { app, signal, model } = await start();
    const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001', 'hex');
    signal.message({
      from: STRANGER,
      attachments: [{ bytes: Buffer.from('nope'), contentType: 'text/plain' }],
    });
    signal.message({
      from: OWNER,
      text: 'what is this?',
      attachments: [{ bytes: png, contentType: 'image/png' }],
    });
    signal.message({
      from: OWNER,
      attachments: [
        { bytes: Buffer.from('quarterly plan'), contentType: 'text/plain', filename: 'plan.txt' },
      ],
    });
    await waitFor(() => model.requests.length === 2);
    const last = model.requests[0]!.messages.at(-1)!;
    const parts = Array.isArray(last.content) ? last.content : [];
    expect(parts).toContainEqual(
      expect.objectContaining({ type: 'image', mediaType: 'image/png', data: png.toString('base64') }),
    );
    const saved = /inbox\/[\w.-]*plan\.txt/.exec(JSON.stringify(model.requests[1]!.messages.at(-1)))?.[0];
    expect(readFileSync(join(app.config().workspace, saved!), 'utf8')).toBe('quarterly plan');
    expect(signal.downloads()).toBe(2);
  });

  it('sends a file the model sends as an attachment (a data URI with its name)', async () => {
    const { app, signal, model } = await start();
    writeFileSync(join(app.config().workspace, 'notes.txt'), 'the notes');
    model.script({ toolCalls: [{ name: 'send_file', arguments: { path: 'notes.txt' } }] }, { text: 'Sent.' });
    signal.message({ from: OWNER, text: 'send the notes' });
    const upload = await signal.waitFor(
      (call) => call.method === 'send' && Array.isArray(call.params['attachments']),
    );
    const [uri] = upload.params['attachments'] as string[];
    const match = /^data:([^;]+);filename=([^;]+);base64,(.*)$/.exec(uri!)!;
    expect(match[2]).toBe('notes.txt');
    expect(Buffer.from(match[3]!, 'base64').toString()).toBe('the notes');
    await waitFor(() => signal.textsTo(OWNER.number!).includes('Sent.'));
  });

  it('answers in a listed group only when mentioned, never in another group', async () => {
    const { signal, model } = await start();
    const me = { number: ACCOUNT, uuid: signal.accountUuid };
    signal.message({ from: OWNER, groupId: GROUP, text: 'just chatting' });
    signal.message({
      from: OWNER,
      groupId: OTHER_GROUP,
      text: '\uFFFC hello other',
      mentions: [{ ...me, start: 0, length: 1 }],
    });
    model.script(echo);
    signal.message({
      from: OWNER,
      groupId: GROUP,
      text: '\uFFFC what time is it',
      mentions: [{ ...me, start: 0, length: 1 }],
    });
    await waitFor(() => signal.textsTo(GROUP).length === 1);
    expect(signal.textsTo(GROUP)).toEqual(['re: what time is it']);
    await answeredAfter(signal, model);
    expect(signal.textsTo(OTHER_GROUP)).toEqual([]);
    expect(asked(model)).not.toContain('just chatting');
    expect(asked(model)).not.toContain('hello other');
  });

  it('takes a note to self from the account’s own phone when the account is the owner', async () => {
    const signal = await startFakeSignalCli({ account: ACCOUNT });
    cleanups.push(() => signal.close());
    const home = makeHome(
      config(signal.httpUrl).replace(`owner: ["${OWNER.number}"]`, `owner: ["${ACCOUNT}"]`),
    );
    const { model } = await start({ signal, home });
    model.script(echo);
    signal.noteToSelf('remind me of milk');
    await waitFor(() => signal.textsTo(ACCOUNT).includes('re: remind me of milk'));
  });

  it('handles a redelivered event once, also after a restart, and loses nothing sent while it was down', async () => {
    const signal = await startFakeSignalCli({ account: ACCOUNT });
    cleanups.push(() => signal.close());
    const home = makeHome(config(signal.httpUrl));
    const model = new ScriptedModel().script(echo, echo, echo, echo, echo);
    const first = await start({ signal, home, model });
    const once = signal.message({ from: OWNER, text: 'once please' });
    await waitFor(() => signal.textsTo(OWNER.number!).includes('re: once please'));
    signal.redeliver(once.data);
    await answeredAfter(signal, model, 'second');
    await first.close();
    await waitFor(() => signal.listeners() === 0);
    // While Wren is down: the daemon redelivers the message once more and a new one comes in.
    signal.redeliver(once.data);
    signal.message({ from: OWNER, text: 'while you were away' });
    await start({ signal, home, model });
    await waitFor(() => signal.textsTo(OWNER.number!).includes('re: while you were away'));
    await answeredAfter(signal, model, 'third');
    expect(asked(model).split('once please').length - 1).toBeGreaterThan(0);
    const lastLines = model.requests.map((request) => JSON.stringify(request.messages.at(-1)));
    expect(lastLines.filter((text) => text.includes('once please'))).toHaveLength(1);
    expect(signal.textsTo(OWNER.number!).filter((text) => text === 're: once please')).toHaveLength(1);
  });

  it('reconnects after the daemon drops the event stream', async () => {
    const { app, signal, model } = await start();
    signal.dropConnections();
    await waitFor(() => signal.streamsOpened() >= 2 && state(app) === 'connected', 20_000);
    await answeredAfter(signal, model, 'there?');
  }, 30_000);

  it('refuses a 1 MB message with a notice at no model cost', async () => {
    const { signal, model } = await start();
    signal.message({ from: OWNER, text: 'x'.repeat(1024 * 1024) });
    await waitFor(() => signal.textsTo(OWNER.number!).some((text) => text.includes('characters')));
    expect(model.requests).toHaveLength(0);
    await answeredAfter(signal, model);
    expect(model.requests).toHaveLength(1);
  });

  it('drops malformed and unknown events and keeps answering', async () => {
    const { signal, model } = await start();
    for (const raw of [
      'not json',
      '[]',
      'null',
      '{}',
      '{"envelope":null}',
      '{"envelope":{"timestamp":"soon","sourceNumber":"+15550100002"}}',
      '{"envelope":{"timestamp":1,"dataMessage":{"message":"no sender"}}}',
      `{"envelope":{"sourceNumber":"${OWNER.number}","sourceUuid":"${OWNER.uuid}","timestamp":5,"typingMessage":{"action":"STARTED"}}}`,
      `{"envelope":{"sourceNumber":"${OWNER.number}","sourceUuid":"${OWNER.uuid}","timestamp":6,"receiptMessage":{"isRead":true,"timestamps":[1]}}}`,
      `{"envelope":{"sourceNumber":"${OWNER.number}","sourceUuid":"${OWNER.uuid}","timestamp":7,"callMessage":{"offerMessage":{}}}}`,
      `{"envelope":{"sourceNumber":"${OWNER.number}","sourceUuid":"${OWNER.uuid}","timestamp":8,"somethingNew":{"x":1}}}`,
      `{"envelope":{"sourceNumber":"${OWNER.number}","sourceUuid":"${OWNER.uuid}","timestamp":9,"dataMessage":{"message":42,"attachments":"nope","mentions":[null]}}}`,
      `{"envelope":{"sourceNumber":"${OWNER.number}","sourceUuid":"${OWNER.uuid}","timestamp":10,"dataMessage":{"reaction":{"emoji":"👍"}}}}`,
      `{"envelope":{"sourceNumber":"${OWNER.number}","sourceUuid":"${OWNER.uuid}","timestamp":11,"syncMessage":{"sentMessage":{"destinationNumber":"+15550100777","message":"to someone else"}}}}`,
    ])
      signal.pushRaw(raw);
    await answeredAfter(signal, model);
    expect(model.requests).toHaveLength(1);
    expect(asked(model)).not.toContain('to someone else');
  });

  it('processes 100 owner messages sent within a second in order, none lost', async () => {
    const { signal, model } = await start({ extra: ['rate_limit: 600'] });
    model.script(...Array.from({ length: 100 }, () => echo));
    for (let index = 0; index < 100; index++) signal.message({ from: OWNER, text: `m${index}` });
    await waitFor(() => signal.textsTo(OWNER.number!).length >= 100, 60_000);
    const taken = asked(model);
    const positions = Array.from({ length: 100 }, (_, index) => taken.indexOf(`m${index}"`));
    expect(positions.every((position) => position >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
  }, 90_000);

  it('drops a stranger flood cheaply: no model call, no download, no reply, and the owner is still answered', async () => {
    const { signal, model } = await start();
    for (let index = 0; index < 500; index++)
      signal.message({
        from: STRANGER,
        text: `spam ${index}`,
        attachments: [{ bytes: Buffer.from('x'), contentType: 'image/png' }],
      });
    await answeredAfter(signal, model);
    expect(model.requests).toHaveLength(1);
    expect(signal.downloads()).toBe(0);
    expect(signal.textsTo(STRANGER.uuid)).toEqual([]);
  }, 30_000);

  it('tells doctor the daemon’s version, and what to run when it is not there', async () => {
    const signal = await startFakeSignalCli({ account: ACCOUNT });
    cleanups.push(() => signal.close());
    expect(await probeSignal({ url: signal.httpUrl, account: ACCOUNT })).toEqual({
      ok: true,
      version: '0.13.22',
    });
    expect(await probeSignal({ url: signal.tcpUrl, account: ACCOUNT })).toEqual({
      ok: true,
      version: '0.13.22',
    });
    const down = await probeSignal({ url: 'http://127.0.0.1:9', account: ACCOUNT, token: 'SECRET-proxy' });
    expect(down.ok).toBe(false);
    expect(JSON.stringify(down)).toContain('daemon --http');
    expect(JSON.stringify(down)).not.toContain('SECRET-proxy');
  });
});

describe('the Signal channel over the daemon’s TCP socket', () => {
  it('answers the owner, asks and takes an approval, and reconnects after a drop', async () => {
    const { app, signal, model } = await start({ tcp: true });
    model.script(
      { toolCalls: [{ name: 'exec', arguments: { command: 'touch over-tcp.txt' } }] },
      { text: 'Done over TCP.' },
    );
    signal.message({ from: OWNER, text: 'make it' });
    await waitFor(() => signal.textsTo(OWNER.number!).some((text) => text.includes('Approval needed')));
    const question = signal
      .calls('send')
      .find((call) => String(call.params['message']).includes('Approval needed'))!;
    expect(question.transport).toBe('tcp');
    signal.reaction(OWNER, '👍', question.sentAt!);
    await waitFor(() => signal.textsTo(OWNER.number!).includes('Done over TCP.'));
    expect(existsSync(join(app.config().workspace, 'over-tcp.txt'))).toBe(true);
    signal.dropConnections();
    await waitFor(() => signal.streamsOpened() >= 2 && state(app) === 'connected', 20_000);
    await answeredAfter(signal, model, 'still there?');
  }, 30_000);
});
