import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp, type WrenApp } from '../../src/app/create-app.js';
import { attachmentUrl } from '../../src/channels/qq/qq-message.js';
import type { ModelRequest } from '../../src/llm/types.js';
import { type FakeQq, type FakeQqOptions, startFakeQq } from '../fakes/fake-qq-server.js';
import { ScriptedModel } from '../support/scripted-model.js';
import { makeHome, waitFor } from '../support/wren-home.js';

const APP_ID = '102012345';
const SECRET = 'qq-app-secret-0123456789';
const OWNER = 'E4F4AEA33253A2797FB897C50B81D7ED';
const STRANGER = '0A1B2C3D4E5F60718293A4B5C6D7E8F9';
const GROUP = 'C0FFEE0123456789ABCDEF0123456789';
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001', 'hex');

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function config(qq: FakeQq, extra = '') {
  return [
    'gate:',
    '  mode: ask',
    'channels:',
    '  qq:',
    `    app_id: "${APP_ID}"`,
    '    app_secret: ${QQ_APP_SECRET}',
    `    owner: [${OWNER}]`,
    `    api_base: ${qq.apiBase}`,
    `    token_url: ${qq.tokenUrl}`,
    extra,
  ].join('\n');
}

async function fake(options: Partial<FakeQqOptions> = {}) {
  const qq = await startFakeQq({ appId: APP_ID, appSecret: SECRET, heartbeatInterval: 1000, ...options });
  cleanups.push(() => qq.close());
  return qq;
}

async function start(options: { qq?: FakeQq; home?: string; extra?: string; secret?: string } = {}) {
  const qq = options.qq ?? (await fake());
  const home = options.home ?? makeHome(config(qq, options.extra));
  const model = new ScriptedModel();
  const app = await createApp({
    home,
    model,
    probeLocalModels: false,
    channels: true,
    scheduler: 'run',
    env: { PATH: process.env['PATH'], QQ_APP_SECRET: options.secret ?? SECRET },
  });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await app.close(1000);
  };
  cleanups.push(close);
  if (!options.secret) await waitFor(() => state(app) === 'connected');
  return { app, qq, model, home, close };
}

function state(app: WrenApp) {
  return app.channels.status().find((status) => status.name === 'qq')?.state;
}

/** The text of the last message of each model request, as JSON (a stranger's words would show in it). */
const lastMessages = (model: ScriptedModel) =>
  model.requests.map((request: ModelRequest) => JSON.stringify(request.messages.at(-1)));

