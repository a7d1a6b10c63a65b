import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { WrenApp } from '../../src/app/create-app.js';
import type { Channel } from '../../src/channels/channel.js';
import { collectChecks } from '../../src/cli/commands/doctor.js';
import { FakeWhatsApp } from '../fakes/fake-whatsapp.js';
import { askedText, echo, startChannelApp } from '../support/channel-app.js';
import { ScriptedModel } from '../support/scripted-model.js';
import { makeHome, waitFor } from '../support/wren-home.js';

/** Wren's own number (a second SIM), the owner's, a stranger's, and a group Wren may answer in. */
const ACCOUNT = '4915199999999';
const OWNER = '4915112345678';
const STRANGER = '4917600000666';
const GROUP = '120363012345678901@g.us';
const OTHER_GROUP = '120363099999999999@g.us';
const jid = (number: string) => `${number}@s.whatsapp.net`;

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function config(extra: string[] = [], owner = OWNER) {
  return [
    'gate:',
    '  mode: ask',
    'channels:',
    '  whatsapp:',
    `    owner: ["+${owner}"]`,
    `    groups: ["${GROUP}"]`,
    ...extra.map((line) => `    ${line}`),
  ].join('\n');
}

let ids = 0;
/** A message as Baileys hands it over in `messages.upsert`. */
function message(
  from: string,
  content: Record<string, unknown>,
  options: { group?: string; fromMe?: boolean; id?: string; lid?: boolean; pushName?: string } = {},
) {
  const id = options.id ?? `MSG${++ids}`;
  const key = options.group
    ? { remoteJid: options.group, participant: jid(from), fromMe: options.fromMe ?? false, id }
    : options.lid
      ? { remoteJid: `77${from.slice(-6)}@lid`, remoteJidAlt: jid(from), fromMe: options.fromMe ?? false, id }
      : { remoteJid: jid(from), fromMe: options.fromMe ?? false, id };
  return { key, message: content, pushName: options.pushName ?? 'Someone', messageTimestamp: 1 };
}
const text = (from: string, words: string, options?: Parameters<typeof message>[2]) =>
  message(from, { conversation: words }, options);

function channelOf(app: WrenApp): Channel {
  const channel = app.channels.get('whatsapp');
  if (!channel) throw new Error('no whatsapp channel');
  return channel;
}
const state = (app: WrenApp) => channelOf(app).status().state;

async function start(
  options: {
    home?: string;
    extra?: string[];
    model?: ScriptedModel;
    driver?: FakeWhatsApp;
    owner?: string;
  } = {},
) {
  const home = options.home ?? makeHome(config(options.extra, options.owner));
  const model = options.model ?? new ScriptedModel();
  const whatsapp = options.driver ?? new FakeWhatsApp();
  // A socket with a stored session logs in at once, as WhatsApp lets a linked device do.
  whatsapp.onConnect = (socket) => {
    const me = (socket.auth.creds as { me?: { id: string } }).me?.id;
    if (me && (socket.auth.creds as { account?: unknown }).account) socket.open(me.split(':')[0]!);
  };
  const { app, close } = await startChannelApp({ home, model, cleanups, platformDrivers: { whatsapp } });
  await waitFor(
    () => app.channels.get('whatsapp') !== undefined && ['logged-out', 'connected'].includes(state(app)),
  );
  return { app, whatsapp, model, home, close };
}

/** Links by QR as the owner would: ask, the QR appears, the phone scans it, the device logs in. */
async function linked(options: Parameters<typeof start>[0] = {}) {
  const started = await start(options);
  const { app, whatsapp } = started;
  if (state(app) === 'connected') return started;
  await channelOf(app).link!({ method: 'qr' });
  await waitFor(() => whatsapp.sockets.length > 0);
  whatsapp.socket.qr('2@qr-payload,abc');
  await waitFor(() => channelOf(app).status().link?.qr === '2@qr-payload,abc');
  whatsapp.socket.scanned(ACCOUNT);
  await waitFor(() => state(app) === 'connected');
  return started;
}

const asked = askedText;

/** The owner's next message answered: messages are handled in order, so everything before it was too. */
async function answeredAfter(whatsapp: FakeWhatsApp, model: ScriptedModel, word = 'after') {
  model.script(echo);
  whatsapp.socket.deliver([text(OWNER, word)]);
  await waitFor(() => whatsapp.socket.textsTo(jid(OWNER)).includes(`re: ${word}`));
}

