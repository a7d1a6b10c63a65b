import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp, type WrenApp } from '../../src/app/create-app.js';
import { approvalButtonData } from '../../src/channels/approval-text.js';
import type { TelegramChannel } from '../../src/channels/telegram/telegram-channel.js';
import { BOT, type FakeTelegram, startFakeTelegram } from '../fakes/fake-telegram-server.js';
import { ScriptedModel } from '../support/scripted-model.js';
import { makeHome, waitFor } from '../support/wren-home.js';

const TOKEN = '123456:TEST-token_abcdefghijklmnop';
const OWNER = 4242;
const STRANGER = 6666;

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function config(apiRoot: string, extra = '') {
  return [
    'gate:',
    '  mode: ask',
    'channels:',
    '  telegram:',
    '    token: ${TELEGRAM_BOT_TOKEN}',
    `    owner: [${OWNER}]`,
    `    api_root: ${apiRoot}`,
    extra,
  ].join('\n');
}

async function start(
  options: { home?: string; telegram?: FakeTelegram; extra?: string; model?: ScriptedModel } = {},
) {
  const telegram = options.telegram ?? (await startFakeTelegram({ token: TOKEN }));
  if (!options.telegram) cleanups.push(() => telegram.close());
  const home = options.home ?? makeHome(config(telegram.apiRoot, options.extra));
  const model = options.model ?? new ScriptedModel();
  const app = await createApp({
    home,
    model,
    probeLocalModels: false,
    channels: true,
    scheduler: 'run',
    env: { PATH: process.env['PATH'], TELEGRAM_BOT_TOKEN: TOKEN },
  });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await app.close(1000);
  };
  cleanups.push(close);
  await waitFor(() => telegramState(app) === 'connected');
  return { app, telegram, model, home, close };
}

function telegramState(app: WrenApp): string | undefined {
  return app.channels.status().find((status) => status.name === 'telegram')?.state;
}

const textsTo = (telegram: FakeTelegram, chat: number) =>
  telegram
    .sent()
    .filter((call) => Number(call.body['chat_id']) === chat)
    .map((call) => String(call.body['text']));

