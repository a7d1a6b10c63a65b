import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp, type WrenApp } from '../../src/app/create-app.js';
import { type FakeFeishu, startFakeFeishu } from '../fakes/fake-feishu-server.js';
import { ScriptedModel } from '../support/scripted-model.js';
import { makeHome, waitFor } from '../support/wren-home.js';

const APP_ID = 'cli_a1b2c3d4e5f60718';
const SECRET = 'feishu-secret-0123456789';
const OWNER = 'ou_owner000000000000000000000000001';
const STRANGER = 'ou_stranger0000000000000000000000666';
const DM = 'oc_dm_owner';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function start(options: { secret?: string; extra?: string; channelsExtra?: string } = {}) {
  const feishu = await startFakeFeishu({ appId: APP_ID, appSecret: SECRET });
  cleanups.push(() => feishu.close());
  const home = makeHome(
    [
      'gate:',
      '  mode: ask',
      'channels:',
      '  feishu:',
      '    app_id: ${FEISHU_APP_ID}',
      '    app_secret: ${FEISHU_APP_SECRET}',
      `    domain: ${feishu.domain}`,
      `    owner: [${OWNER}]`,
      options.extra ?? '',
      options.channelsExtra ?? '',
    ].join('\n'),
  );
  const model = new ScriptedModel();
  const app = await createApp({
    home,
    model,
    probeLocalModels: false,
    channels: true,
    env: { PATH: process.env['PATH'], FEISHU_APP_ID: APP_ID, FEISHU_APP_SECRET: options.secret ?? SECRET },
  });
  cleanups.push(() => app.close(1000));
  return { app, feishu, model };
}

function state(app: WrenApp) {
  return app.channels.status().find((status) => status.name === 'feishu')?.state;
}

const texts = (feishu: FakeFeishu, chat: string) =>
  feishu.created(chat).map((message) => JSON.stringify(message.content));

