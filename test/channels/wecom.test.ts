import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp, type WrenApp } from '../../src/app/create-app.js';
import { type FakeWecom, startFakeWecom } from '../fakes/fake-wecom-server.js';
import { ScriptedModel } from '../support/scripted-model.js';
import { makeHome, waitFor } from '../support/wren-home.js';

const BOT = 'aibot-test-1';
const SECRET = 'wecom-secret-0123456789';
const OWNER = 'zhangsan';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function start(secret = SECRET, extra = '') {
  const wecom = await startFakeWecom({ botId: BOT, secret: SECRET });
  cleanups.push(() => wecom.close());
  const home = makeHome(
    [
      'channels:',
      '  wecom:',
      '    bot_id: ${WECOM_BOT_ID}',
      '    secret: ${WECOM_BOT_SECRET}',
      `    owner: [${OWNER}]`,
      `    ws_url: ${wecom.wsUrl}`,
      extra,
    ].join('\n'),
  );
  const model = new ScriptedModel();
  const app = await createApp({
    home,
    model,
    probeLocalModels: false,
    channels: true,
    scheduler: 'run',
    env: { PATH: process.env['PATH'], WECOM_BOT_ID: BOT, WECOM_BOT_SECRET: secret },
  });
  cleanups.push(() => app.close(1000));
  return { app, wecom, model };
}

function state(app: WrenApp) {
  return app.channels.status().find((status) => status.name === 'wecom')?.state;
}

const replies = (wecom: FakeWecom) =>
  wecom
    .sent('aibot_respond_msg')
    .map((frame) => frame as { headers: { req_id: string }; body?: Record<string, unknown> });