describe('WhatsApp linking (through Baileys’ socket interface)', () => {
  it('waits unlinked, shows each QR as it rotates, and after the scan connects with the session kept encrypted', async () => {
    const { app, whatsapp, home, close } = await start();
    expect(channelOf(app).status()).toMatchObject({
      state: 'logged-out',
      detail: expect.stringMatching(/not linked yet.*wren channels link whatsapp/),
    });
    // Nothing connects (and no QR is made) until the owner asks.
    expect(whatsapp.sockets).toHaveLength(0);
    await channelOf(app).link!({ method: 'qr' });
    await waitFor(() => whatsapp.sockets.length === 1);
    whatsapp.socket.qr('2@first,abc');
    await waitFor(() => channelOf(app).status().link?.qr === '2@first,abc');
    expect(channelOf(app).status()).toMatchObject({
      state: 'linking',
      link: { expiresAt: expect.any(Number) },
    });
    whatsapp.socket.qr('2@second,def');
    await waitFor(() => channelOf(app).status().link?.qr === '2@second,def');
    whatsapp.socket.scanned(ACCOUNT);
    await waitFor(() => state(app) === 'connected');
    expect(whatsapp.sockets).toHaveLength(2);
    expect(channelOf(app).status().link).toBeUndefined();

    // The session is in wren.db, every row sealed: no key material or number in the clear.
    const db = new Database(join(home, 'wren.db'), { readonly: true });
    const rows = db
      .prepare("SELECT key, value FROM channel_cursors WHERE channel = 'whatsapp'")
      .all() as Array<{ key: string; value: string }>;
    db.close();
    expect(rows.map((row) => row.key)).toContain('auth:creds');
    for (const row of rows) {
      expect(row.value).toMatch(/^v1:[A-Za-z0-9+/=]+$/);
      expect(row.value).not.toContain(ACCOUNT);
    }
    expect(readFileSync(join(home, '.env'), 'utf8')).toMatch(/^WREN_SECRET_KEY=[\w-]{43}$/m);

    // After a restart the stored session logs in without linking again.
    await close();
    const again = await start({ home });
    await waitFor(() => state(again.app) === 'connected');
    expect((again.whatsapp.socket.auth.creds.me as { id: string }).id).toBe(`${ACCOUNT}:7@s.whatsapp.net`);
  });

  it('links by pairing code for a phone number, and says so when WhatsApp refuses one', async () => {
    const { app, whatsapp } = await start();
    await channelOf(app).link!({ method: 'code', phone: ACCOUNT });
    await waitFor(() => whatsapp.sockets.length === 1);
    whatsapp.socket.qr('2@ignored');
    await waitFor(() => channelOf(app).status().link?.code === 'WREN2468');
    expect(whatsapp.socket.pairingRequests).toEqual([ACCOUNT]);
    expect(channelOf(app).status().link?.qr).toBeUndefined();
    // Another request replaces it; this time WhatsApp refuses the number.
    await channelOf(app).link!({ method: 'code', phone: '4900000' });
    await waitFor(() => whatsapp.sockets.length === 2);
    whatsapp.socket.pairingCode = Object.assign(new Error('bad-request'), { output: { statusCode: 400 } });
    whatsapp.socket.qr('2@again');
    await waitFor(() => state(app) === 'logged-out');
    expect(channelOf(app).status().detail).toMatch(/gave no pairing code for \+4900000.*link by QR code/);
    await expect(channelOf(app).link!({ method: 'code', phone: '12' })).rejects.toThrow(/7 to 15 digits/);
  });

  it('shows logged-out when the phone removes the device, forgets the session, and links again', async () => {
    const { app, whatsapp, home } = await linked();
    whatsapp.socket.close(401, 'Connection Failure');
    await waitFor(() => state(app) === 'logged-out');
    expect(channelOf(app).status().detail).toMatch(/logged this device out.*wren channels link whatsapp/);
    const db = new Database(join(home, 'wren.db'), { readonly: true });
    expect(db.prepare("SELECT count(*) AS n FROM channel_cursors WHERE key LIKE 'auth:%'").get()).toEqual({
      n: 0,
    });
    db.close();
    await channelOf(app).link!({ method: 'qr' });
    await waitFor(() => whatsapp.sockets.length === 3);
    whatsapp.socket.scanned(ACCOUNT);
    await waitFor(() => state(app) === 'connected');
  });

  it('reconnects with backoff after a dropped connection and keeps answering', async () => {
    const { app, whatsapp, model } = await linked();
    const before = whatsapp.sockets.length;
    whatsapp.socket.close(428);
    await waitFor(() => state(app) === 'reconnecting');
    expect(channelOf(app).status().detail).toMatch(/Connection Closed \(428\)/);
    await waitFor(() => whatsapp.sockets.length === before + 1 && state(app) === 'connected', 20_000);
    await answeredAfter(whatsapp, model, 'still there?');
  }, 30_000);

  it('unlinks on request: logs the device out on WhatsApp and forgets the session', async () => {
    const { app, whatsapp } = await linked();
    const socket = whatsapp.socket;
    await channelOf(app).unlink!();
    expect(socket.logouts).toBe(1);
    expect(channelOf(app).status()).toMatchObject({
      state: 'logged-out',
      detail: expect.stringMatching(/unlinked by the owner/),
    });
    await expect(channelOf(app).link!({ method: 'qr' })).resolves.toBeUndefined();
  });

  it('opens nothing with another WREN_SECRET_KEY: the session reads as unlinked instead of crashing', async () => {
    const { home, close } = await linked();
    await close();
    const env = readFileSync(join(home, '.env'), 'utf8');
    writeFileSync(
      join(home, '.env'),
      env.replace(/WREN_SECRET_KEY=.*/, `WREN_SECRET_KEY=${Buffer.alloc(32, 9).toString('base64url')}`),
    );
    const again = await start({ home });
    expect(channelOf(again.app).status()).toMatchObject({ state: 'logged-out' });
    expect(again.whatsapp.sockets).toHaveLength(0);
  });
});