describe('the Telegram channel (against a fake Bot API)', () => {
  it('answers the owner in Telegram HTML; a stranger gets nothing and costs no model call', async () => {
    const { telegram, model } = await start();
    model.script({ text: 'Hello **there**' });
    telegram.pushMessage({ from: OWNER, text: 'hi' });
    const reply = await telegram.waitFor((call) => call.method === 'sendMessage');
    expect(reply.body).toMatchObject({ text: 'Hello <b>there</b>', parse_mode: 'HTML' });
    expect(Number(reply.body['chat_id'])).toBe(OWNER);
    expect(model.requests).toHaveLength(1);
    expect(telegram.sent('sendChatAction').length).toBeGreaterThan(0);
    telegram.pushMessage({ from: STRANGER, text: 'let me in' });
    telegram.pushMessage({ from: OWNER, text: 'second' });
    await waitFor(() => textsTo(telegram, OWNER).length === 2);
    expect(model.requests).toHaveLength(2);
    // The text the model was sent, joined: a stranger's words would appear inside one of these strings.
    const asked = model.requests.map((request) => JSON.stringify(request.messages)).join('\n');
    expect(asked).toContain('second');
    expect(asked).not.toContain('let me in');
    expect(textsTo(telegram, STRANGER)).toEqual([]);
  });

  it('processes a redelivered update once, also after a restart', async () => {
    const telegram = await startFakeTelegram({ token: TOKEN });
    cleanups.push(() => telegram.close());
    const home = makeHome(config(telegram.apiRoot));
    const first = await start({ telegram, home });
    const update = telegram.pushMessage({ from: OWNER, text: 'once please', messageId: 77 });
    await waitFor(() => textsTo(telegram, OWNER).length === 1);
    telegram.redeliver(update);
    telegram.pushMessage({ from: OWNER, text: 'after', messageId: 78 });
    await waitFor(() => textsTo(telegram, OWNER).length === 2);
    await first.close();
    // A new process: the stored offset skips what was read; a redelivery is caught by the stored ids.
    telegram.redeliver(update);
    const second = await start({ telegram, home });
    telegram.pushMessage({ from: OWNER, text: 'third', messageId: 79 });
    await waitFor(() => textsTo(telegram, OWNER).length === 3);
    const asked = [...first.model.requests, ...second.model.requests].map((request) =>
      JSON.stringify(request.messages.at(-1)),
    );
    expect(asked.filter((text) => text.includes('once please'))).toHaveLength(1);
  });

  it('splits a long reply at Telegram’s limit', async () => {
    const { telegram, model } = await start();
    const paragraph = `${'word '.repeat(150).trim()}.`;
    model.script({ text: Array.from({ length: 12 }, () => paragraph).join('\n\n') });
    telegram.pushMessage({ from: OWNER, text: 'tell me a lot' });
    await waitFor(() => textsTo(telegram, OWNER).length >= 3);
    for (const text of textsTo(telegram, OWNER)) expect(text.length).toBeLessThanOrEqual(4096);
    expect(textsTo(telegram, OWNER).join(' ').split('word').length - 1).toBe(12 * 150);
  });

  it('retries a send answered 429 after retry_after, and falls back to plain text when HTML is refused', async () => {
    const { telegram, model } = await start();
    telegram.failNext('sendMessage', { status: 429, retryAfter: 1 });
    model.script({ text: 'after the wait' }, { text: 'a <b>plain</b> one' });
    telegram.pushMessage({ from: OWNER, text: 'go' });
    await waitFor(() => textsTo(telegram, OWNER).length === 2);
    const [refused, retried] = telegram.sent().filter((call) => Number(call.body['chat_id']) === OWNER);
    expect(retried!.body['text']).toBe('after the wait');
    expect(retried!.at - refused!.at).toBeGreaterThanOrEqual(900);
    telegram.failNext('sendMessage', { status: 400, description: "Bad Request: can't parse entities" });
    telegram.pushMessage({ from: OWNER, text: 'again' });
    await waitFor(() => textsTo(telegram, OWNER).length === 4);
    const last = telegram.sent().at(-1)!;
    expect(last.body['parse_mode']).toBeUndefined();
    expect(last.body['text']).toBe('a <b>plain</b> one');
  });

  it('reconnects after the connection drops, showing reconnecting meanwhile', async () => {
    const { app, telegram, model } = await start();
    const states: string[] = [];
    const watch = setInterval(() => states.push(telegramState(app) ?? ''), 20);
    cleanups.push(async () => clearInterval(watch));
    telegram.disconnect(500);
    await waitFor(() => states.includes('reconnecting'));
    await waitFor(() => telegramState(app) === 'connected' && telegram.sent('getMe').length >= 2, 15_000);
    model.script({ text: 'still here' });
    telegram.pushMessage({ from: OWNER, text: 'you there?' });
    await waitFor(() => textsTo(telegram, OWNER).includes('still here'));
    expect(app.status('t')['channels']).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'telegram', state: 'connected' })]),
    );
  });

  it('asks a held exec call with inline buttons: a stranger’s press changes nothing, the owner’s runs it', async () => {
    const { app, telegram, model } = await start();
    const marker = join(app.config().workspace, 'approved.txt');
    model.script(
      { toolCalls: [{ name: 'exec', arguments: { command: 'touch approved.txt' } }] },
      { text: 'Done.' },
    );
    telegram.pushMessage({ from: OWNER, text: 'make the file' });
    const question = await telegram.waitFor(
      (call) => call.method === 'sendMessage' && String(call.body['text']).startsWith('Approval needed'),
    );
    expect(String(question.body['text'])).toContain('touch approved.txt');
    // The tool's own assessment comes with the question: every program the command runs.
    expect(String(question.body['text'])).toContain('• runs: touch');
    const buttons = (
      question.body['reply_markup'] as { inline_keyboard: Array<Array<{ callback_data: string }>> }
    ).inline_keyboard[0]!;
    const once = buttons.find((button) => button.callback_data.startsWith('wa:once:'))!.callback_data;
    const pending = app.gate.approvals.pending();
    expect(pending).toHaveLength(1);
    expect(once).toBe(approvalButtonData(pending[0]!, 'once'));
    // A forged press from someone else (even with the right data) is refused.
    telegram.pushButton(STRANGER, once, OWNER);
    await telegram.waitFor(
      (call) => call.method === 'answerCallbackQuery' && String(call.body['text']).includes('Only the owner'),
    );
    expect(app.gate.approvals.pending()).toHaveLength(1);
    expect(existsSync(marker)).toBe(false);
    telegram.pushButton(OWNER, once);
    await waitFor(() => textsTo(telegram, OWNER).includes('Done.'));
    expect(existsSync(marker)).toBe(true);
    // The question loses its buttons and says how it ended.
    const edited = await telegram.waitFor(
      (call) => call.method === 'editMessageText' && String(call.body['text']).includes('→ once'),
    );
    expect(edited.body['reply_markup']).toBeUndefined();
  });

  it('asks a held call again after a restart instead of dropping it; the approval lets the turn carry on', async () => {
    const telegram = await startFakeTelegram({ token: TOKEN });
    cleanups.push(() => telegram.close());
    const home = makeHome(config(telegram.apiRoot));
    const exec = { toolCalls: [{ name: 'exec', arguments: { command: 'touch after-restart.txt' } }] };
    const first = await start({ telegram, home, model: new ScriptedModel().script(exec) });
    telegram.pushMessage({ from: OWNER, text: 'make the file' });
    await waitFor(() => first.app.gate.approvals.pending().length === 1);
    const asked = first.app.gate.approvals.pending()[0]!;
    await first.close();
    // The next start asks again in the same chat, with the same id, and runs the call once approved.
    const second = await start({
      telegram,
      home,
      model: new ScriptedModel().script(exec, { text: 'Made it after all.' }),
    });
    const question = await telegram.waitFor(
      (call) =>
        call.method === 'sendMessage' &&
        String(call.body['text']).startsWith('Approval needed') &&
        call.at >
          (telegram.sent().find((item) => String(item.body['text']).startsWith('Approval needed'))?.at ?? 0),
    );
    expect(String(question.body['text'])).toContain('touch after-restart.txt');
    expect(second.app.gate.approvals.pending().map((request) => request.id)).toEqual([asked.id]);
    telegram.pushButton(OWNER, approvalButtonData(asked, 'once'));
    await waitFor(() => textsTo(telegram, OWNER).includes('Made it after all.'));
    expect(existsSync(join(second.app.config().workspace, 'after-restart.txt'))).toBe(true);
    expect(second.app.gate.approvals.pending()).toEqual([]);
  });

  it('delivers a reminder set from Telegram to Telegram', async () => {
    const { app, telegram, model } = await start();
    model.script(
      {
        toolCalls: [
          { name: 'reminder', arguments: { action: 'add', text: 'stretch your legs', when: 'in 1s' } },
        ],
      },
      { text: 'I will remind you.' },
    );
    telegram.pushMessage({ from: OWNER, text: 'remind me in a second to stretch' });
    await waitFor(() => textsTo(telegram, OWNER).includes('I will remind you.'));
    const [reminder] = app.proactive.reminders.list('all');
    expect(reminder?.deliverTo).toEqual([`telegram:${OWNER}`]);
    // The reminder itself, not the progress line of the tool call that set it.
    await waitFor(
      () =>
        textsTo(telegram, OWNER).some((text) => text.includes('stretch your legs') && !/^[⏳✓✗]/.test(text)),
      15_000,
    );
  });

  it('shows a Telegram conversation live on the gateway’s event stream', async () => {
    const { app, telegram, model } = await start();
    const served = await app.serve({ version: 't', port: 0 });
    const controller = new AbortController();
    cleanups.push(async () => controller.abort());
    const response = await fetch(`${served.url}/api/events`, {
      headers: { authorization: `Bearer ${served.generatedToken}` },
      signal: controller.signal,
    });
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let seen = '';
    const until = async (text: string) => {
      while (!seen.includes(text)) seen += (await reader.read()).value ?? '';
    };
    await until('event: ready');
    model.script({ text: 'hello from the model' });
    telegram.pushMessage({ from: OWNER, text: 'hi' });
    await until('"phase":"end"');
    const activity = seen
      .split('\n\n')
      .filter((block) => block.includes('event: activity'))
      .map((block) => JSON.parse(block.slice(block.indexOf('data: ') + 6)) as Record<string, string>);
    expect(activity.map((event) => event['phase'])).toEqual(['start', 'end']);
    expect(activity[0]).toMatchObject({ channel: 'telegram', chat: String(OWNER) });
    const messages = await fetch(`${served.url}/api/sessions/${activity[0]!['session']}/messages`, {
      headers: { authorization: `Bearer ${served.generatedToken}` },
    }).then((answer) => answer.json() as Promise<{ messages: Array<{ message: { role: string } }> }>);
    expect(messages.messages.map((stored) => stored.message.role)).toEqual(['user', 'assistant']);
  });

  it('in a group answers only when mentioned, and strips the mention', async () => {
    const group = -100777;
    const { telegram, model } = await start({ extra: `    groups: [${group}]` });
    telegram.pushMessage({ from: OWNER, chat: group, chatType: 'supergroup', text: 'chatting among us' });
    const text = `@${BOT.username} what time is it`;
    telegram.pushMessage({
      from: OWNER,
      chat: group,
      chatType: 'supergroup',
      text,
      entities: [{ type: 'mention', offset: 0, length: BOT.username.length + 1 }],
    });
    await waitFor(() => textsTo(telegram, group).length === 1);
    expect(model.requests).toHaveLength(1);
    expect(JSON.stringify(model.requests[0]!.messages.at(-1))).toContain('what time is it');
    expect(JSON.stringify(model.requests[0]!.messages)).not.toContain('chatting among us');
  });

  it('turns a voice note into words through the configured transcription endpoint', async () => {
    const uploads: Array<{ type: string; bytes: number }> = [];
    const whisper = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        uploads.push({ type: request.headers['content-type'] ?? '', bytes: Buffer.concat(chunks).length });
        if (
          request.url !== '/v1/audio/transcriptions' ||
          request.headers.authorization !== 'Bearer sk-whisper'
        ) {
          response.writeHead(401).end('{}');
          return;
        }
        response
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ text: 'buy oat milk' }));
      });
    });
    await new Promise<void>((resolve) => whisper.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => whisper.close(() => resolve())));
    const port = (whisper.address() as AddressInfo).port;
    const telegram = await startFakeTelegram({ token: TOKEN });
    cleanups.push(() => telegram.close());
    const home = makeHome(
      `${config(telegram.apiRoot)}\n  transcription:\n    base_url: http://127.0.0.1:${port}/v1\n    api_key: sk-whisper\n`,
    );
    const { model } = await start({ telegram, home });
    telegram.addFile('voice1', Buffer.from('OggS fake opus bytes'));
    telegram.pushMessage({ from: OWNER, voice: { fileId: 'voice1', seconds: 3, size: 20 } });
    await waitFor(() => model.requests.length === 1);
    expect(JSON.stringify(model.requests[0]!.messages.at(-1))).toContain(
      '[a 3 s voice message, transcribed] buy oat milk',
    );
    expect(uploads[0]!.type).toContain('multipart/form-data');
  });

  it('delivers a workspace file the model sends as an attachment', async () => {
    const { app, telegram, model } = await start();
    writeFileSync(join(app.config().workspace, 'report.md'), '# Weekly report\nAll good.');
    model.script(
      { toolCalls: [{ name: 'send_file', arguments: { path: 'report.md', caption: 'here it is' } }] },
      { text: 'Sent.' },
    );
    telegram.pushMessage({ from: OWNER, text: 'send me the report' });
    const upload = await telegram.waitFor((call) => call.method === 'sendDocument');
    expect(Number(upload.body['chat_id'])).toBe(OWNER);
    expect(upload.bytes).toBeGreaterThan('# Weekly report'.length);
    await waitFor(() => textsTo(telegram, OWNER).includes('Sent.'));
  });

  it('saves a sent document to the workspace inbox and tells the model where', async () => {
    const { app, telegram, model } = await start();
    telegram.addFile('doc1', Buffer.from('quarterly numbers'));
    telegram.pushMessage({
      from: OWNER,
      caption: 'look at this',
      document: { fileId: 'doc1', name: '../../report.txt', size: 17 },
    });
    await waitFor(() => model.requests.length === 1);
    const last = JSON.stringify(model.requests[0]!.messages.at(-1));
    const saved = /inbox\/[\w.-]+report\.txt/.exec(last)?.[0];
    expect(saved).toBeDefined();
    expect(readFileSync(join(app.config().workspace, saved!), 'utf8')).toBe('quarterly numbers');
  });

  it('webhook mode: registers the URL with a secret and takes only updates that carry it', async () => {
    const secret = 'webhook-secret-0123456789';
    const { app, telegram, model } = await start({
      extra: [
        '    mode: webhook',
        '    webhook:',
        '      url: https://wren.example/telegram/hook',
        `      secret: ${secret}`,
        '      listen: 127.0.0.1:0',
      ].join('\n'),
    });
    const registered = await telegram.waitFor((call) => call.method === 'setWebhook');
    expect(registered.body).toMatchObject({
      url: 'https://wren.example/telegram/hook',
      secret_token: secret,
    });
    expect(telegram.sent('getUpdates')).toHaveLength(0);
    const port = (app.channels.get('telegram') as TelegramChannel).webhookPort();
    const update = (id: number, text: string) => ({
      update_id: id,
      message: {
        message_id: id,
        date: 0,
        chat: { id: OWNER, type: 'private' },
        from: { id: OWNER, is_bot: false, first_name: 'Owner' },
        text,
      },
    });
    const post = (body: unknown, headers: Record<string, string>) =>
      fetch(`http://127.0.0.1:${port}/telegram/hook`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
    expect((await post(update(1, 'forged, no secret'), {})).status).toBe(401);
    expect(
      (await post(update(2, 'forged, wrong secret'), { 'x-telegram-bot-api-secret-token': 'nope' })).status,
    ).toBe(401);
    model.script({ text: 'hooked' });
    expect((await post(update(3, 'real'), { 'x-telegram-bot-api-secret-token': secret })).status).toBe(200);
    await waitFor(() => textsTo(telegram, OWNER).includes('hooked'));
    expect(model.requests).toHaveLength(1);
    expect(JSON.stringify(model.requests[0]!.messages)).not.toContain('forged');
  });

  it('fails (and says why) when Telegram refuses the token, without stopping the app', async () => {
    const telegram = await startFakeTelegram({ token: '999:other-token' });
    cleanups.push(() => telegram.close());
    const home = makeHome(config(telegram.apiRoot));
    const app = await createApp({
      home,
      model: new ScriptedModel(),
      probeLocalModels: false,
      channels: true,
      env: { PATH: process.env['PATH'], TELEGRAM_BOT_TOKEN: TOKEN },
    });
    cleanups.push(() => app.close(1000));
    await waitFor(() => telegramState(app) === 'failed');
    const status = app.channels.status().find((item) => item.name === 'telegram')!;
    expect(status.detail).toContain('refused the bot token');
    expect(JSON.stringify(app.status('t'))).not.toContain(TOKEN);
  });
});
