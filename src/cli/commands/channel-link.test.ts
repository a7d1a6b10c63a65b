import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { capturedIo } from '../../../test/support/captured-io.js';
import { DeviceChannel, TokenChannel } from '../../../test/support/device-channel.js';
import { MemorySessionStore } from '../../agent/memory-session-store.js';
import { MessageBus } from '../../bus/message-bus.js';
import type { Channel } from '../../channels/channel.js';
import { HttpChannel } from '../../channels/http/http-channel.js';
import { createGateway } from '../../gateway/create-gateway.js';
import { isLocalToken, newGatewayRecord, writeGatewayRecord } from '../../gateway/gateway-file.js';
import { type RunningGateway, serveGateway } from '../../gateway/serve-gateway.js';
import { linkChannel, testChannel, unlinkChannel } from './channel-link.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A home whose gateway.json points at a real gateway serving `channels`; returns the home. */
async function homeWithGateway(channels: Record<string, Channel>): Promise<string> {
  const home = mkdtempSync(join(tmpdir(), 'wren-link-'));
  cleanups.push(() => rmSync(home, { recursive: true, force: true }));
  // The URL is known once the port is bound; the secret and local token are fixed now.
  const record = newGatewayRecord('', '9.9.9');
  const app = createGateway({
    channel: new HttpChannel({ bus: new MessageBus() }),
    sessions: new MemorySessionStore(),
    verifyToken: (presented) => isLocalToken(record, presented),
    status: () => ({ channels: Object.values(channels).map((channel) => channel.status()) }),
    version: '9.9.9',
    startedAt: Date.now(),
    instanceSecret: record.secret,
    channelControls: {
      running: (name) => channels[name],
      known: (name) => ['whatsapp', 'telegram'].includes(name),
      whyNotRunning: (name) => `The ${name} channel is not configured: add channels.${name} to config.yaml.`,
      redact: (text) => text,
    },
    webRoot: false,
  });
  const served: RunningGateway = await serveGateway(app, '127.0.0.1', 0);
  cleanups.push(() => served.close());
  writeGatewayRecord(home, { ...record, url: `http://127.0.0.1:${served.port}` });
  return home;
}

/** Resolves once `check` holds, polling; rejects after a generous deadline (no timing is asserted). */
async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not reached');
    await new Promise((done) => setTimeout(done, 5));
  }
}

