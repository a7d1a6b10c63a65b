import { existsSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp, type WrenApp } from '../../src/app/create-app.js';
import type { ModelRequest } from '../../src/llm/types.js';
import { type FakeDingtalk, ROBOT_TOPIC, startFakeDingtalk } from '../fakes/fake-dingtalk-server.js';
import { ScriptedModel } from '../support/scripted-model.js';
import { makeHome, waitFor } from '../support/wren-home.js';

const CLIENT_ID = 'dingtestclient01';
const SECRET = 'dingtalk-secret-0123456789';
const OWNER = 'manager1234';
const STRANGER = 'visitor5678';
const GROUP = 'cidTeamGroup001';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function fake() {
  const dingtalk = await startFakeDingtalk({ clientId: CLIENT_ID, clientSecret: SECRET });
  cleanups.push(() => dingtalk.close());
  return dingtalk;
}

function homeFor(dingtalk: FakeDingtalk, extra = '') {
  return makeHome(
    [
      'gate:',
      '  mode: ask',
      'channels:',
      '  dingtalk:',
      '    client_id: ${DINGTALK_CLIENT_ID}',
      '    client_secret: ${DINGTALK_CLIENT_SECRET}',
      `    owner: [${OWNER}]`,
      `    api_url: ${dingtalk.apiUrl}`,
      `    oapi_url: ${dingtalk.apiUrl}`,
      extra,
    ].join('\n'),
  );
}

async function open(home: string, secret = SECRET, model = new ScriptedModel()) {
  const app = await createApp({
    home,
    model,
    probeLocalModels: false,
    channels: true,
    env: { PATH: process.env['PATH'], DINGTALK_CLIENT_ID: CLIENT_ID, DINGTALK_CLIENT_SECRET: secret },
  });
  cleanups.push(() => app.close(1000));
  return { app, model };
}

async function start(extra = '') {
  const dingtalk = await fake();
  const home = homeFor(dingtalk, extra);
  const { app, model } = await open(home);
  await waitFor(() => state(app) === 'connected');
  return { app, dingtalk, model, home };
}

function state(app: WrenApp) {
  return app.channels.status().find((status) => status.name === 'dingtalk')?.state;
}

const textsTo = (dingtalk: FakeDingtalk, chat: string) =>
  dingtalk.sent.filter((message) => message.chat === chat).map((message) => message.text);

/** Answers with the newest line the owner wrote (the runtime's time note comes before it). */
const echo = (request: ModelRequest) => {
  const last = request.messages.at(-1);
  const text = last?.role === 'user' && typeof last.content === 'string' ? last.content : '';
  return { text: `re: ${text.split('\n').at(-1)}` };
};

const asked = (model: ScriptedModel) => model.requests.map((request) => JSON.stringify(request.messages));

