import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp, type WrenApp } from '../../src/app/create-app.js';
import type { ModelRequest } from '../../src/llm/types.js';
import { type FakeSlack, SLACK_BOT, startFakeSlack } from '../fakes/fake-slack-server.js';
import { ScriptedModel } from '../support/scripted-model.js';
import { makeHome, waitFor } from '../support/wren-home.js';

const BOT_TOKEN = 'xoxb-test-0123456789';
const APP_TOKEN = 'xapp-test-0123456789';
const OWNER = 'U0OWNER01';
const STRANGER = 'U0STRANGE';
const DM = 'D0OWNERDM';
const FRIEND = 'U0FRIEND1';
const FRIEND_DM = 'D0FRIENDM';

function inboxOf(app: WrenApp): string[] {
  const folder = join(app.config().workspace, 'inbox');
  return existsSync(folder) ? readdirSync(folder) : [];
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function start(extra = '') {
  const slack = await startFakeSlack({ botToken: BOT_TOKEN, appToken: APP_TOKEN });
  cleanups.push(() => slack.close());
  const home = makeHome(
    [
      'gate:',
      '  mode: ask',
      'channels:',
      '  slack:',
      '    bot_token: ${SLACK_BOT_TOKEN}',
      '    app_token: ${SLACK_APP_TOKEN}',
      `    owner: [${OWNER}]`,
      `    api_url: ${slack.apiUrl}`,
      extra,
    ].join('\n'),
  );
  const model = new ScriptedModel();
  const app = await createApp({
    home,
    model,
    probeLocalModels: false,
    channels: true,
    env: { PATH: process.env['PATH'], SLACK_BOT_TOKEN: BOT_TOKEN, SLACK_APP_TOKEN: APP_TOKEN },
  });
  cleanups.push(() => app.close(1000));
  await waitFor(() => state(app) === 'connected');
  return { app, slack, model };
}

function state(app: WrenApp) {
  return app.channels.status().find((status) => status.name === 'slack')?.state;
}

const textsTo = (slack: FakeSlack, channel: string) =>
  slack
    .sent()
    .filter((call) => call.body['channel'] === channel)
    .map((call) => String(call.body['text']));

/** Answers with the newest line the owner wrote (the runtime's time note comes before it). */
const echo = (request: ModelRequest) => {
  const last = request.messages.at(-1);
  const text = last?.role === 'user' && typeof last.content === 'string' ? last.content : '';
  return { text: `re: ${text.split('\n').at(-1)}` };
};

/**
 * Sends the owner's next message and waits for its answer: Slack's events of one chat are handled in order,
 * so once it is answered a redelivery sent before it has been handled too (answered, or dropped).
 */
async function answeredAfter(slack: FakeSlack): Promise<void> {
  slack.message({ user: OWNER, channel: DM, text: 'after' });
  await waitFor(() => textsTo(slack, DM).includes('re: after'));
}

/** An app whose Slack section holds the real tokens, against a fake Slack that expects others: it fails. */
async function refusedBy(slack: Awaited<ReturnType<typeof startFakeSlack>>) {
  cleanups.push(() => slack.close());
  const home = makeHome(
    `channels:\n  slack:\n    bot_token: \${SLACK_BOT_TOKEN}\n    app_token: \${SLACK_APP_TOKEN}\n    owner: [${OWNER}]\n    api_url: ${slack.apiUrl}\n`,
  );
  const app = await createApp({
    home,
    model: new ScriptedModel(),
    probeLocalModels: false,
    channels: true,
    env: { PATH: process.env['PATH'], SLACK_BOT_TOKEN: BOT_TOKEN, SLACK_APP_TOKEN: APP_TOKEN },
  });
  cleanups.push(() => app.close(1000));
  await waitFor(() => state(app) === 'failed');
  return app;
}

describe('the Slack channel (Socket Mode against a fake Slack)', () => {
  it('answers the owner in mrkdwn; a stranger gets nothing and costs no model call; events are acked', async () => {
    const { slack, model } = await start();
    model.script({ text: 'Hello **there**' });
    slack.message({ user: STRANGER, channel: 'D0STRANGE', text: 'let me in' });
    slack.message({ user: OWNER, channel: DM, text: 'hi' });
    await waitFor(() => textsTo(slack, DM).length === 1);
    expect(textsTo(slack, DM)).toEqual(['Hello *there*']);
    expect(model.requests).toHaveLength(1);
    expect(textsTo(slack, 'D0STRANGE')).toEqual([]);
    expect(slack.acks.size).toBeGreaterThanOrEqual(2);
  });

  it('processes a redelivered event once', async () => {
    const { slack, model } = await start();
    model.script(echo, echo, echo);
    const ts = slack.message({ user: OWNER, channel: DM, text: 'hello' });
    slack.message({ user: OWNER, channel: DM, text: 'hello', ts });
    await answeredAfter(slack);
    expect(model.requests).toHaveLength(2);
    expect(textsTo(slack, DM)).toEqual(['re: hello', 're: after']);
  });

  it('acks a redelivery Slack marks as a retry and handles it once', async () => {
    const { slack, model } = await start();
    model.script(echo, echo, echo);
    const ts = slack.message({ user: OWNER, channel: DM, text: 'hello' });
    slack.message(
      { user: OWNER, channel: DM, text: 'hello', ts },
      { retryAttempt: 1, retryReason: 'timeout' },
    );
    await waitFor(() => textsTo(slack, DM).length === 1 && slack.acks.size === 2);
    await answeredAfter(slack);
    expect(model.requests).toHaveLength(2);
    expect(textsTo(slack, DM)).toEqual(['re: hello', 're: after']);
  });

  it('ignores its own messages and other apps’ posts, even from an allowed id', async () => {
    const { slack, model } = await start(`    allow_from: [${SLACK_BOT.userId}]`);
    slack.message({ user: SLACK_BOT.userId, channel: 'D0BOTSELF', text: 'my own reply' });
    slack.message({ user: OWNER, channel: DM, text: 'posted by an app', bot_id: 'B0OTHER01' });
    model.script({ text: 'settled' });
    slack.message({ user: OWNER, channel: DM, text: 'ping' });
    await waitFor(() => textsTo(slack, DM).includes('settled'));
    expect(model.requests).toHaveLength(1);
    expect(JSON.stringify(model.requests[0]!.messages)).not.toMatch(/my own reply|posted by an app/);
    expect(textsTo(slack, 'D0BOTSELF')).toEqual([]);
  });

  it('acks and drops malformed envelopes and frames, and keeps answering', async () => {
    const { slack, model } = await start();
    slack.frame('not json {');
    const ids = [
      slack.envelope('events_api', null),
      slack.envelope('events_api', { event: null }),
      slack.envelope('events_api', { event: { type: 'message', user: OWNER, text: 'no channel, no ts' } }),
      slack.envelope('events_api', {
        event: { type: 'message', user: STRANGER, channel: 'D0STRANGE', ts: '1.1', text: 42, files: 'x' },
      }),
      slack.envelope('interactive', null),
      slack.envelope('interactive', { type: 'block_actions', user: { id: OWNER }, actions: 'all' }),
      slack.envelope('interactive', { type: 'block_actions', actions: [{ action_id: 'wa:once:zzzzzz' }] }),
      slack.envelope('interactive', { type: 'block_actions', user: { id: OWNER }, actions: [null, {}] }),
      slack.envelope('slash_commands', { command: '/wren' }),
    ];
    model.script({ text: 'still here' });
    slack.message({ user: OWNER, channel: DM, text: 'ping' });
    await waitFor(() => textsTo(slack, DM).includes('still here'));
    await waitFor(() => ids.slice(2).every((id) => slack.acks.has(id)));
    expect(model.requests).toHaveLength(1);
    expect(slack.sent('chat.postEphemeral')).toEqual([]);
  });

  it('answers a mention in a listed channel in a thread, ignores the rest of the channel', async () => {
    const { slack, model } = await start('    groups: [C0TEAM001]');
    model.script({ text: 'threaded answer' });
    slack.message({ user: OWNER, channel: 'C0TEAM001', text: 'just chatting' });
    const ts = slack.message({ user: OWNER, channel: 'C0TEAM001', text: `<@${SLACK_BOT.userId}> summarise` });
    slack.message({ user: OWNER, channel: 'C0OTHER01', text: `<@${SLACK_BOT.userId}> here too?` });
    await waitFor(() => textsTo(slack, 'C0TEAM001').length === 1);
    const reply = slack.sent().find((call) => call.body['channel'] === 'C0TEAM001')!;
    expect(reply.body['thread_ts']).toBe(ts);
    expect(model.requests).toHaveLength(1);
    expect(JSON.stringify(model.requests[0]!.messages.at(-1))).toContain('summarise');
  });

  it('splits a long reply and retries a 429 after Retry-After', async () => {
    const { slack, model } = await start();
    slack.failNext('chat.postMessage', { status: 429, retryAfter: 1 });
    const paragraph = `${'word '.repeat(150).trim()}.`;
    model.script({ text: Array.from({ length: 10 }, () => paragraph).join('\n\n') });
    slack.message({ user: OWNER, channel: DM, text: 'long please' });
    await waitFor(() => textsTo(slack, DM).length >= 2, 15_000);
    const attempts = slack.sent().filter((call) => call.body['channel'] === DM);
    expect(attempts[1]!.at - attempts[0]!.at).toBeGreaterThanOrEqual(900);
    for (const text of textsTo(slack, DM)) expect(text.length).toBeLessThanOrEqual(4000);
    // The first attempt was answered 429; every word arrives once in the sends after it.
    const words = () => textsTo(slack, DM).slice(1).join(' ').split('word').length - 1;
    await waitFor(() => words() === 10 * 150);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(words()).toBe(10 * 150);
  });

  it('sends the bot token only to Slack’s own hosts when fetching files', async () => {
    const seen: Array<string | undefined> = [];
    const planted = createServer((request, response) => {
      seen.push(request.headers.authorization);
      response.end('x');
    });
    await new Promise<void>((resolve) => planted.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => planted.close(() => resolve())));
    const port = (planted.address() as AddressInfo).port;
    const { slack, model } = await start();
    slack.message({
      user: OWNER,
      channel: DM,
      text: 'see attached',
      files: [
        {
          name: 'x.png',
          mimetype: 'image/png',
          size: 1,
          url_private_download: `http://localhost:${port}/x.png`,
        },
      ],
    });
    await waitFor(() => model.requests.length === 1);
    expect(JSON.stringify(model.requests[0]!.messages.at(-1))).toContain(
      'hosted outside Slack; not downloaded',
    );
    expect(seen).toEqual([]);
  });

  it('reconnects after the socket drops', async () => {
    const { app, slack, model } = await start();
    const seen: string[] = [];
    const timer = setInterval(() => seen.push(state(app) ?? ''), 20);
    cleanups.push(async () => clearInterval(timer));
    slack.disconnect();
    await waitFor(() => seen.includes('reconnecting'));
    await waitFor(() => slack.connections() >= 2 && state(app) === 'connected', 20_000);
    model.script({ text: 'back' });
    slack.message({ user: OWNER, channel: DM, text: 'still there?' });
    await waitFor(() => textsTo(slack, DM).includes('back'));
  }, 30_000);

  it('stops cleanly: the socket closes and nothing reconnects, also when stopped mid-reconnect', async () => {
    const first = await start();
    expect(first.slack.openSockets()).toBe(1);
    await first.app.close(1000);
    await waitFor(() => first.slack.openSockets() === 0);
    const second = await start();
    second.slack.disconnect();
    await waitFor(() => state(second.app) === 'reconnecting');
    const opened = second.slack.connections();
    await second.app.close(1000);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(second.slack.connections()).toBe(opened);
    expect(second.slack.openSockets()).toBe(0);
    expect(first.slack.connections()).toBe(1);
  });

  it('uploads a file the model sends into the conversation’s thread', async () => {
    const { app, slack, model } = await start('    groups: [C0TEAM001]');
    const report = '# Weekly report\nAll good.';
    writeFileSync(join(app.config().workspace, 'report.md'), report);
    model.script(
      { toolCalls: [{ name: 'send_file', arguments: { path: 'report.md', caption: 'here it is' } }] },
      { text: 'Sent.' },
    );
    const ts = slack.message({
      user: OWNER,
      channel: 'C0TEAM001',
      text: `<@${SLACK_BOT.userId}> the report?`,
    });
    const done = await slack.waitFor((call) => call.method === 'files.completeUploadExternal');
    expect(done.body['channel_id']).toBe('C0TEAM001');
    expect(done.body['thread_ts']).toBe(ts);
    await waitFor(() => slack.uploads()[0]?.bytes !== 0);
    expect(slack.uploads()).toEqual([{ filename: 'report.md', bytes: expect.any(Number) }]);
    expect(slack.uploads()[0]!.bytes).toBeGreaterThanOrEqual(report.length);
    await waitFor(() => textsTo(slack, 'C0TEAM001').includes('Sent.'));
  });

  it('asks a held call with buttons: a stranger’s click changes nothing, the owner’s runs it', async () => {
    const { app, slack, model } = await start();
    model.script(
      { toolCalls: [{ name: 'exec', arguments: { command: 'touch from-slack.txt' } }] },
      { text: 'Done.' },
    );
    slack.message({ user: OWNER, channel: DM, text: 'make the file' });
    const question = await slack.waitFor(
      (call) => call.method === 'chat.postMessage' && Array.isArray(call.body['blocks']),
    );
    const actions = (
      question.body['blocks'] as Array<{ type: string; elements?: Array<{ action_id: string }> }>
    ).find((block) => block.type === 'actions')!.elements!;
    const once = actions.find((element) => element.action_id.startsWith('wa:once:'))!.action_id;
    slack.click(STRANGER, once, DM);
    await slack.waitFor(
      (call) => call.method === 'chat.postEphemeral' && String(call.body['text']).includes('Only the owner'),
    );
    expect(app.gate.approvals.pending()).toHaveLength(1);
    slack.click(OWNER, once, DM);
    await waitFor(() => textsTo(slack, DM).includes('Done.'));
    expect(existsSync(join(app.config().workspace, 'from-slack.txt'))).toBe(true);
    const updated = await slack.waitFor(
      (call) => call.method === 'chat.update' && String(call.body['text']).includes('→ once'),
    );
    expect(updated.body['blocks']).toEqual([]);
  });

  it('fails with the reason when Slack refuses the token, and never shows the token', async () => {
    const slack = await startFakeSlack({ botToken: 'xoxb-other', appToken: APP_TOKEN });
    const app = await refusedBy(slack);
    expect(app.channels.status().find((item) => item.name === 'slack')!.detail).toContain(
      'Slack refused a token',
    );
    expect(JSON.stringify(app.status('t'))).not.toContain(BOT_TOKEN);
  });

  it('fails with the reason when Slack refuses the app-level token, and never shows it', async () => {
    const slack = await startFakeSlack({ botToken: BOT_TOKEN, appToken: 'xapp-other' });
    const app = await refusedBy(slack);
    expect(app.channels.status().find((item) => item.name === 'slack')!.detail).toContain(
      'Slack refused a token (invalid_auth)',
    );
    expect(slack.calls.filter((call) => call.method === 'apps.connections.open')).toHaveLength(1);
    expect(JSON.stringify(app.status('t'))).not.toContain(APP_TOKEN);
  });

  it('keeps trying while Slack is unreachable, and still stops', async () => {
    const { app, slack } = await start();
    await slack.close();
    await waitFor(() => state(app) === 'reconnecting');
    const detail = () => app.channels.status().find((item) => item.name === 'slack')!.detail ?? '';
    await waitFor(() => detail() !== 'the connection closed');
    expect(state(app)).toBe('reconnecting');
    expect(detail()).not.toContain(BOT_TOKEN);
    await app.close(1000);
  });

  it('never downloads a stranger’s files, and nothing lands in the inbox', async () => {
    const { app, slack, model } = await start();
    for (let index = 0; index < 4; index++)
      slack.message({
        user: STRANGER,
        channel: 'D0STRANGE',
        text: 'for you',
        files: [slack.file(`run-${index}.sh`, Buffer.from('#!/bin/sh\necho owned'), 'text/x-sh')],
      });
    model.script({ text: 'settled' });
    slack.message({ user: OWNER, channel: DM, text: 'ping' });
    await waitFor(() => textsTo(slack, DM).includes('settled'));
    expect(slack.fileRequests()).toEqual([]);
    expect(inboxOf(app)).toEqual([]);
    expect(model.requests).toHaveLength(1);
  });

  it('downloads an allowed sender’s files only within their rate, and none declared over the cap', async () => {
    const { app, slack, model } = await start(
      `    allow_from: [${FRIEND}]\n    rate_limit: 2\n    max_file_mb: 1`,
    );
    model.script({ text: 'one' }, { text: 'two' }, { text: 'settled' });
    slack.message({
      user: OWNER,
      channel: DM,
      text: '',
      files: [slack.file('huge.bin', Buffer.alloc(8), 'application/octet-stream', 5 << 20)],
    });
    await waitFor(() => textsTo(slack, DM).some((text) => text.includes('huge.bin" is over the 1 MB')));
    for (let index = 0; index < 6; index++)
      slack.message({
        user: FRIEND,
        channel: FRIEND_DM,
        text: `file ${index}`,
        files: [slack.file(`f${index}.txt`, Buffer.from('words'), 'text/plain')],
      });
    await waitFor(() => textsTo(slack, FRIEND_DM).some((text) => text.startsWith('Slow down')));
    await waitFor(
      () => textsTo(slack, FRIEND_DM).includes('one') && textsTo(slack, FRIEND_DM).includes('two'),
    );
    slack.message({ user: OWNER, channel: DM, text: 'ping' });
    await waitFor(() => textsTo(slack, DM).includes('settled'));
    expect(slack.fileRequests()).toHaveLength(2);
    expect(slack.fileRequests().some((path) => path.endsWith('huge.bin'))).toBe(false);
    expect(inboxOf(app)).toHaveLength(2);
  });
});
