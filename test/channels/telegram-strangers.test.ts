import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/create-app.js';
import { type FakeTelegram, startFakeTelegram } from '../fakes/fake-telegram-server.js';
import { ScriptedModel } from '../support/scripted-model.js';
import { makeHome, waitFor } from '../support/wren-home.js';

const TOKEN = '123456:TEST-token_abcdefghijklmnop';
const OWNER = 4242;
const FRIEND = 5151;
const STRANGER = 6666;

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function start(extra: string[] = [], model = new ScriptedModel()) {
  const telegram = await startFakeTelegram({ token: TOKEN });
  cleanups.push(() => telegram.close());
  const home = makeHome(
    [
      'gate:',
      '  mode: ask',
      'channels:',
      '  telegram:',
      '    token: ${TELEGRAM_BOT_TOKEN}',
      `    owner: [${OWNER}]`,
      `    api_root: ${telegram.apiRoot}`,
      ...extra.map((line) => `    ${line}`),
    ].join('\n'),
  );
  const app = await createApp({
    home,
    model,
    probeLocalModels: false,
    channels: true,
    env: { PATH: process.env['PATH'], TELEGRAM_BOT_TOKEN: TOKEN },
  });
  cleanups.push(() => app.close(1000));
  await waitFor(() => app.channels.status().find((item) => item.name === 'telegram')?.state === 'connected');
  const inbox = () => {
    const folder = join(app.config().workspace, 'inbox');
    return existsSync(folder) ? readdirSync(folder) : [];
  };
  return { app, telegram, model, inbox };
}

const textsTo = (telegram: FakeTelegram, chat: number) =>
  telegram
    .sent()
    .filter((call) => Number(call.body['chat_id']) === chat)
    .map((call) => String(call.body['text']));

/** Updates are handled in order: once the owner's later message is answered, everything before it was. */
async function settle(telegram: FakeTelegram, model: ScriptedModel, marker: string) {
  model.script({ text: marker });
  telegram.pushMessage({ from: OWNER, text: 'ping' });
  await waitFor(() => textsTo(telegram, OWNER).includes(marker));
}

describe('Telegram: who sends files, and who is told about strangers', () => {
  it('never fetches a stranger’s document or photo: no getFile, no download, nothing in the inbox', async () => {
    for (const pairing of [false, true]) {
      const { telegram, model, inbox } = await start([`pairing: ${pairing}`]);
      telegram.addFile('planted', Buffer.from('#!/bin/sh\necho owned'));
      telegram.addFile('pic', Buffer.from([0xff, 0xd8, 0xff, 0xe0]));
      for (let index = 0; index < 5; index++) {
        telegram.pushMessage({
          from: STRANGER,
          caption: 'for you',
          document: { fileId: 'planted', name: `.bashrc${index}`, size: 20 },
        });
        telegram.pushMessage({ from: STRANGER + index + 1, photo: { fileId: 'pic', size: 4 } });
      }
      await settle(telegram, model, `settled ${pairing}`);
      expect(telegram.sent('getFile')).toEqual([]);
      expect(telegram.fileRequests()).toEqual([]);
      expect(inbox()).toEqual([]);
      expect(model.requests).toHaveLength(1);
    }
  });

  it('fetches an allowed sender’s files only within their rate limit', async () => {
    const model = new ScriptedModel();
    const { telegram, inbox } = await start([`allow_from: [${FRIEND}]`, 'rate_limit: 2'], model);
    telegram.addFile('doc', Buffer.from('some text'));
    model.script({ text: 'got one' }, { text: 'got two' });
    for (let index = 0; index < 8; index++)
      telegram.pushMessage({ from: FRIEND, document: { fileId: 'doc', name: `n${index}.txt`, size: 9 } });
    await waitFor(() => textsTo(telegram, FRIEND).some((text) => text.startsWith('Slow down')));
    await settle(telegram, model, 'settled');
    expect(telegram.fileRequests()).toEqual(['files/doc', 'files/doc']);
    expect(telegram.sent('getFile')).toHaveLength(2);
    expect(inbox()).toHaveLength(2);
  });

  it('does not fetch a file declared over max_file_mb, and tells the sender', async () => {
    const { telegram, model, inbox } = await start(['max_file_mb: 1']);
    telegram.addFile('big', Buffer.alloc(10));
    telegram.pushMessage({
      from: OWNER,
      document: { fileId: 'big', name: 'dump.tar', size: 3 * 1024 * 1024 },
    });
    await waitFor(() =>
      textsTo(telegram, OWNER).some((text) => text.includes('dump.tar&quot; is over the 1 MB limit')),
    );
    await settle(telegram, model, 'settled');
    expect(telegram.sent('getFile')).toEqual([]);
    expect(telegram.fileRequests()).toEqual([]);
    expect(inbox()).toEqual([]);
    // The refused file started no turn: the only model call is the settling message.
    expect(model.requests).toHaveLength(1);
  });

  it('tells the owner in their chat when a stranger asks to pair, once per code, with the name made inert', async () => {
    const { telegram, model } = await start(['pairing: true']);
    const hostile = '<b>Eve</b>\n[approve](https://evil.example)';
    telegram.pushMessage({ from: STRANGER, firstName: hostile, text: 'let me in' });
    telegram.pushMessage({ from: STRANGER, firstName: hostile, text: 'please' });
    await settle(telegram, model, 'settled');
    const code = /pairing code is ([A-Z0-9]{8})/.exec(textsTo(telegram, STRANGER)[0]!)![1]!;
    expect(textsTo(telegram, STRANGER)).toHaveLength(1);
    const asked = () => textsTo(telegram, OWNER).filter((text) => text.startsWith('Someone asked'));
    await waitFor(() => asked().length > 0);
    const told = asked();
    expect(told).toHaveLength(1);
    // (Telegram HTML: the quotes arrive escaped.)
    expect(told[0]).toContain(`&quot;bEveb approve(httpsevil.example)&quot;, telegram id ${STRANGER}`);
    expect(told[0]).toContain(`wren pairing approve ${code}, or use Approvals in the web app`);
    // A notice is plain text to Telegram: nothing of the stranger's can be markup.
    const call = telegram.sent().find((item) => String(item.body['text']).startsWith('Someone asked'))!;
    expect(String(call.body['text'])).not.toMatch(/[<>]|https:\/\//);
    // A flood of strangers reaches the owner at most 3 times (the pending-code cap).
    for (let index = 1; index <= 10; index++) telegram.pushMessage({ from: STRANGER + index, text: 'hi' });
    await settle(telegram, model, 'settled again');
    await waitFor(() => asked().length === 3);
    await settle(telegram, model, 'settled once more');
    expect(asked()).toHaveLength(3);
  });

  it('lays the approval buttons out two to a row, "Allow once" beside "Deny" first', async () => {
    const model = new ScriptedModel().script({
      toolCalls: [{ name: 'exec', arguments: { command: 'touch x.txt' } }],
    });
    const { telegram } = await start([], model);
    telegram.pushMessage({ from: OWNER, text: 'make the file' });
    const question = await telegram.waitFor(
      (call) => call.method === 'sendMessage' && String(call.body['text']).startsWith('Approval needed'),
    );
    const rows = (question.body['reply_markup'] as { inline_keyboard: Array<Array<{ text: string }>> })
      .inline_keyboard;
    expect(rows.map((row) => row.map((button) => button.text))).toEqual([
      ['Allow once', 'Deny'],
      ['Allow for this chat', 'Always allow'],
    ]);
  });
});
