import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp, type WrenApp } from '../../src/app/create-app.js';
import type { ModelRequest } from '../../src/llm/types.js';
import { type FakeMattermost, MM_BOT, startFakeMattermost } from '../fakes/fake-mattermost-server.js';
import { freePort } from '../support/free-port.js';
import { ScriptedModel } from '../support/scripted-model.js';
import { makeHome, waitFor } from '../support/wren-home.js';

const TOKEN = 'bottoken000000000000000001';
const OWNER = 'owneruser00000000000000001';
const STRANGER = 'stranger000000000000000001';
const OWNER_DM = 'ownerdmchannel000000000001';
const TEAM = 'teamchannel000000000000001';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function fake(token = TOKEN) {
  const mattermost = await startFakeMattermost({ token });
  cleanups.push(() => mattermost.close());
  return mattermost;
}

async function start(mattermost: FakeMattermost, extra = '', home?: string) {
  const wrenHome =
    home ??
    makeHome(
      [
        'gate:',
        '  mode: ask',
        'channels:',
        '  mattermost:',
        `    url: ${mattermost.url}`,
        '    token: ${MATTERMOST_TOKEN}',
        `    owner: [${OWNER}]`,
        extra,
      ].join('\n'),
    );
  const model = new ScriptedModel();
  const app = await createApp({
    home: wrenHome,
    model,
    probeLocalModels: false,
    channels: true,
    env: { PATH: process.env['PATH'], MATTERMOST_TOKEN: TOKEN },
  });
  cleanups.push(() => app.close(1000));
  return { app, model, home: wrenHome };
}

function state(app: WrenApp) {
  return app.channels.status().find((status) => status.name === 'mattermost')?.state;
}

/** Messages Wren posted into `channel`, in order. */
const textsIn = (mattermost: FakeMattermost, channel: string) =>
  mattermost
    .created()
    .filter((call) => call.body['channel_id'] === channel)
    .map((call) => String(call.body['message']));

/** The DM channel the fake opened between the bot and `user`. */
const dmOf = async (mattermost: FakeMattermost, user: string) => {
  const opened = await mattermost.waitFor(
    (call) => call.path === '/api/v4/channels/direct' && JSON.stringify(call.body).includes(user),
  );
  return opened;
};

/** Answers with the newest line the owner wrote (the runtime's time note comes before it). */
const echo = (request: ModelRequest) => {
  const last = request.messages.at(-1);
  const text = last?.role === 'user' && typeof last.content === 'string' ? last.content : '';
  return { text: `re: ${text.split('\n').at(-1)}` };
};

const ownerSays = (mattermost: FakeMattermost, text: string, id?: string) =>
  mattermost.message({ user: OWNER, channel: OWNER_DM, text, ...(id ? { id } : {}) });