describe('wren channels link', () => {
  it('draws each QR code as it rotates and exits 0 once the phone linked', async () => {
    const whatsapp = new DeviceChannel('starting');
    const home = await homeWithGateway({ whatsapp });
    const { out, io } = capturedIo();
    const linking = linkChannel({ home, name: 'whatsapp', io, pollMs: 5 });
    await until(() => whatsapp.requests.length === 1);
    whatsapp.offer({ qr: '2@first-qr,abc,def', expiresAt: Date.now() + 20_000 });
    await until(() => out.stdout.includes('scan this code'));
    whatsapp.offer({ qr: '2@second-qr,ghi,jkl', expiresAt: Date.now() + 20_000 });
    await until(() => out.stdout.split('scan this code').length === 3);
    whatsapp.become('connected');
    expect(await linking).toBe(0);
    expect(whatsapp.requests).toEqual([{ method: 'qr' }]);
    // Two distinct QR drawings (block characters), each printed once although it was polled many times.
    const drawings = out.stdout.split('scan this code:\n').slice(1);
    expect(drawings).toHaveLength(2);
    expect(drawings[0]).toMatch(/[█▀▄]{10}/);
    expect(drawings[0]).not.toBe(drawings[1]);
    expect(out.stdout).toMatch(/Linked: whatsapp is connected/);
    expect(out.stdout).not.toContain('first-qr');
  });

  it('asks for a pairing code for a phone number and prints it', async () => {
    const whatsapp = new DeviceChannel('starting');
    const home = await homeWithGateway({ whatsapp });
    const { out, io } = capturedIo();
    const linking = linkChannel({ home, name: 'whatsapp', phone: '+4915112345678', io, pollMs: 5 });
    await until(() => whatsapp.requests.length === 1);
    whatsapp.offer({ code: 'WREN-2468' });
    await until(() => out.stdout.includes('WREN-2468'));
    whatsapp.become('connected');
    expect(await linking).toBe(0);
    expect(whatsapp.requests).toEqual([{ method: 'code', phone: '4915112345678' }]);
    expect(out.stdout).toMatch(/Link with phone number instead, then type:\n\n {4}WREN-2468/);
  });

  it('exits 1 with the reason when the platform logs the device out while linking', async () => {
    const whatsapp = new DeviceChannel('starting');
    const home = await homeWithGateway({ whatsapp });
    const { out, io } = capturedIo();
    const linking = linkChannel({ home, name: 'whatsapp', io, pollMs: 5 });
    await until(() => whatsapp.requests.length === 1);
    whatsapp.become('logged-out', 'the phone removed this device');
    expect(await linking).toBe(1);
    expect(out.stderr).toBe('wren: whatsapp logged-out: the phone removed this device\n');
  });

  it('gives up after the timeout, and stops when interrupted, saying linking goes on', async () => {
    const whatsapp = new DeviceChannel('starting');
    const home = await homeWithGateway({ whatsapp });
    const timed = capturedIo();
    expect(await linkChannel({ home, name: 'whatsapp', io: timed.io, pollMs: 5, timeoutMs: 1 })).toBe(1);
    expect(timed.out.stderr).toMatch(/gave up waiting; whatsapp still waits to be linked/);
    const stop = new AbortController();
    const interrupted = capturedIo();
    const linking = linkChannel({
      home,
      name: 'whatsapp',
      io: interrupted.io,
      pollMs: 5,
      signal: stop.signal,
    });
    await until(() => whatsapp.requests.length === 2);
    stop.abort();
    expect(await linking).toBe(1);
    expect(interrupted.out.stderr).toMatch(/stopped waiting/);
  });

  it('says what is wrong: no such channel (2), not configured (1), a token platform (2), Wren not running (1)', async () => {
    const home = await homeWithGateway({ telegram: new TokenChannel() });
    const unknown = capturedIo();
    expect(await linkChannel({ home, name: 'myspace', io: unknown.io })).toBe(2);
    expect(unknown.out.stderr).toMatch(/^wren: no channel named myspace \(channels: telegram, email/);
    const absent = capturedIo();
    expect(await linkChannel({ home, name: 'whatsapp', io: absent.io })).toBe(1);
    expect(absent.out.stderr).toBe(
      'wren: The whatsapp channel is not configured: add channels.whatsapp to config.yaml.\n',
    );
    const token = capturedIo();
    expect(await linkChannel({ home, name: 'telegram', io: token.io })).toBe(2);
    expect(token.out.stderr).toMatch(/does not link by device/);
    const stopped = mkdtempSync(join(tmpdir(), 'wren-link-none-'));
    cleanups.push(() => rmSync(stopped, { recursive: true, force: true }));
    const none = capturedIo();
    expect(await linkChannel({ home: stopped, name: 'whatsapp', io: none.io })).toBe(1);
    expect(none.out.stderr).toMatch(/^wren: Wren is not running\. Start it with `.*start`/);
  });
});

describe('wren channels unlink and test', () => {
  it('unlinks a device and sends the owner a test message', async () => {
    const whatsapp = new DeviceChannel('starting');
    const telegram = new TokenChannel();
    const home = await homeWithGateway({ whatsapp, telegram });
    const tested = capturedIo();
    expect(await testChannel({ home, name: 'telegram', io: tested.io })).toBe(0);
    expect(tested.out.stdout).toBe('Sent a test message to you on telegram (chat 42). Did it arrive?\n');
    expect(telegram.sent.map((message) => message.chatId)).toEqual(['42']);
    const notYet = capturedIo();
    expect(await testChannel({ home, name: 'whatsapp', io: notYet.io })).toBe(1);
    expect(notYet.out.stderr).toMatch(/The whatsapp channel is starting; it can send once it is connected/);
    const unlinked = capturedIo();
    expect(await unlinkChannel({ home, name: 'whatsapp', io: unlinked.io })).toBe(0);
    expect(whatsapp.unlinked).toBe(1);
    expect(unlinked.out.stdout).toMatch(/^Unlinked: whatsapp is logged out/);
  });
});