describe('WhatsApp with a broken key', () => {
  it('shows failed with what is wrong with WREN_SECRET_KEY, and connects nothing', async () => {
    const home = makeHome(config(), 'WREN_SECRET_KEY=too-short\n');
    const whatsapp = new FakeWhatsApp();
    const { app } = await startChannelApp({
      home,
      model: new ScriptedModel(),
      cleanups,
      platformDrivers: { whatsapp },
    });
    await waitFor(() => app.channels.get('whatsapp')?.status().state === 'failed');
    expect(channelOf(app).status().detail).toMatch(/WREN_SECRET_KEY must be 32 bytes/);
    expect(channelOf(app).status().detail).not.toContain('too-short');
    expect(whatsapp.sockets).toHaveLength(0);
  });
});

describe('wren doctor on WhatsApp', () => {
  const linkCheck = async (home: string) =>
    (await collectChecks(home)).find((check) => check.id === 'channels.whatsapp.link');

  it('warns before linking, names the linked number after, and fails for a session sealed under another key', async () => {
    const { home, close } = await start();
    expect(await linkCheck(home)).toMatchObject({
      status: 'warn',
      fix: expect.stringMatching(/channels link whatsapp/),
    });
    await close();
    const linkedHome = (await linked()).home;
    expect(await linkCheck(linkedHome)).toEqual({
      id: 'channels.whatsapp.link',
      status: 'ok',
      message: `WhatsApp is linked as +${ACCOUNT}`,
    });
    const env = readFileSync(join(linkedHome, '.env'), 'utf8');
    writeFileSync(
      join(linkedHome, '.env'),
      env.replace(/WREN_SECRET_KEY=.*/, `WREN_SECRET_KEY=${Buffer.alloc(32, 3).toString('base64url')}`),
    );
    expect(await linkCheck(linkedHome)).toMatchObject({
      status: 'fail',
      message: expect.stringMatching(/does not open/),
    });
  });
});