describe('the QQ channel (against a fake QQ bot API and gateway)', () => {
  it('answers the owner with a passive reply; a stranger costs no model call and gets nothing', async () => {
    const { qq, model } = await start();
    expect(qq.sent(2)[0]!.d).toMatchObject({
      token: expect.stringMatching(/^QQBot token-/),
      intents: 1 << 25,
      shard: [0, 1],
    });
    model.script({ text: 'Hello there' }, { text: 'second answer' });
    const hi = qq.c2c({ openid: OWNER, content: 'hi' });
    await waitFor(() => qq.textsTo(OWNER).includes('Hello there'));
    expect(qq.messagesTo(OWNER)[0]).toMatchObject({
      msg_type: 0,
      content: 'Hello there',
      msg_id: (hi.d as { id: string }).id,
      msg_seq: 1,
    });
    qq.c2c({ openid: STRANGER, content: 'let me in' });
    qq.c2c({ openid: OWNER, content: 'second' });
    await waitFor(() => qq.textsTo(OWNER).includes('second answer'));
    expect(model.requests).toHaveLength(2);
    expect(lastMessages(model).join('\n')).not.toContain('let me in');
    expect(qq.messagesTo(STRANGER)).toEqual([]);
    expect(qq.calls.every((call) => call.token?.startsWith('token-'))).toBe(true);
  });

  it('offers a stranger pairing (as a reply to their message) and tells the owner, at no model cost', async () => {
    const { qq, model } = await start({ extra: '    pairing: true' });
    const knock = qq.c2c({ openid: STRANGER, content: 'let me in' });
    await waitFor(() => qq.textsTo(STRANGER).some((text) => text.includes('pairing code')));
    expect(qq.messagesTo(STRANGER)[0]).toMatchObject({ msg_id: (knock.d as { id: string }).id, msg_seq: 1 });
    await waitFor(() => qq.textsTo(OWNER).some((text) => text.includes(`qq id ${STRANGER}`)));
    expect(model.requests).toHaveLength(0);
  });

  it('answers an @mention in a listed group; an unlisted group is ignored', async () => {
    const { qq, model } = await start({ extra: `    groups: [${GROUP}]` });
    model.script({ text: 'group answer' });
    qq.group({ group: 'UNLISTED0123456789', member: OWNER, content: 'not here' });
    qq.group({ group: GROUP, member: OWNER, content: 'what time is it' });
    await waitFor(() => qq.textsTo(`group:${GROUP}`).includes('group answer'));
    expect(qq.messagesTo(`group:${GROUP}`)[0]).toMatchObject({ msg_seq: 1, msg_id: expect.any(String) });
    expect(model.requests).toHaveLength(1);
    expect(lastMessages(model)[0]).toContain('what time is it');
    expect(qq.messagesTo('group:UNLISTED0123456789')).toEqual([]);
  });

  it('asks a held exec in the chat; the owner’s typed answer runs it and the turn finishes', async () => {
    const { app, qq, model } = await start();
    model.script(
      { toolCalls: [{ name: 'exec', arguments: { command: 'touch from-qq.txt' } }] },
      { text: 'Done.' },
    );
    const ask = qq.c2c({ openid: OWNER, content: 'make the file' });
    await waitFor(() => qq.textsTo(OWNER).some((text) => text.includes('Approval needed')));
    const question = qq.textsTo(OWNER).find((text) => text.includes('Approval needed'))!;
    expect(question).toContain('touch from-qq.txt');
    const id = /Reply with one of: once ([0-9a-f]{6})/.exec(question)![1]!;
    qq.c2c({ openid: STRANGER, content: `once ${id}` });
    qq.c2c({ openid: OWNER, content: `once ${id}` });
    await waitFor(() => qq.textsTo(OWNER).includes('Done.'));
    expect(existsSync(join(app.config().workspace, 'from-qq.txt'))).toBe(true);
    // Replies to the asking message carry its id with an increasing seq: the question, then the answer.
    const askId = (ask.d as { id: string }).id;
    const seqs = qq
      .messagesTo(OWNER)
      .filter((body) => body['msg_id'] === askId)
      .map((body) => body['msg_seq']);
    expect(seqs).toEqual([1, 2]);
    expect(qq.messagesTo(STRANGER)).toEqual([]);
  });

  it('passes an image to the model as an image part; a stranger’s is never downloaded; no token goes along', async () => {
    const { qq, model } = await start();
    const attachment = (url: string) => ({
      content_type: 'image/png',
      filename: 'a.png',
      url,
      size: PNG.length,
    });
    qq.c2c({ openid: STRANGER, content: 'look', attachments: [attachment(qq.serveFile(PNG))] });
    qq.c2c({ openid: OWNER, content: 'what is this', attachments: [attachment(qq.serveFile(PNG))] });
    await waitFor(() => model.requests.length === 1);
    const last = model.requests[0]!.messages.at(-1)!;
    expect(JSON.stringify(last.content)).toContain(PNG.toString('base64'));
    expect(JSON.stringify(last.content)).toContain('"type":"image"');
    expect(qq.downloads()).toHaveLength(1);
    expect(qq.downloads()[0]!.authorization).toBeUndefined();
    // QQ's addresses often come without a scheme.
    expect(attachmentUrl('gchat.qpic.cn/x/1.png')).toBe('https://gchat.qpic.cn/x/1.png');
    expect(attachmentUrl('//multimedia.nt.qq.com.cn/y')).toBe('https://multimedia.nt.qq.com.cn/y');
    expect(attachmentUrl('file:///etc/passwd')).toBeUndefined();
  });

  it('sends a file and an image the model sends through the rich-media upload, as media replies', async () => {
    const { app, qq, model } = await start();
    writeFileSync(join(app.config().workspace, 'notes.txt'), 'the notes');
    writeFileSync(join(app.config().workspace, 'chart.png'), PNG);
    model.script(
      { toolCalls: [{ name: 'send_file', arguments: { path: 'notes.txt' } }] },
      { toolCalls: [{ name: 'send_file', arguments: { path: 'chart.png' } }] },
      { text: 'Sent.' },
    );
    qq.c2c({ openid: OWNER, content: 'send the notes and the chart' });
    await waitFor(() => qq.textsTo(OWNER).includes('Sent.'));
    const uploads = qq.calls.filter((call) => call.path === `/v2/users/${OWNER}/files`);
    expect(uploads.map((call) => call.body['file_type'])).toEqual([4, 1]);
    expect(Buffer.from(String(uploads[0]!.body['file_data']), 'base64').toString()).toBe('the notes');
    expect(uploads[0]!.body).toMatchObject({ file_name: 'notes.txt', srv_send_msg: false });
    expect(Buffer.from(String(uploads[1]!.body['file_data']), 'base64').equals(PNG)).toBe(true);
    const media = qq.messagesTo(OWNER).filter((body) => body['msg_type'] === 7);
    expect(media).toHaveLength(2);
    expect(media[0]).toMatchObject({ media: { file_info: expect.stringMatching(/^fileinfo-/) } });
    expect(media.every((body) => typeof body['msg_id'] === 'string')).toBe(true);
  });

  it('loses and repeats nothing across a restart: it resumes, takes what came meanwhile, drops a redelivery', async () => {
    const qq = await fake();
    const home = makeHome(config(qq));
    const first = await start({ qq, home });
    const once = qq.c2c({ openid: OWNER, content: 'once please' });
    await waitFor(() => qq.textsTo(OWNER).length === 1);
    await first.close();
    await waitFor(() => !qq.connected());
    const seqAtClose = qq.lastSeq();
    qq.c2c({ openid: OWNER, content: 'while you were away' });
    qq.redeliverOnConnect(once);
    const second = await start({ qq, home });
    qq.c2c({ openid: OWNER, content: 'third' });
    await waitFor(() => qq.textsTo(OWNER).length === 3);
    expect(qq.sent(6).at(-1)!.d).toMatchObject({ session_id: expect.any(String), seq: seqAtClose });
    expect(qq.sent(2)).toHaveLength(1);
    const asked = [...lastMessages(first.model), ...lastMessages(second.model)];
    expect(asked.filter((text) => text.includes('once please'))).toHaveLength(1);
    expect(asked.filter((text) => text.includes('while you were away'))).toHaveLength(1);
    expect(asked.filter((text) => text.includes('third'))).toHaveLength(1);
  });

  it('resumes with the last seq after the connection drops, and gets what came in between', async () => {
    const { app, qq, model } = await start();
    qq.c2c({ openid: OWNER, content: 'before' });
    await waitFor(() => qq.textsTo(OWNER).length === 1);
    const seqBefore = qq.lastSeq();
    qq.drop();
    qq.c2c({ openid: OWNER, content: 'during the drop' });
    await waitFor(() => qq.sent(6).length === 1 && qq.connected() && state(app) === 'connected', 20_000);
    expect(qq.sent(6)[0]!.d).toMatchObject({ session_id: expect.any(String), seq: seqBefore });
    expect(String((qq.sent(6)[0]!.d as { token: string }).token)).toMatch(/^QQBot token-/);
    await waitFor(() => qq.textsTo(OWNER).length === 2);
    expect(lastMessages(model)[1]).toContain('during the drop');
    expect(qq.sent(2)).toHaveLength(1);
  }, 30_000);

  it('heartbeats with the last seq, and reconnects when the acks stop', async () => {
    const qq = await fake({ heartbeatInterval: 300 });
    const { app } = await start({ qq });
    qq.c2c({ openid: OWNER, content: 'hello' });
    await waitFor(() => qq.textsTo(OWNER).length === 1);
    const seq = qq.lastSeq();
    await waitFor(() => qq.sent(1).some((frame) => frame.d === seq));
    qq.ackHeartbeats(false);
    await waitFor(() => qq.sent(6).length >= 1, 20_000);
    qq.ackHeartbeats(true);
    await waitFor(() => state(app) === 'connected' && qq.connected(), 20_000);
    qq.c2c({ openid: OWNER, content: 'still there?' });
    await waitFor(() => qq.textsTo(OWNER).length === 2, 20_000);
  }, 40_000);

  it('reconnects on op 7; after Invalid Session it identifies afresh', async () => {
    const { app, qq } = await start();
    qq.invalidateNextResume();
    qq.requestReconnect();
    await waitFor(() => qq.sent(2).length === 2 && qq.connected() && state(app) === 'connected', 20_000);
    expect(qq.sent(6)).toHaveLength(1);
    qq.c2c({ openid: OWNER, content: 'fresh session' });
    await waitFor(() => qq.textsTo(OWNER).length === 1);
  }, 30_000);

  it('refreshes the access token before it expires', async () => {
    const qq = await fake({ tokenLife: 2 });
    await start({ qq });
    await waitFor(() => qq.tokenRequests() >= 3);
    qq.c2c({ openid: OWNER, content: 'after the refresh' });
    await waitFor(() => qq.textsTo(OWNER).length === 1);
    expect(qq.refused()).toBe(0);
  }, 20_000);

  it('shows failed with the reason when QQ refuses the AppSecret, and never shows the secret', async () => {
    const { app } = await start({ secret: 'wrong-secret-value' });
    await waitFor(() => state(app) === 'failed');
    const status = app.channels.status().find((item) => item.name === 'qq')!;
    expect(status.detail).toContain('QQ refused the AppID or AppSecret');
    expect(JSON.stringify(app.status('t'))).not.toContain('wrong-secret-value');
  });

  it('survives hostile input: a 1 MB message, malformed frames, unknown events', async () => {
    const { qq, model } = await start();
    qq.c2c({ openid: OWNER, content: 'x'.repeat(1024 * 1024) });
    await waitFor(() => qq.textsTo(OWNER).some((text) => text.includes('characters')));
    qq.raw('not json at all');
    qq.raw('[1,2,3]');
    qq.raw('{"op":"0","t":"C2C_MESSAGE_CREATE"}');
    qq.raw('{"op":0,"s":1e300,"t":"C2C_MESSAGE_CREATE","d":null}');
    qq.emit('C2C_MESSAGE_CREATE', { id: 5, author: {} });
    qq.emit('C2C_MESSAGE_CREATE', { id: 'no-author', content: 'hi' });
    qq.emit('C2C_MESSAGE_CREATE', {
      id: 'odd',
      author: { user_openid: OWNER },
      content: 'odd but fine',
      attachments: 'nope',
    });
    qq.emit('GROUP_AT_MESSAGE_CREATE', { id: 'no-group', author: { member_openid: OWNER } });
    qq.emit('A_FUTURE_EVENT_TYPE', { anything: [1, 2, 3] });
    model.script({ text: 'odd one' }, { text: 'still fine' });
    qq.c2c({ openid: OWNER, content: 'still there?' });
    await waitFor(() => qq.textsTo(OWNER).includes('still fine'));
    // The well-formed odd one (attachments not a list) was taken as text; the rest never reached the model.
    expect(model.requests).toHaveLength(2);
  });

  it('takes 100 owner messages sent at once in order, none lost', async () => {
    const { qq, model } = await start({ extra: '    rate_limit: 600' });
    // Every tenth carries an image: its download must not let the messages behind it overtake it.
    const image = () => [{ content_type: 'image/png', url: qq.serveFile(PNG), size: PNG.length }];
    for (let index = 0; index < 100; index++)
      qq.c2c({
        openid: OWNER,
        content: `number-${index}-end`,
        ...(index % 10 === 0 ? { attachments: image() } : {}),
      });
    await waitFor(() => qq.textsTo(OWNER).length === 100, 90_000);
    const order = lastMessages(model).map((text) => Number(/number-(\d+)-end/.exec(text)?.[1]));
    expect(order).toEqual(Array.from({ length: 100 }, (_, index) => index));
  }, 120_000);

  it('drops a stranger flood cheaply: no model call, no download, no reply', async () => {
    const { qq, model } = await start();
    for (let index = 0; index < 200; index++)
      qq.c2c({
        openid: `STRANGER${String(index).padStart(24, '0')}`,
        content: `spam ${index}`,
        attachments: [{ content_type: 'image/png', url: qq.serveFile(PNG), size: PNG.length }],
      });
    model.script({ text: 'owner answered' });
    qq.c2c({ openid: OWNER, content: 'am I heard?' });
    await waitFor(() => qq.textsTo(OWNER).includes('owner answered'));
    // The owner's message came after the flood and needed a model turn: the flood was handled before it.
    expect(model.requests).toHaveLength(1);
    expect(qq.downloads()).toHaveLength(0);
    expect(qq.calls.filter((call) => call.path.includes('STRANGER'))).toEqual([]);
  });
});
