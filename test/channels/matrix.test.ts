import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
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
  top = '',
) {
  const matrix = reuse?.matrix ?? (await startFakeMatrix({ token: TOKEN, userId: BOT }));
  if (!reuse) cleanups.push(() => matrix.close());
  const home =
    reuse?.home ??
    makeHome(
      [
        top,
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
const dmOf = (user: string) => `!dm-${user.replace(/[^a-z0-9]/gi, '')}:fake`;
const ASK = 'gate:\n  mode: ask';
/** The approval question Wren sent (the newest), with its short id and event id. */
const question = (matrix: FakeMatrix, after = 0) => {
  const sent = matrix.sent
    .slice(after)
    .find((entry) => String(entry.content['body']).startsWith('Approval needed'));
  return sent && { eventId: sent.eventId, id: /\[([0-9a-f]+)\]/.exec(String(sent.content['body']))![1]! };
};
/** A reaction in the owner's DM room (where the question was asked), from `sender`. */
const react = (matrix: FakeMatrix, sender: string, eventId: string, key: string) =>
  matrix.raw(
    sender,
    { type: 'm.reaction', content: { 'm.relates_to': { rel_type: 'm.annotation', event_id: eventId, key } } },
    dmOf(OWNER),
  );

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

  it('shows typing and the tool progress as one notice that is edited in place', async () => {
    const { app, matrix, model } = await start();
    await waitFor(() => state(app) === 'connected');
    writeFileSync(join(app.config().workspace, 'todo.md'), '- call the bank');
    model.script(
      { toolCalls: [{ name: 'read_file', arguments: { path: 'todo.md' } }] },
      { toolCalls: [{ name: 'list_dir', arguments: { path: '.' } }] },
      { text: 'Call the bank.' },
    );
    matrix.message(OWNER, { msgtype: 'm.text', body: 'what is on my list?' });
    await waitFor(() => texts(matrix).includes('Call the bank.'));
    const status = matrix.sent.find((entry) => String(entry.content['body']).includes('todo.md'))!;
    expect(status.content['msgtype']).toBe('m.notice');
    await waitFor(() =>
      matrix.sent.some(
        (entry) =>
          (entry.content['m.relates_to'] as { rel_type?: string; event_id?: string } | undefined)
            ?.event_id === status.eventId,
      ),
    );
    const edit = matrix.sent.find(
      (entry) =>
        (entry.content['m.relates_to'] as { event_id?: string } | undefined)?.event_id === status.eventId,
    )!;
    expect(edit.content).toMatchObject({
      msgtype: 'm.notice',
      body: expect.stringMatching(/^\* /),
      'm.new_content': { msgtype: 'm.notice' },
      'm.relates_to': { rel_type: 'm.replace' },
    });
    expect(matrix.paths.some((path) => /^PUT \/_matrix\/client\/v3\/rooms\/[^/]+\/typing\//.test(path))).toBe(
      true,
    );
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

  it('after a restart reads back more than the first sync holds: 60 messages sent while down, each answered once, in order', async () => {
    const first = await start(undefined, undefined, '    rate_limit: 600');
    await waitFor(() => state(first.app) === 'connected');
    first.model.script({ text: 'first answer' });
    first.matrix.message(OWNER, { msgtype: 'm.text', body: 'before' });
    await waitFor(() => texts(first.matrix).includes('first answer'));
    await first.app.close(1000);
    // The homeserver's first sync shows the last 20 of them; the rest are read back through /messages.
    for (let index = 0; index < 60; index++)
      first.matrix.message(OWNER, { msgtype: 'm.text', body: `down ${index}` });
    const second = await start(undefined, { matrix: first.matrix, home: first.home });
    second.model.script(...Array.from({ length: 60 }, (_, index) => ({ text: `answer ${index}` })));
    await waitFor(() => second.model.requests.length === 60, 30_000);
    const said = second.model.requests.map((request) => JSON.stringify(request.messages.at(-1)));
    const order = said.map((line) => Number(/down (\d+)/.exec(line)?.[1]));
    expect(order).toEqual(Array.from({ length: 60 }, (_, index) => index));
    expect(first.matrix.paths.some((path) => /^GET .*\/rooms\/[^/]+\/messages$/.test(path))).toBe(true);
    second.model.script({ text: 'last' });
    second.matrix.message(OWNER, { msgtype: 'm.text', body: 'after' });
    await waitFor(() => texts(second.matrix).includes('last'));
    expect(second.model.requests).toHaveLength(61);
    expect(said.join('\n')).not.toContain('before');
  }, 60_000);

  it('runs a held exec the owner approves by typing, and the turn finishes', async () => {
    const { app, matrix, model } = await start(undefined, undefined, '', ASK);
    await waitFor(() => state(app) === 'connected');
    model.script(
      { toolCalls: [{ name: 'exec', arguments: { command: 'touch typed.txt' } }] },
      { text: 'Made it.' },
    );
    matrix.message(OWNER, { msgtype: 'm.text', body: 'make the file' });
    await waitFor(() => question(matrix) !== undefined);
    expect(existsSync(join(app.config().workspace, 'typed.txt'))).toBe(false);
    matrix.message(OWNER, { msgtype: 'm.text', body: `once ${question(matrix)!.id}` });
    await waitFor(() => texts(matrix).includes('Made it.'));
    expect(existsSync(join(app.config().workspace, 'typed.txt'))).toBe(true);
    expect(app.gate.approvals.pending()).toHaveLength(0);
  });

  it('takes the owner’s reaction as the answer (❌ deny, ✅ once); a stranger’s reaction changes nothing', async () => {
    const { app, matrix, model } = await start(undefined, undefined, '', ASK);
    await waitFor(() => state(app) === 'connected');
    const file = (name: string) => existsSync(join(app.config().workspace, name));
    model.script(
      { toolCalls: [{ name: 'exec', arguments: { command: 'touch denied.txt' } }] },
      { text: 'Not done.' },
    );
    matrix.message(OWNER, { msgtype: 'm.text', body: 'first' });
    await waitFor(() => question(matrix) !== undefined);
    const first = question(matrix)!;
    // Handled in timeline order: had the stranger's ✅ counted, the file would exist before the owner's ❌.
    react(matrix, STRANGER, first.eventId, '✅');
    react(matrix, OWNER, '$not-a-question', '✅');
    react(matrix, OWNER, first.eventId, '🎉');
    react(matrix, OWNER, first.eventId, '❌');
    await waitFor(() => texts(matrix).includes('Not done.'));
    expect(file('denied.txt')).toBe(false);
    const before = matrix.sent.length;
    model.script(
      { toolCalls: [{ name: 'exec', arguments: { command: 'touch approved.txt' } }] },
      { text: 'Done now.' },
    );
    matrix.message(OWNER, { msgtype: 'm.text', body: 'second' });
    await waitFor(() => question(matrix, before) !== undefined);
    react(matrix, OWNER, question(matrix, before)!.eventId, '✅');
    await waitFor(() => texts(matrix).includes('Done now.'));
    expect(file('approved.txt')).toBe(true);
  });

  it('offers a stranger in a DM a pairing code at zero model cost', async () => {
    const { app, matrix, model } = await start(undefined, undefined, '    pairing: true');
    await waitFor(() => state(app) === 'connected');
    matrix.message(STRANGER, { msgtype: 'm.text', body: 'hello?' });
    matrix.message(STRANGER, { msgtype: 'm.text', body: 'hello again' });
    const offers = () =>
      matrix.sent
        .filter((entry) => entry.roomId === dmOf(STRANGER))
        .map((entry) => String(entry.content['body']));
    await waitFor(() => offers().some((text) => /pairing code is [A-Z0-9]{8}/.test(text)));
    model.script({ text: 'owner answered' });
    matrix.message(OWNER, { msgtype: 'm.text', body: 'hi' });
    await waitFor(() => texts(matrix).includes('owner answered'));
    expect(offers().filter((text) => text.includes('pairing code'))).toHaveLength(1);
    expect(model.requests).toHaveLength(1);
    expect(JSON.stringify(model.requests)).not.toContain('hello');
  });

  it('joins a room the owner invites it to, never one a stranger does', async () => {
    const { app, matrix } = await start();
    await waitFor(() => state(app) === 'connected');
    matrix.invite(STRANGER, '!trap:fake');
    matrix.invite(OWNER, '!ours:fake');
    await waitFor(() => matrix.joined.includes('!ours:fake'));
    expect(matrix.joined).toEqual(['!ours:fake']);
  });

  it('answers a message in a thread inside that thread', async () => {
    const { app, matrix, model } = await start();
    await waitFor(() => state(app) === 'connected');
    model.script({ text: 'to the root' }, { text: 'in the thread' });
    const root = matrix.message(OWNER, { msgtype: 'm.text', body: 'root' });
    await waitFor(() => texts(matrix).includes('to the root'));
    matrix.message(OWNER, {
      msgtype: 'm.text',
      body: 'threaded',
      'm.relates_to': { rel_type: 'm.thread', event_id: root },
    });
    await waitFor(() => texts(matrix).includes('in the thread'));
    const [main, threaded] = matrix.sent.filter((entry) => entry.type === 'm.room.message');
    expect(main!.content['m.relates_to']).toBeUndefined();
    expect(threaded!.content['m.relates_to']).toMatchObject({ rel_type: 'm.thread', event_id: root });
    expect(threaded!.roomId).toBe(dmOf(OWNER));
  });
});