describe('the DingTalk channel (Stream mode against a fake DingTalk)', () => {
  it('answers the owner in markdown through the session webhook, acks every callback, offers a stranger pairing at no model cost', async () => {
    const { dingtalk, model } = await start('    pairing: true');
    model.script({ text: 'Hello **there**' });
    const stranger = dingtalk.message({ staffId: STRANGER, text: 'let me in' });
    const owner = dingtalk.message({ staffId: OWNER, text: 'hi' });
    await waitFor(() => textsTo(dingtalk, OWNER).some((text) => text === 'Hello **there**'));
    const reply = dingtalk.sent.find((message) => message.text === 'Hello **there**')!;
    expect(reply).toMatchObject({ via: 'webhook', kind: 'markdown' });
    await waitFor(() => textsTo(dingtalk, STRANGER).some((text) => text.includes('pairing code')));
    await waitFor(() => textsTo(dingtalk, OWNER).some((text) => text.includes('Someone asked to talk')));
    expect(model.requests).toHaveLength(1);
    expect(asked(model).join('\n')).not.toContain('let me in');
    await waitFor(() => dingtalk.acks.has(stranger.messageId) && dingtalk.acks.has(owner.messageId));
    expect(dingtalk.acks.get(owner.messageId)).toMatchObject({ code: 200, message: 'OK' });
  });

  it('answers a listed group only when @-mentioned, and replies through the OpenAPI once the webhook expired', async () => {
    const { dingtalk, model } = await start(`    groups: [${GROUP}]`);
    model.script(echo, echo);
    dingtalk.message({
      staffId: OWNER,
      text: 'just chatting',
      group: { conversationId: GROUP, atBot: false },
    });
    dingtalk.message({
      staffId: OWNER,
      text: 'elsewhere',
      group: { conversationId: 'cidOther', atBot: true },
    });
    dingtalk.message({ staffId: OWNER, text: ' summarise', group: { conversationId: GROUP, atBot: true } });
    await waitFor(() => textsTo(dingtalk, GROUP).includes('re: summarise'));
    expect(model.requests).toHaveLength(1);
    dingtalk.message({ staffId: OWNER, text: 'late', expiredWebhook: true });
    await waitFor(() => textsTo(dingtalk, OWNER).includes('re: late'));
    expect(dingtalk.sent.find((message) => message.text === 're: late')).toMatchObject({
      via: 'direct',
      kind: 'sampleMarkdown',
    });
    expect(asked(model).join('\n')).not.toContain('just chatting');
    expect(asked(model).join('\n')).not.toContain('elsewhere');
  });

  it('posts only to session webhooks on DingTalk’s own hosts: a planted one is never called', async () => {
    const seen: string[] = [];
    const planted = createServer((request, response) => {
      seen.push(request.url ?? '');
      response.end('{"errcode":0}');
    });
    await new Promise<void>((resolve) => planted.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => planted.close(() => resolve())));
    const port = (planted.address() as AddressInfo).port;
    const { dingtalk, model } = await start();
    model.script(echo);
    dingtalk.message({ staffId: OWNER, text: 'hello', webhookUrl: `http://127.0.0.1:${port}/steal` });
    await waitFor(() => textsTo(dingtalk, OWNER).includes('re: hello'));
    expect(dingtalk.sent.find((message) => message.text === 're: hello')?.via).toBe('direct');
    expect(seen).toEqual([]);
  });

  it('asks a held exec with numbered answers; the owner’s "1" runs it and the turn finishes', async () => {
    const { app, dingtalk, model } = await start();
    model.script(
      { toolCalls: [{ name: 'exec', arguments: { command: 'touch from-dingtalk.txt' } }] },
      { text: 'Done.' },
    );
    dingtalk.message({ staffId: OWNER, text: 'make the file' });
    await waitFor(() => textsTo(dingtalk, OWNER).some((text) => text.includes('Reply with a number')));
    const question = textsTo(dingtalk, OWNER).find((text) => text.includes('Reply with a number'))!;
    expect(question).toContain('exec');
    expect(question).toContain('1 = Allow once');
    expect(app.gate.approvals.pending()).toHaveLength(1);
    dingtalk.message({ staffId: OWNER, text: '1' });
    await waitFor(() => textsTo(dingtalk, OWNER).includes('Done.'));
    expect(existsSync(join(app.config().workspace, 'from-dingtalk.txt'))).toBe(true);
    expect(app.gate.approvals.pending()).toHaveLength(0);
    expect(model.requests).toHaveLength(2);
  });

  it('downloads an owner’s picture for the model by its download code; a stranger’s is never fetched', async () => {
    const { dingtalk, model } = await start();
    const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001', 'hex');
    const theirs = dingtalk.file(Buffer.from('not for you'));
    const mine = dingtalk.file(png);
    dingtalk.message({ staffId: STRANGER, msgtype: 'picture', content: { downloadCode: theirs } });
    dingtalk.message({ staffId: OWNER, msgtype: 'picture', content: { downloadCode: mine } });
    await waitFor(() => model.requests.length === 1);
    const last = model.requests[0]!.messages.at(-1)!;
    const parts = Array.isArray(last.content) ? last.content : [];
    expect(parts).toContainEqual(
      expect.objectContaining({ type: 'image', mediaType: 'image/png', data: png.toString('base64') }),
    );
    expect(dingtalk.downloads()).toBe(1);
  });

  it('uploads a file the model sends and posts it to the owner as a file message', async () => {
    const { app, dingtalk, model } = await start();
    writeFileSync(join(app.config().workspace, 'notes.txt'), 'the notes');
    model.script({ toolCalls: [{ name: 'send_file', arguments: { path: 'notes.txt' } }] }, { text: 'Sent.' });
    dingtalk.message({ staffId: OWNER, text: 'send the notes' });
    await waitFor(() => dingtalk.sent.some((message) => message.kind === 'sampleFile'));
    const posted = dingtalk.sent.find((message) => message.kind === 'sampleFile')!;
    expect(posted).toMatchObject({ via: 'direct', chat: OWNER });
    expect(posted.param).toMatchObject({ fileName: 'notes.txt', fileType: 'txt' });
    expect(dingtalk.uploads).toHaveLength(1);
    expect(dingtalk.uploads[0]!.bytes.toString()).toBe('the notes');
    expect(String(posted.param['mediaId'])).toMatch(/^@media-\d+$/);
    await waitFor(() => textsTo(dingtalk, OWNER).includes('Sent.'));
  });

  it('answers a message redelivered after a restart once', async () => {
    const dingtalk = await fake();
    const home = homeFor(dingtalk);
    const first = await open(home, SECRET, new ScriptedModel().script(echo));
    await waitFor(() => state(first.app) === 'connected');
    dingtalk.message({ staffId: OWNER, text: 'before', msgId: 'msg-kept' });
    await waitFor(() => textsTo(dingtalk, OWNER).includes('re: before'));
    await first.app.close(1000);
    dingtalk.redeliverLastOnConnect();
    const second = await open(home, SECRET, new ScriptedModel().script(echo, echo));
    await waitFor(() => state(second.app) === 'connected' && dingtalk.connections() === 2);
    // The redelivery came first on the new socket; once it is acked, a later message answered shows it was dropped.
    await waitFor(() => dingtalk.ackLog.length === 2);
    dingtalk.message({ staffId: OWNER, text: 'after' });
    await waitFor(() => textsTo(dingtalk, OWNER).includes('re: after'));
    expect(textsTo(dingtalk, OWNER)).toEqual(['re: before', 're: after']);
    expect(second.model.requests).toHaveLength(1);
  });

  it('answers pings, and reconnects after the socket drops and after DingTalk moves the connection', async () => {
    const { app, dingtalk, model } = await start();
    const ping = dingtalk.ping();
    await waitFor(() => dingtalk.pongs.includes(ping));
    dingtalk.disconnect();
    await waitFor(() => dingtalk.connections() >= 2 && state(app) === 'connected', 20_000);
    dingtalk.systemDisconnect();
    await waitFor(() => dingtalk.connections() >= 3 && state(app) === 'connected', 20_000);
    expect(dingtalk.openSockets()).toBe(1);
    model.script({ text: 'back' });
    dingtalk.message({ staffId: OWNER, text: 'there?' });
    await waitFor(() => textsTo(dingtalk, OWNER).includes('back'));
  }, 30_000);

  it('drops malformed frames, acks unknown topics, refuses a 1 MB message, and keeps answering', async () => {
    const { dingtalk, model } = await start();
    dingtalk.raw('not json {');
    dingtalk.raw('null');
    dingtalk.raw(JSON.stringify({ type: 'CALLBACK', headers: null }));
    const unknown = dingtalk.frame('CALLBACK', '/v1.0/card/instances/callback', '{}');
    const event = dingtalk.frame('EVENT', 'chat_update_title', '{}');
    const garbage = dingtalk.frame('CALLBACK', ROBOT_TOPIC, 'not json');
    const empty = dingtalk.frame('CALLBACK', ROBOT_TOPIC, JSON.stringify({ msgtype: 'text' }));
    const blank = dingtalk.frame('CALLBACK', ROBOT_TOPIC, 'null');
    const odd = dingtalk.frame(
      'CALLBACK',
      ROBOT_TOPIC,
      JSON.stringify({
        msgId: 'odd-1',
        senderStaffId: OWNER,
        msgtype: 'richText',
        content: { richText: 'x' },
      }),
    );
    const huge = dingtalk.message({ staffId: OWNER, text: 'x'.repeat(1024 * 1024) });
    model.script({ text: 'still here' });
    dingtalk.message({ staffId: OWNER, text: 'ping' });
    await waitFor(() => textsTo(dingtalk, OWNER).includes('still here'));
    await waitFor(() => textsTo(dingtalk, OWNER).some((text) => text.includes('Send it as a file')));
    for (const id of [unknown, event, garbage, empty, blank, odd, huge.messageId])
      expect(dingtalk.acks.has(id), id).toBe(true);
    expect(model.requests).toHaveLength(1);
  });

  it('takes 100 owner messages in a second in order, none lost', async () => {
    const { dingtalk, model } = await start('    rate_limit: 600');
    model.script(...Array.from({ length: 100 }, () => echo));
    for (let index = 0; index < 100; index++) dingtalk.message({ staffId: OWNER, text: `n${index}` });
    await waitFor(() => textsTo(dingtalk, OWNER).length === 100, 60_000);
    expect(textsTo(dingtalk, OWNER)).toEqual(Array.from({ length: 100 }, (_, index) => `re: n${index}`));
    expect(model.requests).toHaveLength(100);
  }, 90_000);

  it('drops a flood from a stranger cheaply: one pairing offer, no model call, no download', async () => {
    const { dingtalk, model } = await start('    pairing: true');
    const code = dingtalk.file(Buffer.from('junk'));
    for (let index = 0; index < 100; index++)
      dingtalk.message({
        staffId: STRANGER,
        ...(index % 2 ? { text: `spam ${index}` } : { msgtype: 'picture', content: { downloadCode: code } }),
      });
    model.script({ text: 'owner answered' });
    dingtalk.message({ staffId: OWNER, text: 'hello' });
    await waitFor(() => textsTo(dingtalk, OWNER).includes('owner answered'));
    await waitFor(() => dingtalk.acks.size >= 101);
    // The offer and the owner's notice are sent on their own (not part of any turn): wait until both went out.
    await waitFor(
      () =>
        textsTo(dingtalk, STRANGER).some((text) => text.includes('pairing code')) &&
        textsTo(dingtalk, OWNER).some((text) => text.includes('Someone asked')),
    );
    expect(textsTo(dingtalk, STRANGER).filter((text) => text.includes('pairing code'))).toHaveLength(1);
    expect(textsTo(dingtalk, OWNER).filter((text) => text.includes('Someone asked'))).toHaveLength(1);
    expect(model.requests).toHaveLength(1);
    expect(dingtalk.downloads()).toBe(0);
  });

  it('fails with the reason when DingTalk refuses the secret, and never shows it', async () => {
    const dingtalk = await fake();
    const { app } = await open(homeFor(dingtalk), 'wrong-secret-0123');
    await waitFor(() => state(app) === 'failed', 20_000);
    const status = app.channels.status().find((item) => item.name === 'dingtalk')!;
    expect(status.detail).toContain('DingTalk refused the client id or secret');
    expect(JSON.stringify(app.status('t'))).not.toContain('wrong-secret-0123');
    expect(dingtalk.connections()).toBe(0);
  }, 30_000);
});