describe('the Mattermost channel (REST v4 and WebSocket against a fake server)', () => {
  it('answers the owner in their DM; a stranger and its own posts cost nothing', async () => {
    const mattermost = await fake();
    const { app, model } = await start(mattermost);
    await waitFor(() => state(app) === 'connected');
    model.script({ text: 'Hello **there**, @channel' });
    mattermost.message({ user: STRANGER, channel: 'strangerdm0000000000000001', text: 'let me in' });
    mattermost.message({ user: MM_BOT.id, channel: OWNER_DM, text: 'my own reply' });
    mattermost.message({ user: OWNER, channel: OWNER_DM, text: 'from a bot', props: { from_bot: 'true' } });
    ownerSays(mattermost, 'hi');
    await waitFor(() => textsIn(mattermost, OWNER_DM).length === 1);
    // Markdown goes as it is; the mention is made inert.
    expect(textsIn(mattermost, OWNER_DM)).toEqual(['Hello **there**, @\u2060channel']);
    expect(model.requests).toHaveLength(1);
    const asked = JSON.stringify(model.requests[0]!.messages);
    expect(asked).not.toMatch(/let me in|my own reply|from a bot/);
    expect(textsIn(mattermost, 'strangerdm0000000000000001')).toEqual([]);
    expect(mattermost.socketFrames[0]).toMatchObject({
      action: 'authentication_challenge',
      data: { token: TOKEN },
    });
  });

  it('offers a stranger a pairing code and tells the owner in a DM it opens', async () => {
    const mattermost = await fake();
    const { app, model } = await start(mattermost, '    pairing: true');
    await waitFor(() => state(app) === 'connected');
    mattermost.message({ user: STRANGER, channel: 'strangerdm0000000000000001', text: 'hello?' });
    await waitFor(() => mattermost.created().length === 2);
    expect(textsIn(mattermost, 'strangerdm0000000000000001')).toEqual([
      expect.stringMatching(/pairing code is [A-Z0-9]{8}/),
    ]);
    // The owner never wrote, so their DM is opened for the request.
    const opened = await dmOf(mattermost, OWNER);
    expect(opened.body).toEqual(expect.arrayContaining([MM_BOT.id, OWNER]));
    const toOwner = mattermost
      .created()
      .find((call) => call.body['channel_id'] !== 'strangerdm0000000000000001');
    expect(String(toOwner?.body['message'])).toContain('Someone asked to talk to Wren on mattermost');
    expect(model.requests).toHaveLength(0);
  });

  it('answers a mention in a listed channel in its thread, and ignores the rest', async () => {
    const mattermost = await fake();
    const { app, model } = await start(mattermost, `    groups: [${TEAM}]`);
    await waitFor(() => state(app) === 'connected');
    model.script({ text: 'threaded answer' });
    mattermost.message({ user: OWNER, channel: TEAM, channelType: 'O', text: 'just chatting' });
    mattermost.message({
      user: OWNER,
      channel: 'otherchannel00000000000001',
      channelType: 'O',
      text: '@wren here?',
    });
    const root = mattermost.message({
      user: OWNER,
      channel: TEAM,
      channelType: 'O',
      text: '@wren summarise',
      mentions: [MM_BOT.id],
    });
    await waitFor(() => textsIn(mattermost, TEAM).length === 1);
    const reply = mattermost.created().find((call) => call.body['channel_id'] === TEAM)!;
    expect(reply.body).toMatchObject({ root_id: root, message: 'threaded answer' });
    expect(model.requests).toHaveLength(1);
    expect(JSON.stringify(model.requests[0]!.messages.at(-1))).toContain('summarise');
    expect(JSON.stringify(model.requests[0]!.messages.at(-1))).not.toContain('@wren');
  });

  it('shows typing over the socket and tool progress as one post that is edited', async () => {
    const mattermost = await fake();
    const { app, model } = await start(mattermost);
    await waitFor(() => state(app) === 'connected');
    writeFileSync(join(app.config().workspace, 'todo.md'), '- call the bank');
    model.script(
      { toolCalls: [{ name: 'read_file', arguments: { path: 'todo.md' } }] },
      { text: 'Call the bank.' },
    );
    ownerSays(mattermost, 'what is on my list?');
    await waitFor(() => textsIn(mattermost, OWNER_DM).includes('Call the bank.'));
    const status = mattermost.created().find((call) => String(call.body['message']).includes('todo.md'));
    expect(status?.postId).toBeDefined();
    await mattermost.waitFor((call) => call.path === `/api/v4/posts/${status!.postId}/patch`);
    expect(mattermost.socketFrames).toContainEqual(
      expect.objectContaining({ action: 'user_typing', data: { channel_id: OWNER_DM, parent_id: '' } }),
    );
  });

  it('asks a held exec with buttons: a stranger’s click changes nothing, the owner’s runs it', async () => {
    const mattermost = await fake();
    const port = await freePort();
    const { app, model } = await start(
      mattermost,
      `    actions:\n      url: http://127.0.0.1:${port}/mattermost/actions\n      listen: 127.0.0.1:${port}`,
    );
    await waitFor(() => state(app) === 'connected');
    model.script(
      { toolCalls: [{ name: 'exec', arguments: { command: 'touch from-mattermost.txt' } }] },
      { text: 'Done.' },
    );
    ownerSays(mattermost, 'make the file');
    const question = await mattermost.waitFor(
      (call) => call.path === '/api/v4/posts' && JSON.stringify(call.body).includes('attachments'),
    );
    const postId = question.postId!;
    const stranger = await mattermost.click(STRANGER, postId, 'once');
    expect(stranger.body['ephemeral_text']).toMatch(/Only the owner/);
    expect(app.gate.approvals.pending()).toHaveLength(1);
    // A click that did not come through Wren's own button (no secret) is refused.
    const forged = await fetch(`http://127.0.0.1:${port}/mattermost/actions`, {
      method: 'POST',
      body: JSON.stringify({ user_id: OWNER, context: { action: 'wa:once:abcdef' } }),
    });
    expect(forged.status).toBe(403);
    expect(app.gate.approvals.pending()).toHaveLength(1);
    const owner = await mattermost.click(OWNER, postId, 'once');
    expect(owner.status).toBe(200);
    await waitFor(() => textsIn(mattermost, OWNER_DM).includes('Done.'));
    expect(existsSync(join(app.config().workspace, 'from-mattermost.txt'))).toBe(true);
    const patched = await mattermost.waitFor(
      (call) =>
        call.path === `/api/v4/posts/${postId}/patch` && String(call.body['message']).includes('→ once'),
    );
    expect(patched.body['props']).toEqual({ attachments: [] });
  });

  it('without an actions listener, a held call is answered by typing', async () => {
    const mattermost = await fake();
    const { app, model } = await start(mattermost);
    await waitFor(() => state(app) === 'connected');
    model.script(
      { toolCalls: [{ name: 'exec', arguments: { command: 'touch typed.txt' } }] },
      { text: 'Done.' },
    );
    ownerSays(mattermost, 'make it');
    await waitFor(() => textsIn(mattermost, OWNER_DM).some((text) => /once [0-9a-f]{6}/.test(text)));
    const id = /once ([0-9a-f]{6})/.exec(
      textsIn(mattermost, OWNER_DM).find((text) => /once [0-9a-f]{6}/.test(text))!,
    )![1]!;
    ownerSays(mattermost, `once ${id}`);
    await waitFor(() => textsIn(mattermost, OWNER_DM).includes('Done.'));
    expect(existsSync(join(app.config().workspace, 'typed.txt'))).toBe(true);
  });

  it('passes an image to the model as an image part; never fetches a stranger’s file', async () => {
    const mattermost = await fake();
    const { app, model } = await start(mattermost);
    await waitFor(() => state(app) === 'connected');
    const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001', 'hex');
    const theirs = mattermost.file('run.sh', Buffer.from('#!/bin/sh'), 'text/x-sh');
    mattermost.message({
      user: STRANGER,
      channel: 'strangerdm0000000000000001',
      text: 'for you',
      files: [theirs],
    });
    const image = mattermost.file('photo.png', png, 'image/png');
    mattermost.message({ user: OWNER, channel: OWNER_DM, text: 'what is this?', files: [image] });
    await waitFor(() => model.requests.length === 1);
    const parts = model.requests[0]!.messages.at(-1)!.content;
    expect(Array.isArray(parts)).toBe(true);
    expect(parts).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'image', mediaType: 'image/png', data: png.toString('base64') }),
      ]),
    );
    expect(mattermost.fileRequests()).toEqual([image.id]);
  });

  it('uploads a file the model sends, then posts it with its file id', async () => {
    const mattermost = await fake();
    const { app, model } = await start(mattermost);
    await waitFor(() => state(app) === 'connected');
    writeFileSync(join(app.config().workspace, 'report.md'), '# Weekly report');
    model.script({ toolCalls: [{ name: 'send_file', arguments: { path: 'report.md' } }] }, { text: 'Sent.' });
    ownerSays(mattermost, 'the report?');
    await waitFor(() => textsIn(mattermost, OWNER_DM).includes('Sent.'));
    expect(mattermost.uploads()).toEqual([
      { name: 'report.md', bytes: Buffer.from('# Weekly report'), channelId: OWNER_DM },
    ]);
    const withFile = mattermost.created().find((call) => Array.isArray(call.body['file_ids']));
    expect(withFile?.body).toMatchObject({ channel_id: OWNER_DM, file_ids: [expect.any(String)] });
  });

  it('after a restart, reads back what was posted while away and answers a redelivered post only once', async () => {
    const mattermost = await fake();
    const first = await start(mattermost);
    await waitFor(() => state(first.app) === 'connected');
    first.model.script(echo);
    ownerSays(mattermost, 'before the restart');
    await waitFor(() => textsIn(mattermost, OWNER_DM).includes('re: before the restart'));
    await first.app.close(1000);
    await waitFor(() => mattermost.openSockets() === 0);
    mattermost.message({ user: OWNER, channel: OWNER_DM, text: 'while away', offline: true });
    const second = await start(mattermost, '', first.home);
    second.model.script(echo, echo, echo);
    await waitFor(() => textsIn(mattermost, OWNER_DM).includes('re: while away'));
    mattermost.redeliver();
    ownerSays(mattermost, 'after the restart');
    await waitFor(() => textsIn(mattermost, OWNER_DM).includes('re: after the restart'));
    expect(second.model.requests).toHaveLength(2);
    expect(textsIn(mattermost, OWNER_DM)).toEqual([
      're: before the restart',
      're: while away',
      're: after the restart',
    ]);
  });

  it('reconnects after the WebSocket drops', async () => {
    const mattermost = await fake();
    const { app, model } = await start(mattermost);
    await waitFor(() => state(app) === 'connected');
    const seen: string[] = [];
    const timer = setInterval(() => seen.push(state(app) ?? ''), 20);
    cleanups.push(async () => clearInterval(timer));
    mattermost.disconnect();
    await waitFor(() => seen.includes('reconnecting'));
    await waitFor(() => mattermost.connections() >= 2 && state(app) === 'connected', 20_000);
    model.script({ text: 'back' });
    ownerSays(mattermost, 'still there?');
    await waitFor(() => textsIn(mattermost, OWNER_DM).includes('back'));
  }, 30_000);

  it('drops malformed frames, events and unknown event types, and refuses a 1 MB message with a notice', async () => {
    const mattermost = await fake();
    const { app, model } = await start(mattermost);
    await waitFor(() => state(app) === 'connected');
    mattermost.frame('not json {');
    mattermost.frame('null');
    mattermost.frame(JSON.stringify({ event: 'posted', seq: 'x' }));
    mattermost.event('posted', {});
    mattermost.event('posted', { post: 'not json {' });
    mattermost.event('posted', { post: JSON.stringify({ id: 'x' }) });
    mattermost.event('posted', { post: JSON.stringify(null), mentions: '{' });
    mattermost.event('posted', { post: JSON.stringify({ id: 1, user_id: [], channel_id: {} }) });
    mattermost.event('reaction_added', { reaction: '{}' });
    mattermost.event('some_future_event', { anything: true });
    mattermost.message({ user: OWNER, channel: OWNER_DM, text: 'joined', type: 'system_join_channel' });
    ownerSays(mattermost, 'x'.repeat(1024 * 1024));
    await waitFor(() =>
      textsIn(mattermost, OWNER_DM).some((text) => text.includes('Send it as a file instead')),
    );
    model.script({ text: 'still here' });
    ownerSays(mattermost, 'ping');
    await waitFor(() => textsIn(mattermost, OWNER_DM).includes('still here'));
    expect(model.requests).toHaveLength(1);
    expect(state(app)).toBe('connected');
  });

  it('takes 100 posts from the owner in a second in order, none lost; a stranger flood costs nothing', async () => {
    const mattermost = await fake();
    const { app, model } = await start(mattermost, '    rate_limit: 600');
    await waitFor(() => state(app) === 'connected');
    const seen: string[] = [];
    model.script(
      ...Array.from({ length: 100 }, () => (request: ModelRequest) => {
        const reply = echo(request);
        seen.push(reply.text);
        return reply;
      }),
    );
    for (let index = 0; index < 200; index++)
      mattermost.message({ user: STRANGER, channel: 'strangerdm0000000000000001', text: `spam ${index}` });
    for (let index = 0; index < 100; index++) ownerSays(mattermost, `n${index}`);
    await waitFor(() => textsIn(mattermost, OWNER_DM).length === 100, 60_000);
    const answered = textsIn(mattermost, OWNER_DM);
    expect(new Set(answered).size).toBe(100);
    const asked = model.requests.map((request) => JSON.stringify(request.messages));
    expect(asked.join('\n')).not.toContain('spam');
    expect(model.requests).toHaveLength(100);
    // Each turn's newest line is the next message, in the order sent.
    expect(seen).toEqual(Array.from({ length: 100 }, (_, index) => `re: n${index}`));
    expect(textsIn(mattermost, 'strangerdm0000000000000001')).toEqual([]);
  }, 90_000);

  it('retries a 429 after Retry-After', async () => {
    const mattermost = await fake();
    const { app, model } = await start(mattermost);
    await waitFor(() => state(app) === 'connected');
    mattermost.failNext('POST /api/v4/posts', { status: 429, retryAfter: 1 });
    model.script({ text: 'after the wait' });
    ownerSays(mattermost, 'hi');
    await waitFor(
      () => textsIn(mattermost, OWNER_DM).filter((text) => text === 'after the wait').length === 2,
      15_000,
    );
    const attempts = mattermost.created().filter((call) => call.body['channel_id'] === OWNER_DM);
    expect(attempts[1]!.at - attempts[0]!.at).toBeGreaterThanOrEqual(900);
  });

  it('fails with the reason when Mattermost refuses the token, and never shows it', async () => {
    const mattermost = await fake('othertoken0000000000000001');
    const { app } = await start(mattermost);
    await waitFor(() => state(app) === 'failed');
    const status = app.channels.status().find((item) => item.name === 'mattermost')!;
    expect(status.detail).toContain('Mattermost refused the token');
    expect(JSON.stringify(app.status('t'))).not.toContain(TOKEN);
  });
});