describe('the Feishu channel (against a fake open platform and long connection)', () => {
  it('answers the owner with a Markdown post; a stranger costs nothing; a redelivery is processed once', async () => {
    const { app, feishu, model } = await start();
    await waitFor(() => state(app) === 'connected');
    model.script({ text: 'Hello **there**' });
    feishu.text({ openId: STRANGER, chatId: 'oc_dm_stranger', text: 'let me in' });
    const id = feishu.text({ openId: OWNER, chatId: DM, text: 'hi' });
    feishu.text({ openId: OWNER, chatId: DM, text: 'hi', messageId: id });
    await waitFor(() => feishu.created(DM).length === 1);
    expect(feishu.created(DM)[0]).toMatchObject({
      type: 'post',
      content: { zh_cn: { content: [[{ tag: 'md', text: 'Hello **there**' }]] } },
    });
    await waitFor(() => feishu.answers.length >= 3);
    expect(feishu.answers.every((answer) => answer.payload['code'] === 200)).toBe(true);
    expect(model.requests).toHaveLength(1);
    expect(feishu.created('oc_dm_stranger')).toEqual([]);
  });

  it('in a listed group answers only when the bot is mentioned', async () => {
    const { app, feishu, model } = await start({ extra: '    groups: [oc_team]' });
    await waitFor(() => state(app) === 'connected');
    model.script({ text: 'for the team' });
    feishu.text({ openId: OWNER, chatId: 'oc_team', text: 'among us', group: true });
    feishu.text({ openId: OWNER, chatId: 'oc_team', text: 'what is due?', group: true, mentionBot: true });
    await waitFor(() => feishu.created('oc_team').length === 1);
    expect(model.requests).toHaveLength(1);
    const asked = JSON.stringify(model.requests[0]!.messages.at(-1));
    expect(asked).toContain('what is due?');
    expect(asked).not.toContain('@_user_1');
  });

  it('asks a held call with a card: a stranger’s click is refused, the owner’s runs it', async () => {
    const { app, feishu, model } = await start();
    await waitFor(() => state(app) === 'connected');
    model.script(
      { toolCalls: [{ name: 'exec', arguments: { command: 'touch from-feishu.txt' } }] },
      { text: 'Done.' },
    );
    feishu.text({ openId: OWNER, chatId: DM, text: 'make the file' });
    await waitFor(() => feishu.created(DM).some((message) => message.type === 'interactive'));
    const card = feishu.created(DM).find((message) => message.type === 'interactive')!.content as {
      body: { elements: Array<{ tag: string; behaviors?: Array<{ value: { action: string } }> }> };
    };
    const once = card.body.elements
      .flatMap((element) => element.behaviors ?? [])
      .map((behavior) => behavior.value.action)
      .find((action) => action.startsWith('wa:once:'))!;
    feishu.click(STRANGER, once);
    await waitFor(() =>
      feishu.answers.some((answer) => JSON.stringify(answer.payload).includes('Only the owner')),
    );
    expect(app.gate.approvals.pending()).toHaveLength(1);
    feishu.click(OWNER, once);
    await waitFor(() => texts(feishu, DM).some((text) => text.includes('Done.')));
    expect(existsSync(join(app.config().workspace, 'from-feishu.txt'))).toBe(true);
  });

  it('passes an image to the model and saves a file to the inbox; a stranger’s file is never downloaded', async () => {
    const { app, feishu, model } = await start();
    await waitFor(() => state(app) === 'connected');
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
    feishu.addResource('img_1', png);
    feishu.addResource('file_1', Buffer.from('minutes of the meeting'));
    feishu.media({
      openId: STRANGER,
      chatId: 'oc_dm_stranger',
      type: 'file',
      key: 'file_1',
      name: 'secret.txt',
    });
    feishu.media({ openId: OWNER, chatId: DM, type: 'image', key: 'img_1' });
    feishu.media({ openId: OWNER, chatId: DM, type: 'file', key: 'file_1', name: '../minutes.txt' });
    await waitFor(() => model.requests.length === 2);
    expect(JSON.stringify(model.requests[0]!.messages.at(-1))).toContain(png.toString('base64'));
    const saved = /inbox\/[\w.-]*minutes\.txt/.exec(JSON.stringify(model.requests[1]!.messages.at(-1)))?.[0];
    expect(readFileSync(join(app.config().workspace, saved!), 'utf8')).toBe('minutes of the meeting');
    expect(feishu.calls.filter((call) => call.route.includes('/resources/'))).toHaveLength(2);
  });

  it('downloads files only within the sender’s rate limit', async () => {
    const { app, feishu, model } = await start({ extra: '    rate_limit: 2' });
    await waitFor(() => state(app) === 'connected');
    feishu.addResource('file_2', Buffer.from('notes'));
    model.script({ text: 'one' }, { text: 'two' });
    for (let index = 0; index < 6; index++)
      feishu.media({ openId: OWNER, chatId: DM, type: 'file', key: 'file_2', name: `n${index}.txt` });
    await waitFor(() => texts(feishu, DM).some((text) => text.includes('Slow down')));
    await waitFor(() => model.requests.length === 2);
    expect(feishu.calls.filter((call) => call.route.includes('/resources/'))).toHaveLength(2);
  });

  it('turns a voice message into words through the transcription endpoint', async () => {
    const whisper = createServer((request, response) => {
      request.resume();
      request.on('end', () =>
        response
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ text: 'call mum at six' })),
      );
    });
    await new Promise<void>((resolve) => whisper.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => whisper.close(() => resolve())));
    const port = (whisper.address() as AddressInfo).port;
    const { app, feishu, model } = await start({
      channelsExtra: `  transcription:\n    base_url: http://127.0.0.1:${port}/v1\n`,
    });
    await waitFor(() => state(app) === 'connected');
    feishu.addResource('voice_1', Buffer.from('opus bytes'));
    feishu.media({ openId: OWNER, chatId: DM, type: 'audio', key: 'voice_1' });
    await waitFor(() => model.requests.length === 1);
    expect(JSON.stringify(model.requests[0]!.messages.at(-1))).toContain(
      '[a 4 s voice message, transcribed] call mum at six',
    );
  });

  it('uploads a file the model sends and posts it as a file message', async () => {
    const { app, feishu, model } = await start();
    await waitFor(() => state(app) === 'connected');
    writeFileSync(join(app.config().workspace, 'notes.txt'), 'the notes');
    model.script({ toolCalls: [{ name: 'send_file', arguments: { path: 'notes.txt' } }] }, { text: 'Sent.' });
    feishu.text({ openId: OWNER, chatId: DM, text: 'send the notes' });
    await waitFor(() => feishu.created(DM).some((message) => message.type === 'file'));
    expect(feishu.calls.some((call) => call.route === 'POST /open-apis/im/v1/files')).toBe(true);
    expect(feishu.created(DM).find((message) => message.type === 'file')!.content).toMatchObject({
      file_key: expect.stringMatching(/^file_up/),
    });
  });

  it('retries a send answered 429 after Retry-After', async () => {
    const { app, feishu, model } = await start();
    await waitFor(() => state(app) === 'connected');
    feishu.failNext('POST /open-apis/im/v1/messages', { status: 429, retryAfter: 1 });
    model.script({ text: 'after the limit' });
    feishu.text({ openId: OWNER, chatId: DM, text: 'hi' });
    await waitFor(() => feishu.created(DM).length === 2, 15_000);
    const [refused, sent] = feishu.created(DM);
    expect(sent!.at - refused!.at).toBeGreaterThanOrEqual(900);
    expect(JSON.stringify(sent!.content)).toContain('after the limit');
  });

  it('reconnects after the long connection drops', async () => {
    const { app, feishu, model } = await start();
    await waitFor(() => state(app) === 'connected');
    feishu.disconnect();
    await waitFor(() => feishu.connections() >= 2 && state(app) === 'connected', 20_000);
    model.script({ text: 'back' });
    feishu.text({ openId: OWNER, chatId: DM, text: 'there?' });
    await waitFor(() => texts(feishu, DM).some((text) => text.includes('back')));
  }, 30_000);

  it('shows failed with the reason when Feishu refuses the app secret', async () => {
    const { app } = await start({ secret: 'wrong-secret-value' });
    await waitFor(() => state(app) === 'failed', 20_000);
    expect(JSON.stringify(app.status('t'))).not.toContain('wrong-secret-value');
  }, 30_000);
});