describe('the WeCom channel (against a fake long connection)', () => {
  it('answers the owner on the request frame; a stranger costs nothing; a redelivery is processed once', async () => {
    const { app, wecom, model } = await start();
    await waitFor(() => state(app) === 'connected');
    model.script({ text: 'Hello **there**' });
    wecom.text({ userid: 'lisi', content: 'let me in' });
    const reqId = wecom.text({ userid: OWNER, content: 'hi', msgid: 'm-1' });
    wecom.text({ userid: OWNER, content: 'hi', msgid: 'm-1' });
    await waitFor(() => replies(wecom).length === 1);
    const [reply] = replies(wecom);
    expect(reply!.headers.req_id).toBe(reqId);
    expect(reply!.body).toMatchObject({
      msgtype: 'stream',
      stream: { finish: true, content: 'Hello **there**' },
    });
    // A later message answered proves the stranger's and the redelivered one were handled before it.
    model.script({ text: 'later' });
    wecom.text({ userid: OWNER, content: 'after', msgid: 'm-2' });
    await waitFor(() => replies(wecom).length === 2);
    expect(model.requests).toHaveLength(2);
    const asked = model.requests.map((request) => JSON.stringify(request.messages)).join('\n');
    expect(asked).not.toContain('let me in');
  });

  it('decrypts an image for the model and a file into the inbox; a stranger’s file is never fetched', async () => {
    const { app, wecom, model } = await start();
    await waitFor(() => state(app) === 'connected');
    const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001', 'hex');
    wecom.attachment({ userid: 'lisi', kind: 'file', bytes: Buffer.from('not for you'), name: 'x.txt' });
    wecom.attachment({ userid: OWNER, kind: 'image', bytes: png });
    wecom.attachment({ userid: OWNER, kind: 'file', bytes: Buffer.from('quarterly plan'), name: 'plan.txt' });
    await waitFor(() => model.requests.length === 2);
    expect(JSON.stringify(model.requests[0]!.messages.at(-1))).toContain(png.toString('base64'));
    const saved = /inbox\/[\w.-]*plan\.txt/.exec(JSON.stringify(model.requests[1]!.messages.at(-1)))?.[0];
    expect(readFileSync(join(app.config().workspace, saved!), 'utf8')).toBe('quarterly plan');
    expect(wecom.downloads()).toBe(2);
  });

  it('downloads files only within the sender’s rate limit', async () => {
    const { app, wecom, model } = await start(SECRET, '    rate_limit: 2');
    await waitFor(() => state(app) === 'connected');
    model.script({ text: 'one' }, { text: 'two' });
    for (let index = 0; index < 6; index++)
      wecom.attachment({ userid: OWNER, kind: 'file', bytes: Buffer.from('notes'), name: `n${index}.txt` });
    await waitFor(() => model.requests.length === 2);
    await waitFor(() =>
      wecom.sent('aibot_send_msg').some((frame) => JSON.stringify(frame).includes('Slow down')),
    );
    expect(wecom.downloads()).toBe(2);
  });

  it('uploads a file the model sends and pushes it as a media message', async () => {
    const { app, wecom, model } = await start();
    await waitFor(() => state(app) === 'connected');
    writeFileSync(join(app.config().workspace, 'notes.txt'), 'the notes');
    model.script({ toolCalls: [{ name: 'send_file', arguments: { path: 'notes.txt' } }] }, { text: 'Sent.' });
    wecom.text({ userid: OWNER, content: 'send the notes' });
    await waitFor(() =>
      wecom.sent('aibot_send_msg').some((frame) => JSON.stringify(frame.body).includes('media-')),
    );
    const chunks = wecom.sent('aibot_upload_media_chunk');
    expect(Buffer.from(String(chunks[0]!.body?.['base64_data']), 'base64').toString()).toBe('the notes');
  });

  it('streams tool progress into the reply, then finishes the same stream with the answer', async () => {
    const { app, wecom, model } = await start();
    await waitFor(() => state(app) === 'connected');
    writeFileSync(join(app.config().workspace, 'todo.md'), '- call the bank');
    model.script(
      { toolCalls: [{ name: 'read_file', arguments: { path: 'todo.md' } }] },
      { text: 'You should call the bank.' },
    );
    const reqId = wecom.text({ userid: OWNER, content: 'what is on my list?' });
    await waitFor(() =>
      replies(wecom).some((frame) => JSON.stringify(frame.body).includes('call the bank.')),
    );
    const streams = replies(wecom)
      .filter((frame) => frame.headers.req_id === reqId)
      .map((frame) => frame.body?.['stream'] as { id: string; finish: boolean; content: string });
    expect(streams.at(-1)).toMatchObject({ finish: true, content: 'You should call the bank.' });
    const progress = streams.filter((stream) => !stream.finish);
    expect(progress.length).toBeGreaterThan(0);
    expect(progress[0]!.content).toMatch(/todo\.md/);
    expect(new Set(streams.map((stream) => stream.id)).size).toBe(1);
  });

  it('delivers a reminder set in the chat through the proactive send', async () => {
    const { app, wecom, model } = await start();
    await waitFor(() => state(app) === 'connected');
    model.script(
      { toolCalls: [{ name: 'reminder', arguments: { action: 'add', text: 'drink water', when: 'in 1s' } }] },
      { text: 'Will do.' },
    );
    wecom.text({ userid: OWNER, content: 'remind me to drink water in a second' });
    await waitFor(
      () =>
        wecom
          .sent('aibot_send_msg')
          .some(
            (frame) => frame.body?.['chatid'] === OWNER && JSON.stringify(frame.body).includes('drink water'),
          ),
      15_000,
    );
  });

  it('reconnects after the connection drops', async () => {
    const { app, wecom, model } = await start();
    await waitFor(() => state(app) === 'connected');
    wecom.disconnect();
    await waitFor(() => wecom.subscribes() >= 2 && state(app) === 'connected', 20_000);
    model.script({ text: 'back' });
    wecom.text({ userid: OWNER, content: 'there?' });
    await waitFor(() => replies(wecom).some((frame) => JSON.stringify(frame.body).includes('back')));
  }, 30_000);

  it('shows failed with the reason when WeCom refuses the secret', async () => {
    const { app } = await start('wrong-secret');
    await waitFor(() => state(app) === 'failed', 20_000);
    expect(JSON.stringify(app.status('t'))).not.toContain('wrong-secret');
  }, 30_000);
});
