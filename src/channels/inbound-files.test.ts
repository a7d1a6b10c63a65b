import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { MessageBus } from '../bus/message-bus.js';
import type { InboundMessage } from '../bus/messages.js';
import { ChannelRepository } from '../store/channel-repository.js';
import { openDatabase } from '../store/open-database.js';
import { channelAccessShape, toChannelAccess } from './channel-access.js';
import { readCapped } from './fetch-capped.js';
import type { PlatformFile } from './inbound-files.js';
import { PlatformChannel, type PlatformMessage } from './platform-channel.js';

class FakeChannel extends PlatformChannel {
  protected readonly textLimit = 1000;
  readonly sent: Array<{ chatId: string; text: string }> = [];
  async start(): Promise<void> {}
  async stop(): Promise<void> {}
  protected async sendText(chatId: string, text: string): Promise<void> {
    this.sent.push({ chatId, text });
  }
  deliver(message: PlatformMessage) {
    return this.receive(message);
  }
}

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
const accessSchema = z.strictObject(channelAccessShape('fake', { pattern: /^\d+$/, explain: 'digits' }));
const closers: Array<() => void> = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

function setup(section: Record<string, unknown>, maxFileBytes = 1000) {
  const workspace = mkdtempSync(join(tmpdir(), 'wren-files-'));
  const db = openDatabase(join(workspace, 'wren.db'));
  closers.push(() => db.close());
  const bus = new MessageBus();
  const published: InboundMessage[] = [];
  bus.publishInbound = (inbound) => void published.push(inbound);
  const channel = new FakeChannel({
    name: 'fake',
    bus,
    access: () => toChannelAccess(accessSchema.parse(section)),
    ledger: new ChannelRepository(db),
    workspace: () => workspace,
    maxFileBytes: () => maxFileBytes,
    clock: () => 1_000_000,
  });
  /** Every download a file's `download` was asked for, by name. */
  const downloads: string[] = [];
  const file = (name: string, bytes: Buffer, extra: Partial<PlatformFile> = {}): PlatformFile => ({
    kind: 'file',
    name,
    size: bytes.length,
    download: async (maxBytes) => {
      downloads.push(name);
      // Served in small chunks, as a network body would be, through the same capped reader.
      return readCapped(
        (async function* () {
          for (let at = 0; at < bytes.length; at += 64) yield bytes.subarray(at, at + 64);
        })(),
        maxBytes,
      );
    },
    ...extra,
  });
  const inbox = () => (existsSync(join(workspace, 'inbox')) ? readdirSync(join(workspace, 'inbox')) : []);
  const message = (senderId: string, id: string, files: PlatformFile[], text = ''): PlatformMessage => ({
    platformId: id,
    senderId,
    chatId: senderId,
    text,
    files,
  });
  return { channel, published, downloads, file, inbox, message, workspace };
}

describe('files that come with platform messages', () => {
  it('never downloads a stranger’s file, with or without pairing, and nothing lands in the inbox', async () => {
    for (const pairing of [false, true]) {
      const { channel, downloads, file, inbox, message } = setup({ owner: ['1'], pairing });
      const planted = [file('run-me.sh', Buffer.from('#!/bin/sh\nrm -rf ~')), file('p.png', PNG)];
      expect(await channel.deliver(message('666', 'a', planted, 'hi'))).toBe('blocked');
      expect(await channel.deliver(message('667', 'b', planted))).toBe('blocked');
      expect(downloads).toEqual([]);
      expect(inbox()).toEqual([]);
    }
  });

  it('downloads an allowed sender’s files only within their rate: a flood past the limit is not fetched', async () => {
    const { channel, downloads, file, inbox, message, published } = setup({
      owner: ['1'],
      allow_from: ['2'],
      rate_limit: 3,
    });
    const results = [];
    for (let index = 0; index < 12; index++)
      results.push(
        await channel.deliver(message('2', `m${index}`, [file(`f${index}.txt`, Buffer.from('x'))])),
      );
    expect(results.filter((result) => result === 'accepted')).toHaveLength(3);
    expect(results.filter((result) => result === 'limited')).toHaveLength(9);
    expect(downloads).toEqual(['f0.txt', 'f1.txt', 'f2.txt']);
    expect(inbox()).toHaveLength(3);
    expect(published).toHaveLength(3);
  });

  it('refuses a file declared over the cap without fetching it, and tells the sender', async () => {
    const { channel, downloads, file, inbox, message, published } = setup({ owner: ['1'] });
    const big = file('huge.iso', Buffer.alloc(10), { size: 5 * 1024 * 1024 * 1024 });
    expect(await channel.deliver(message('1', 'x', [big]))).toBe('too_large');
    expect(downloads).toEqual([]);
    expect(inbox()).toEqual([]);
    expect(published).toEqual([]);
    expect(channel.sent.map((item) => item.text)).toEqual([
      '"huge.iso" is over the 1 KB limit for files, so Wren did not download it.',
    ]);
    // A message without files (a sticker, say) is not "nothing but refused files".
    expect(await channel.deliver(message('1', 'z', []))).toBe('accepted');
    published.splice(0);
    // With words beside it the turn goes on, and the model is told the file was not taken.
    expect(await channel.deliver(message('1', 'y', [big], 'what about this?'))).toBe('accepted');
    expect(published[0]!.text).toContain(
      '[file huge.iso (5368709120 bytes) is over the size limit; not downloaded]',
    );
    expect(downloads).toEqual([]);
  });

  it('stops reading a file whose size the platform did not declare at the cap, saving nothing', async () => {
    const { channel, downloads, file, inbox, message, published } = setup({ owner: ['1'] }, 1000);
    const undeclared = file('stream.bin', Buffer.alloc(50_000, 1), { size: undefined });
    expect(await channel.deliver(message('1', 'u', [undeclared]))).toBe('too_large');
    expect(downloads).toEqual(['stream.bin']);
    expect(inbox()).toEqual([]);
    expect(published).toEqual([]);
    expect(channel.sent[0]!.text).toContain('"stream.bin" is over the');
  });

  it('passes a real image to the model, saves everything else (a fake "image" too) under a safe name', async () => {
    const { channel, file, message, published, workspace } = setup({ owner: ['1'] });
    const files = [
      file('photo.png', PNG, { kind: 'image' }),
      file('../../.bashrc', Buffer.from('not a png'), { kind: 'image' }),
    ];
    expect(await channel.deliver(message('1', 'i', files, 'look'))).toBe('accepted');
    expect(published[0]!.media).toEqual([
      { type: 'image', mediaType: 'image/png', data: PNG.toString('base64') },
    ]);
    const saved = /inbox\/[\w.-]+/.exec(published[0]!.text)![0];
    expect(saved).toMatch(/^inbox\/\d{4}-\d\d-\d\d-bashrc$/);
    expect(readFileSync(join(workspace, saved), 'utf8')).toBe('not a png');
  });

  it('does not download a voice message when nothing could transcribe it', async () => {
    const { channel, downloads, file, message, published } = setup({ owner: ['1'] });
    const voice = file('v.ogg', Buffer.from('OggS'), { kind: 'voice', describe: 'a 2 s voice message' });
    expect(await channel.deliver(message('1', 'v', [voice]))).toBe('accepted');
    expect(downloads).toEqual([]);
    expect(published[0]!.text).toContain('[a 2 s voice message; no transcription is configured');
  });
});