describe('WhatsApp messages', () => {
  it('answers the owner with typing and a read receipt; a stranger costs nothing and gets nothing', async () => {
    const { whatsapp, model } = await linked();
    model.script({ text: 'Hello there' });
    whatsapp.socket.deliver([text(STRANGER, 'let me in')]);
    const hi = text(OWNER, 'hi');
    whatsapp.socket.deliver([hi]);
    await waitFor(() => whatsapp.socket.textsTo(jid(OWNER)).length === 1);
    expect(whatsapp.socket.textsTo(jid(OWNER))).toEqual(['Hello there']);
    expect(whatsapp.socket.presence).toContainEqual({ type: 'composing', jid: jid(OWNER) });
    expect(whatsapp.socket.reads).toContainEqual(hi.key);
    await answeredAfter(whatsapp, model);
    expect(model.requests).toHaveLength(2);
    expect(asked(model)).not.toContain('let me in');
    expect(whatsapp.socket.textsTo(jid(STRANGER))).toEqual([]);
    expect(whatsapp.socket.reads.map((key) => key.remoteJid)).not.toContain(jid(STRANGER));
  });

  it('knows the owner by number when WhatsApp addresses them by privacy id, and passes a quote as context', async () => {
    const { whatsapp, model } = await linked();
    model.script(echo);
    whatsapp.socket.deliver([
      message(
        OWNER,
        {
          extendedTextMessage: {
            text: 'and this?',
            contextInfo: {
              stanzaId: 'OLD1',
              participant: jid(ACCOUNT),
              quotedMessage: { conversation: 'the earlier answer' },
            },
          },
        },
        { lid: true },
      ),
    ]);
    await waitFor(() => whatsapp.socket.textsTo(jid(OWNER)).includes('re: and this?'));
    expect(asked(model)).toContain('[replying to: the earlier answer]');
  });

  it('offers a stranger a pairing code when pairing is on, still at zero model cost', async () => {
    const { whatsapp, model } = await linked({ extra: ['pairing: true'] });
    whatsapp.socket.deliver([text(STRANGER, 'let me in', { pushName: 'Eve' })]);
    await waitFor(() => whatsapp.socket.textsTo(jid(OWNER)).some((said) => said.includes('pairing code')));
    const offer = whatsapp.socket.textsTo(jid(STRANGER))[0]!;
    const code = /pairing code is ([A-Z0-9]{8})/.exec(offer)![1]!;
    expect(whatsapp.socket.textsTo(jid(OWNER))[0]).toContain(code);
    expect(model.requests).toHaveLength(0);
  });

  it('answers in a listed group only when @mentioned or replied to, never in another group', async () => {
    const { whatsapp, model } = await linked();
    const mention = (words: string, group: string) =>
      message(
        OWNER,
        {
          extendedTextMessage: {
            text: `@${ACCOUNT} ${words}`,
            contextInfo: { mentionedJid: [jid(ACCOUNT)] },
          },
        },
        { group },
      );
    whatsapp.socket.deliver([
      text(OWNER, 'just chatting', { group: GROUP }),
      mention('hello other', OTHER_GROUP),
    ]);
    model.script(echo, echo);
    whatsapp.socket.deliver([mention('what time is it', GROUP)]);
    await waitFor(() => whatsapp.socket.textsTo(GROUP).length === 1);
    expect(whatsapp.socket.textsTo(GROUP)).toEqual(['re: what time is it']);
    // A reply to Wren's message in the group counts as addressing it.
    const wrens = whatsapp.socket.sent.find((sent) => sent.jid === GROUP)!.options!.messageId!;
    whatsapp.socket.deliver([
      message(
        STRANGER,
        {
          extendedTextMessage: {
            text: 'me too',
            contextInfo: { stanzaId: wrens, participant: jid(ACCOUNT) },
          },
        },
        { group: GROUP },
      ),
      message(
        OWNER,
        {
          extendedTextMessage: {
            text: 'thanks',
            contextInfo: {
              stanzaId: wrens,
              participant: jid(ACCOUNT),
              quotedMessage: { conversation: 're: what time is it' },
            },
          },
        },
        { group: GROUP },
      ),
    ]);
    await waitFor(() => whatsapp.socket.textsTo(GROUP).length === 2);
    await answeredAfter(whatsapp, model);
    expect(whatsapp.socket.textsTo(OTHER_GROUP)).toEqual([]);
    expect(asked(model)).not.toContain('just chatting');
    expect(asked(model)).not.toContain('hello other');
    expect(asked(model)).not.toContain('me too');
  });

  it('takes "Message yourself" as the owner’s chat when Wren runs on the owner’s own number, never looping on its replies', async () => {
    const { whatsapp, model } = await linked({ owner: ACCOUNT });
    model.script(echo, echo);
    // The owner writing to a friend from their phone is none of Wren's business.
    whatsapp.socket.deliver([text(STRANGER, 'see you at 8', { fromMe: true })]);
    whatsapp.socket.deliver([text(ACCOUNT, 'remind me of milk', { fromMe: true })]);
    await waitFor(() => whatsapp.socket.textsTo(jid(ACCOUNT)).includes('re: remind me of milk'));
    // WhatsApp shows Wren's reply in the same chat, from the same account: it is not input.
    const reply = whatsapp.socket.sent.at(-1)!;
    whatsapp.socket.deliver([
      text(ACCOUNT, 're: remind me of milk', { fromMe: true, id: reply.options!.messageId! }),
    ]);
    whatsapp.socket.deliver([text(ACCOUNT, 'and eggs', { fromMe: true })]);
    await waitFor(() => whatsapp.socket.textsTo(jid(ACCOUNT)).includes('re: and eggs'));
    expect(model.requests).toHaveLength(2);
    expect(asked(model)).not.toContain('see you at 8');
    expect(whatsapp.socket.textsTo(jid(STRANGER))).toEqual([]);
  });

  it('asks a held exec with numbers: a stranger’s "1" changes nothing, the owner’s approves and the turn finishes', async () => {
    const { app, whatsapp, model } = await linked();
    model.script(
      { toolCalls: [{ name: 'exec', arguments: { command: 'touch from-whatsapp.txt' } }] },
      { text: 'Done.' },
    );
    whatsapp.socket.deliver([text(OWNER, 'make the file')]);
    await waitFor(() => whatsapp.socket.textsTo(jid(OWNER)).some((said) => said.includes('Approval needed')));
    const question = whatsapp.socket.textsTo(jid(OWNER)).find((said) => said.includes('Approval needed'))!;
    expect(question).toContain('touch from-whatsapp.txt');
    expect(question).toMatch(/Reply with a number: 1 = Allow once · 2 = /);
    whatsapp.socket.deliver([text(STRANGER, '1')]);
    whatsapp.socket.deliver([text(OWNER, '1')]);
    await waitFor(() => whatsapp.socket.textsTo(jid(OWNER)).includes('Done.'));
    expect(existsSync(join(app.config().workspace, 'from-whatsapp.txt'))).toBe(true);
    expect(app.gate.approvals.pending()).toHaveLength(0);
    expect(model.requests).toHaveLength(2);
  });

  it('passes an image to the model, saves a document into the inbox, and describes a voice note', async () => {
    const { app, whatsapp, model } = await linked();
    const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001', 'hex');
    whatsapp.media.set('IMG1', png);
    whatsapp.media.set('DOC1', Buffer.from('quarterly plan'));
    whatsapp.media.set('VOICE1', Buffer.from('OggS-voice'));
    whatsapp.media.set('SPAM1', Buffer.from('nope'));
    whatsapp.socket.deliver([
      message(STRANGER, { imageMessage: { mimetype: 'image/png', fileLength: 4 } }, { id: 'SPAM1' }),
      message(
        OWNER,
        { imageMessage: { caption: 'what is this?', mimetype: 'image/png', fileLength: png.length } },
        { id: 'IMG1' },
      ),
      message(
        OWNER,
        {
          documentWithCaptionMessage: {
            message: { documentMessage: { fileName: 'plan.txt', mimetype: 'text/plain', fileLength: 14 } },
          },
        },
        { id: 'DOC1' },
      ),
      message(
        OWNER,
        { audioMessage: { ptt: true, seconds: 3, mimetype: 'audio/ogg; codecs=opus', fileLength: 10 } },
        { id: 'VOICE1' },
      ),
    ]);
    await waitFor(() => model.requests.length === 3);
    const parts = model.requests[0]!.messages.at(-1)!.content;
    expect(Array.isArray(parts) ? parts : []).toContainEqual(
      expect.objectContaining({ type: 'image', mediaType: 'image/png', data: png.toString('base64') }),
    );
    expect(JSON.stringify(parts)).toContain('what is this?');
    const saved = /inbox\/[\w.-]*plan\.txt/.exec(JSON.stringify(model.requests[1]!.messages.at(-1)))?.[0];
    expect(readFileSync(join(app.config().workspace, saved!), 'utf8')).toBe('quarterly plan');
    expect(JSON.stringify(model.requests[2]!.messages.at(-1))).toContain('a 3 s WhatsApp voice note');
    // The stranger's picture was never fetched; the voice note neither (no transcription configured).
    expect(whatsapp.downloads).toBe(2);
  });

  it('sends a file the model sends: a picture as an image, anything else as a named document', async () => {
    const { app, whatsapp, model } = await linked();
    writeFileSync(join(app.config().workspace, 'notes.txt'), 'the notes');
    model.script({ toolCalls: [{ name: 'send_file', arguments: { path: 'notes.txt' } }] }, { text: 'Sent.' });
    whatsapp.socket.deliver([text(OWNER, 'send the notes')]);
    await waitFor(() => whatsapp.socket.textsTo(jid(OWNER)).includes('Sent.'));
    const document = whatsapp.socket.sent.find((sent) => 'document' in sent.content)!;
    expect(document.jid).toBe(jid(OWNER));
    expect(document.content).toMatchObject({ fileName: 'notes.txt' });
    expect(String((document.content as { document: Buffer }).document)).toBe('the notes');
  });

  it('answers a redelivered message once, also after a restart', async () => {
    const home = makeHome(config());
    const model = new ScriptedModel().script(echo, echo, echo, echo);
    const driver = new FakeWhatsApp();
    const first = await linked({ home, model, driver });
    const once = text(OWNER, 'once please');
    driver.socket.deliver([once]);
    await waitFor(() => driver.socket.textsTo(jid(OWNER)).includes('re: once please'));
    driver.socket.deliver([once]);
    await answeredAfter(driver, model, 'second');
    await first.close();
    await start({ home, model, driver });
    await waitFor(() => driver.socket.user !== undefined);
    // WhatsApp delivers what came while Wren was down, and the old message once more.
    driver.socket.deliver([once, text(OWNER, 'while you were away')]);
    await waitFor(() => driver.socket.textsTo(jid(OWNER)).includes('re: while you were away'));
    const lastLines = model.requests.map((request) => JSON.stringify(request.messages.at(-1)));
    expect(lastLines.filter((said) => said.includes('once please'))).toHaveLength(1);
  });

  it('refuses a 1 MB message with a notice, drops malformed and unknown events, and keeps answering', async () => {
    const { whatsapp, model } = await linked();
    whatsapp.socket.deliver([text(OWNER, 'x'.repeat(1024 * 1024))]);
    await waitFor(() => whatsapp.socket.textsTo(jid(OWNER)).some((said) => said.includes('characters')));
    whatsapp.socket.deliver([
      null,
      {},
      { key: null },
      { key: { remoteJid: jid(OWNER) } },
      { key: { remoteJid: 'status@broadcast', id: 'S1' }, message: { conversation: 'status update' } },
      { key: { remoteJid: jid(OWNER), id: 'P1' }, message: { protocolMessage: { type: 0 } } },
      { key: { remoteJid: jid(OWNER), id: 'R1' }, message: { reactionMessage: { text: '👍' } } },
      { key: { remoteJid: jid(OWNER), id: 'K1' }, message: { senderKeyDistributionMessage: {} } },
      { key: { remoteJid: 'garbage', id: 'G1' }, message: { conversation: 'from nowhere' } },
      { key: { remoteJid: jid(OWNER), id: 'N1' }, message: { conversation: 42 } },
    ]);
    whatsapp.socket.deliver([text(OWNER, 'history')], 'append');
    whatsapp.socket.emit('messages.upsert', { messages: 'nope', type: 'notify' } as never);
    model.script({ text: 'a sticker!' });
    whatsapp.socket.deliver([message(OWNER, { stickerMessage: { mimetype: 'image/webp' } })]);
    await waitFor(() => whatsapp.socket.textsTo(jid(OWNER)).includes('a sticker!'));
    expect(asked(model)).toContain('[a WhatsApp sticker message; Wren reads');
    await answeredAfter(whatsapp, model);
    expect(model.requests).toHaveLength(2);
    for (const word of ['xxxxxxxx', 'status update', 'from nowhere', 'history'])
      expect(asked(model)).not.toContain(word);
  });

  it('processes 100 owner messages sent within a second in order, none lost; a stranger flood is dropped cheaply', async () => {
    const { whatsapp, model } = await linked({ extra: ['rate_limit: 600'] });
    for (let index = 0; index < 300; index++) {
      whatsapp.media.set(`FLOOD${index}`, Buffer.from('x'));
      whatsapp.socket.deliver([
        message(STRANGER, { imageMessage: { mimetype: 'image/png' } }, { id: `FLOOD${index}` }),
      ]);
    }
    model.script(...Array.from({ length: 100 }, () => echo));
    for (let index = 0; index < 100; index++) whatsapp.socket.deliver([text(OWNER, `m${index}`)]);
    await waitFor(() => whatsapp.socket.textsTo(jid(OWNER)).length >= 100, 60_000);
    const taken = asked(model);
    const positions = Array.from({ length: 100 }, (_, index) => taken.indexOf(`m${index}"`));
    expect(positions.every((position) => position >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(model.requests).toHaveLength(100);
    expect(whatsapp.downloads).toBe(0);
    expect(whatsapp.socket.textsTo(jid(STRANGER))).toEqual([]);
  }, 90_000);
});
