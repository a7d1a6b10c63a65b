import { afterEach, describe, expect, it } from 'vitest';
import { createApp, type WrenApp } from '../../src/app/create-app.js';
import { type FakeMatrix, startFakeMatrix } from '../fakes/fake-matrix-server.js';
import { ScriptedModel } from '../support/scripted-model.js';
import { makeHome, waitFor } from '../support/wren-home.js';

const TOKEN = 'syt_matrix_token_0123456789';
const BOT = '@wren:fake';
const OWNER = '@me:fake';
const STRANGER = '@eve:fake';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function start(
  auth: string[] = ['    access_token: ${MATRIX_TOKEN}'],
  reuse?: { matrix: FakeMatrix; home: string },
  extra = '',
) {
  const matrix = reuse?.matrix ?? (await startFakeMatrix({ token: TOKEN, userId: BOT }));
  if (!reuse) cleanups.push(() => matrix.close());
  const home =
    reuse?.home ??
    makeHome(
      [
        'channels:',
        '  matrix:',
        `    homeserver: ${matrix.url}`,
        ...auth,
        `    owner: ['${OWNER}']`,
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
    env: { PATH: process.env['PATH'], MATRIX_TOKEN: TOKEN, MATRIX_PASSWORD: 'pw-SECRET' },
  });
  cleanups.push(() => app.close(1000));
  return { app, matrix, model, home };
}

const state = (app: WrenApp) => app.channels.status().find((status) => status.name === 'matrix')?.state;
const texts = (matrix: FakeMatrix) =>
  matrix.sent.filter((entry) => entry.type === 'm.room.message').map((entry) => entry.content['body']);

describe('the Matrix channel (against a fake homeserver)', () => {
  it('answers the owner in the DM; a stranger costs nothing; a redelivered event is answered once', async () => {
    const { app, matrix, model } = await start();
    await waitFor(() => state(app) === 'connected');
    model.script({ text: 'Hello there' });
    matrix.message(STRANGER, { msgtype: 'm.text', body: 'let me in' });
    matrix.message(OWNER, { msgtype: 'm.text', body: 'hi' }, '$owner-1');
    matrix.message(OWNER, { msgtype: 'm.text', body: 'hi' }, '$owner-1');
    await waitFor(() => texts(matrix).includes('Hello there'));
    model.script({ text: 'later' });
    matrix.message(OWNER, { msgtype: 'm.text', body: 'after' });
    await waitFor(() => texts(matrix).includes('later'));
    expect(model.requests).toHaveLength(2);
    expect(texts(matrix).filter((text) => text === 'Hello there')).toHaveLength(1);
    const asked = model.requests.map((request) => JSON.stringify(request.messages)).join('\n');
    expect(asked).not.toContain('let me in');
  });

  it('logs in with user and password, and hands an image to the model', async () => {
    const { app, matrix, model } = await start(['    user: wren', '    password: ${MATRIX_PASSWORD}']);
    await waitFor(() => state(app) === 'connected');
    expect(matrix.paths).toContain('POST /_matrix/client/v3/login');
    const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
    model.script({ text: 'a tiny picture' });
    matrix.message(OWNER, { msgtype: 'm.image', body: 'pic.png', url: matrix.upload(png) });
    await waitFor(() => texts(matrix).includes('a tiny picture'));
    expect(JSON.stringify(model.requests[0]!.messages.at(-1))).toContain(png.toString('base64'));
  });

  it('survives malformed and unknown events and a dropped connection, then still answers in order', async () => {
    const { app, matrix, model } = await start();
    await waitFor(() => state(app) === 'connected');
    matrix.raw(OWNER, { type: 'm.room.message', content: { msgtype: 42, body: { no: 1 } } });
    matrix.raw(OWNER, { type: 'org.example.unknown', content: { x: 1 } });
    matrix.raw(OWNER, { type: 'm.room.encrypted', content: { algorithm: 'm.megolm.v1.aes-sha2' } });
    matrix.dropConnections();
    model.script({ text: 'still here' });
    matrix.message(OWNER, { msgtype: 'm.text', body: 'you there?' });
    await waitFor(() => texts(matrix).includes('still here'), 20_000);
    expect(model.requests).toHaveLength(1);
  });

  it('takes a flood of 100 owner messages in order, none lost, and drops a stranger flood at no model cost', async () => {
    const { app, matrix, model } = await start(undefined, undefined, '    rate_limit: 600');
    await waitFor(() => state(app) === 'connected');
    for (let i = 0; i < 100; i++) model.script({ text: `answer ${i}` });
    for (let i = 0; i < 100; i++) matrix.message(STRANGER, { msgtype: 'm.text', body: `spam ${i}` });
    for (let i = 0; i < 100; i++) matrix.message(OWNER, { msgtype: 'm.text', body: `question ${i}` });
    matrix.message(OWNER, { msgtype: 'm.text', body: 'x'.repeat(1024 * 1024) });
    await waitFor(() => model.requests.length === 100, 60_000);
    const asked = model.requests.map((request) => JSON.stringify(request.messages.at(-1)));
    for (const [i, text] of asked.entries()) expect(text).toContain(`question ${i}`);
    expect(asked.join('\n')).not.toContain('spam');
  }, 90_000);

  it('after a restart answers neither twice nor loses a message sent while it was down', async () => {
    const first = await start();
    await waitFor(() => state(first.app) === 'connected');
    first.model.script({ text: 'first answer' });
    first.matrix.message(OWNER, { msgtype: 'm.text', body: 'before' });
    await waitFor(() => texts(first.matrix).includes('first answer'));
    await first.app.close(1000);
    first.matrix.message(OWNER, { msgtype: 'm.text', body: 'while down' });
    const second = await start(undefined, { matrix: first.matrix, home: first.home });
    second.model.script({ text: 'second answer' });
    await waitFor(() => texts(second.matrix).includes('second answer'));
    second.model.script({ text: 'third answer' });
    second.matrix.message(OWNER, { msgtype: 'm.text', body: 'after' });
    await waitFor(() => texts(second.matrix).includes('third answer'));
    expect(second.model.requests).toHaveLength(2);
    expect(JSON.stringify(second.model.requests[0]!.messages.at(-1))).toContain('while down');
    expect(texts(second.matrix).filter((text) => text === 'first answer')).toHaveLength(1);
  });
});
