import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp, type WrenApp } from '../../src/app/create-app.js';
import {
  type FakeDiscord,
  GUILD_CHANNEL,
  GUILD_THREAD,
  LATE_THREAD,
  startFakeDiscord,
} from '../fakes/fake-discord-server.js';
import { ScriptedModel } from '../support/scripted-model.js';
import { makeHome, waitFor } from '../support/wren-home.js';

const TOKEN = 'discord-test-token.0123456789.abcdefghijkl';
const OWNER = '100000000000000001';
const STRANGER = '100000000000000666';
const FRIEND = '100000000000000515';
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

function inboxOf(app: WrenApp): string[] {
  const folder = join(app.config().workspace, 'inbox');
  return existsSync(folder) ? readdirSync(folder) : [];
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function start(extra = '') {
  const launched = await launch(extra);
  await waitFor(() => state(launched.app) === 'connected');
  return launched;
}

/** The app with the Discord channel against a fake Discord, not yet waited on (`token`: the one configured). */
async function launch(extra = '', options: { token?: string; closeOnIdentify?: number } = {}) {
  const discord = await startFakeDiscord({
    token: TOKEN,
    ...(options.closeOnIdentify ? { closeOnIdentify: options.closeOnIdentify } : {}),
  });
  cleanups.push(() => discord.close());
  const home = makeHome(
    [
      'gate:',
      '  mode: ask',
      'channels:',
      '  discord:',
      '    token: ${DISCORD_BOT_TOKEN}',
      `    owner: ["${OWNER}"]`,
      `    api_url: ${discord.apiUrl}`,
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
    env: { PATH: process.env['PATH'], DISCORD_BOT_TOKEN: options.token ?? TOKEN },
  });
  cleanups.push(() => app.close(1000));
  return { app, discord, model };
}

function statusOf(app: WrenApp) {
  return app.channels.status().find((status) => status.name === 'discord');
}

function state(app: WrenApp) {
  return statusOf(app)?.state;
}

const contents = (discord: FakeDiscord, channel: string) =>
  discord.posted(channel).map((call) => String(call.body['content'] ?? ''));

describe('the Discord channel (against a fake REST API and gateway)', () => {
  it('answers the owner in a DM with mentions disabled; a stranger costs nothing; registers /wren', async () => {
    const { discord, model } = await start();
    await discord.waitFor((call) => call.route === 'PUT /applications/:id/commands');
    model.script({ text: 'Hello @everyone' });
    discord.dm({ from: STRANGER, content: 'let me in' });
    discord.dm({ from: OWNER, content: 'hi' });
    const dm = discord.dmOf(OWNER);
    await waitFor(() => contents(discord, dm).length === 1);
    expect(contents(discord, dm)).toEqual(['Hello @everyone']);
    expect(discord.posted(dm)[0]!.body['allowed_mentions']).toEqual({ parse: [] });
    expect(model.requests).toHaveLength(1);
    expect(contents(discord, discord.dmOf(STRANGER))).toEqual([]);
  });

  it('in a listed guild channel answers only when mentioned, and without the mention', async () => {
    const { discord, model } = await start(`    groups: ["${GUILD_CHANNEL}"]`);
    model.script({ text: 'guild answer' });
    discord.inGuild({ from: OWNER, content: 'just talking' });
    discord.inGuild({ from: STRANGER, content: 'me too', mentionBot: true });
    discord.inGuild({ from: OWNER, content: 'what is next?', mentionBot: true });
    await waitFor(() => contents(discord, GUILD_CHANNEL).length === 1);
    expect(contents(discord, GUILD_CHANNEL)).toEqual(['guild answer']);
    expect(model.requests).toHaveLength(1);
    const asked = JSON.stringify(model.requests[0]!.messages.at(-1));
    expect(asked).toContain('what is next?');
    expect(asked).not.toContain('<@');
  });

  it('answers a mention in a thread under a listed channel, in that thread', async () => {
    const { discord, model } = await start(`    groups: ["${GUILD_CHANNEL}"]`);
    model.script({ text: 'thread answer' });
    discord.inGuild({ from: OWNER, content: 'in the thread', mentionBot: true, thread: true });
    await waitFor(() => contents(discord, GUILD_THREAD).length === 1);
    expect(contents(discord, GUILD_THREAD)).toEqual(['thread answer']);
    expect(contents(discord, GUILD_CHANNEL)).toEqual([]);
  });

  it('answers /wren from the owner, and tells anyone else (privately) that it does not take their requests', async () => {
    const { discord, model } = await start();
    model.script({ text: 'slash answer' });
    discord.command(STRANGER, 'do things');
    discord.command(OWNER, 'what is due today?');
    await waitFor(() => contents(discord, discord.dmOf(OWNER)).includes('slash answer'));
    const callbacks = discord.calls.filter((call) => call.route === 'POST /interactions/:id/:token/callback');
    expect(callbacks.map((call) => JSON.stringify(call.body))).toEqual([
      expect.stringContaining('does not take requests from you'),
      expect.stringContaining('what is due today?'),
    ]);
    expect(model.requests).toHaveLength(1);
  });

  it('processes a redelivered message once and splits a long reply at 2,000 characters', async () => {
    const { discord, model } = await start();
    const paragraph = `${'word '.repeat(100).trim()}.`;
    model.script({ text: Array.from({ length: 8 }, () => paragraph).join('\n\n') });
    const id = discord.dm({ from: OWNER, content: 'long please' });
    discord.dm({ from: OWNER, content: 'long please', id });
    const dm = discord.dmOf(OWNER);
    await waitFor(() => contents(discord, dm).join(' ').split('word').length - 1 === 800);
    for (const text of contents(discord, dm)) expect(text.length).toBeLessThanOrEqual(2000);
    expect(contents(discord, dm).length).toBeGreaterThan(1);
    expect(model.requests).toHaveLength(1);
  });

  it('retries a send answered 429 after retry_after', async () => {
    const { discord, model } = await start();
    discord.failNext('POST /channels/:id/messages', { status: 429, retryAfter: 1 });
    model.script({ text: 'after waiting' });
    discord.dm({ from: OWNER, content: 'go' });
    const dm = discord.dmOf(OWNER);
    // The refused attempt is recorded too: wait for the retry after it.
    await waitFor(
      () => contents(discord, dm).filter((text) => text === 'after waiting').length === 2,
      15_000,
    );
    const [first, second] = discord.posted(dm);
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(900);
  });

  it('resumes after the gateway drops the connection', async () => {
    const { app, discord, model } = await start();
    discord.disconnect();
    await waitFor(() => discord.resumes() + discord.identifies() >= 2 && state(app) === 'connected', 20_000);
    model.script({ text: 'back again' });
    discord.dm({ from: OWNER, content: 'there?' });
    await waitFor(() => contents(discord, discord.dmOf(OWNER)).includes('back again'));
  }, 30_000);

  it('asks a held call with buttons: a stranger’s click is refused, the owner’s runs it', async () => {
    const { app, discord, model } = await start();
    model.script(
      { toolCalls: [{ name: 'exec', arguments: { command: 'touch from-discord.txt' } }] },
      { text: 'Done.' },
    );
    discord.dm({ from: OWNER, content: 'make the file' });
    const dm = discord.dmOf(OWNER);
    await waitFor(() => discord.posted(dm).some((call) => Array.isArray(call.body['components'])));
    const question = discord.posted(dm).find((call) => Array.isArray(call.body['components']))!;
    const row = (question.body['components'] as Array<{ components: Array<{ custom_id: string }> }>)[0]!;
    const once = row.components.find((button) => button.custom_id.startsWith('wa:once:'))!.custom_id;
    discord.click(STRANGER, once, dm);
    const refused = await discord.waitFor((call) => call.route === 'POST /interactions/:id/:token/callback');
    expect(JSON.stringify(refused.body)).toContain('Only the owner');
    expect(app.gate.approvals.pending()).toHaveLength(1);
    discord.click(OWNER, once, dm);
    await waitFor(() => contents(discord, dm).includes('Done.'));
    expect(existsSync(join(app.config().workspace, 'from-discord.txt'))).toBe(true);
  });

  it('never fetches a stranger’s attachments from the CDN, and nothing lands in the inbox', async () => {
    const { app, discord, model } = await start('    pairing: true');
    for (let index = 0; index < 4; index++)
      discord.dm({
        from: STRANGER,
        content: 'for you',
        attachments: [
          discord.attachment(`run-${index}.sh`, Buffer.from('#!/bin/sh\necho owned'), 'text/x-sh'),
          discord.attachment('p.png', PNG, 'image/png'),
        ],
      });
    model.script({ text: 'settled' });
    discord.dm({ from: OWNER, content: 'ping' });
    await waitFor(() => contents(discord, discord.dmOf(OWNER)).includes('settled'));
    expect(discord.fileRequests()).toEqual([]);
    expect(inboxOf(app)).toEqual([]);
    expect(model.requests).toHaveLength(1);
    // The stranger got one pairing code, and the owner was told once.
    const told = () =>
      contents(discord, discord.dmOf(OWNER)).filter((text) => text.startsWith('Someone asked'));
    await waitFor(() => told().length > 0);
    expect(told()).toEqual([expect.stringContaining(`discord id ${STRANGER}`)]);
    expect(contents(discord, discord.dmOf(STRANGER))).toEqual([expect.stringContaining('pairing code is')]);
  });

  it('fetches an allowed sender’s files only within their rate, and none declared over the cap', async () => {
    const { app, discord, model } = await start(
      `    allow_from: ["${FRIEND}"]\n    rate_limit: 2\n    max_file_mb: 1`,
    );
    model.script({ text: 'one' }, { text: 'two' }, { text: 'settled' });
    discord.dm({
      from: OWNER,
      content: '',
      attachments: [discord.attachment('huge.bin', Buffer.alloc(8), 'application/octet-stream', 5 << 20)],
    });
    const owner = discord.dmOf(OWNER);
    await waitFor(() =>
      contents(discord, owner).some((text) => text.includes('"huge.bin" is over the 1 MB')),
    );
    for (let index = 0; index < 6; index++)
      discord.dm({
        from: FRIEND,
        content: `file ${index}`,
        attachments: [discord.attachment(`f${index}.txt`, Buffer.from('words'), 'text/plain')],
      });
    const friend = discord.dmOf(FRIEND);
    await waitFor(() => contents(discord, friend).some((text) => text.startsWith('Slow down')));
    await waitFor(
      () => contents(discord, friend).includes('one') && contents(discord, friend).includes('two'),
    );
    discord.dm({ from: OWNER, content: 'ping' });
    await waitFor(() => contents(discord, owner).includes('settled'));
    expect(discord.fileRequests()).toHaveLength(2);
    expect(discord.fileRequests().every((path) => /\/f[0-5]\.txt$/.test(path))).toBe(true);
    expect(inboxOf(app)).toHaveLength(2);
  });

  it('answers a reply to its own message in a listed channel, with the replied-to text as context', async () => {
    const { discord, model } = await start(`    groups: ["${GUILD_CHANNEL}"]`);
    model.script({ text: 'reply answer' });
    discord.inGuild({
      from: OWNER,
      content: 'and after that?',
      replyTo: { id: '800000000000000999', content: 'first, water the plants' },
    });
    await waitFor(() => contents(discord, GUILD_CHANNEL).length === 1);
    expect(contents(discord, GUILD_CHANNEL)).toEqual(['reply answer']);
    const asked = JSON.stringify(model.requests[0]!.messages.at(-1));
    expect(asked).toContain('first, water the plants');
    expect(asked).toContain('and after that?');
    // The replied-to message came with the dispatch: nothing was read back over REST.
    expect(discord.calls.filter((call) => call.route === 'GET /channels/:id/messages/:id')).toEqual([]);
  });

  it('finds the parent of a thread the gateway never listed with one lookup, and answers in the thread', async () => {
    const { discord, model } = await start(`    groups: ["${GUILD_CHANNEL}"]`);
    model.script({ text: 'late one' }, { text: 'late two' });
    discord.inGuild({ from: OWNER, content: 'first', mentionBot: true, channel: LATE_THREAD });
    await waitFor(() => contents(discord, LATE_THREAD).length === 1);
    discord.inGuild({ from: OWNER, content: 'second', mentionBot: true, channel: LATE_THREAD });
    await waitFor(() => contents(discord, LATE_THREAD).length === 2);
    expect(contents(discord, LATE_THREAD)).toEqual(['late one', 'late two']);
    const lookups = discord.calls.filter((call) => call.path === `/channels/${LATE_THREAD}`);
    expect(lookups.map((call) => call.route)).toEqual(['GET /channels/:id']);
  });

  it('shows a refused token as failed with what to fix, and never shows the token', async () => {
    const wrong = 'discord-wrong-token.0123456789.abcdefghijkl';
    const { app, discord } = await launch('', { token: wrong });
    await waitFor(() => state(app) === 'failed');
    expect(statusOf(app)?.detail).toContain('channels.discord.token');
    expect(JSON.stringify(app.channels.status())).not.toContain(wrong);
    expect(discord.identifies()).toBe(0);
  });

  it('fails (and stops trying) when the gateway refuses the Message Content intent', async () => {
    const { app, discord } = await launch('', { closeOnIdentify: 4014 });
    await waitFor(() => state(app) === 'failed');
    expect(statusOf(app)?.detail).toContain('Message Content');
    expect(discord.identifies()).toBe(1);
  });

  it('closes its gateway connection when the app stops', async () => {
    const { app, discord } = await start();
    expect(discord.connections()).toBe(1);
    await app.close(1000);
    await waitFor(() => discord.connections() === 0);
  });

  it('delivers a workspace file as an upload, with mentions disabled', async () => {
    const { app, discord, model } = await start();
    writeFileSync(join(app.config().workspace, 'report.txt'), 'quarterly words');
    model.script(
      { toolCalls: [{ name: 'send_file', arguments: { path: 'report.txt' } }] },
      { text: 'Sent.' },
    );
    discord.dm({ from: OWNER, content: 'send me the report' });
    const dm = discord.dmOf(OWNER);
    // send_file is a moderate call: `ask` runs it without asking.
    await waitFor(() => contents(discord, dm).includes('Sent.'));
    const upload = discord.posted(dm).find((call) => call.body['multipart'] === true);
    expect(upload?.body['uploads']).toEqual(['report.txt']);
    expect(upload?.body['allowed_mentions']).toEqual({ parse: [] });
  });
});
